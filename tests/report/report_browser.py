"""The system's headless Chromium driven through selenium and chromedriver, for the report tests.

Browsers that test tools download for themselves do not run here; Debian's `chromium` and
`chromium-driver` do. The flags keep a closed network quiet (no background connections, no
updates, no sync) and every start gets a fresh profile directory.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from typing import Iterator

import pytest

CHROMIUM = os.environ.get("HUB_ENGINE_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("HUB_ENGINE_CHROMEDRIVER", "/usr/bin/chromedriver")
INSTALL = "apt-get install -y chromium chromium-driver"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run",
         "--disable-dev-shm-usage", "--window-size=1280,900")


def missing() -> str | None:
    """Why the browser cannot be started here, with the command that fixes it; None if it can."""
    for path in (CHROMIUM, CHROMEDRIVER):
        if not os.access(path, os.X_OK):
            return f"{path} is missing: install it with `{INSTALL}` (as root)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is missing: pip install -e '.[test]'"
    return None


@contextlib.contextmanager
def chromium() -> Iterator:
    """A selenium driver of headless Chromium (the test is skipped when there is none)."""
    why = missing()
    if why:
        pytest.skip(why)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="hub-engine-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def page_errors(driver) -> list[str]:
    """Script errors the page logged (and any it showed), since the last call."""
    errors = [e["message"] for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
    shown = driver.execute_script("return document.documentElement.dataset.error || null")
    return errors + ([shown] if shown else [])


def load_times(driver) -> dict[str, float]:
    """Milliseconds from the start of navigation to the first paint with content,
    DOMContentLoaded, load and the script's `report-ready` mark (the page drawn)."""
    return driver.execute_script("""
        const n = performance.getEntriesByType("navigation")[0];
        const mark = performance.getEntriesByName("report-ready")[0];
        const paint = performance.getEntriesByType("paint")
            .find((e) => e.name === "first-contentful-paint");
        return {paint: paint ? paint.startTime : null, dom: n.domContentLoadedEventEnd,
                load: n.loadEventEnd, ready: mark ? mark.startTime : null};""")
