"""The board's server started as a user starts it, and the page driven as a person drives it.

`board_server()` runs `hub-engine gui --no-browser` (the environment's console script, or the
one-file build in HUB_ENGINE_EXE) and reads the address from its first line; `engines_of(pid)`
lists the engine processes it started (its children). In the browser, squares are clicked where
they are drawn (selenium moves the mouse to the square and clicks whatever is on top there).
"""
from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "report"))

from launchers import default_sigint, engine_command  # noqa: E402
from report_browser import chromium, page_errors  # noqa: E402,F401

SCREENSHOTS = os.environ.get("HUB_ENGINE_GUI_SCREENSHOTS")    # also keep the screenshots here


class Server:
    def __init__(self, proc: subprocess.Popen, url: str) -> None:
        self.proc = proc
        self.url = url
        self.host = url.split("/")[2]
        self.token = url.split("/")[3]
        self.pid = serving_pid(proc)

    @property
    def base(self) -> str:
        return f"http://{self.host}"

    def ws_url(self) -> str:
        return f"ws://{self.host}/{self.token}/ws"


@contextlib.contextmanager
def board_server(*args: str, timeout: float = 30) -> Iterator[Server]:
    """`hub-engine gui --no-browser ARGS`, ended with Ctrl-C (SIGINT) afterwards; the test fails
    if it does not end quietly or leaves an engine behind."""
    cmd = engine_command() + ["gui", "--no-browser", *args]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=default_sigint)
    try:
        line = proc.stdout.readline().strip()
        assert line.startswith("http://"), (line, proc.stderr.read() if proc.poll() is not None else "")
        server = Server(proc, line)
        yield server
        engines = engines_of(server.pid)
        proc.send_signal(signal.SIGINT)
        code = proc.wait(timeout)
        err = proc.stderr.read()
        assert code in (0, 130, -signal.SIGINT), (code, err)
        assert "Traceback" not in err, err
        wait_gone(engines)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)


def serving_pid(proc: subprocess.Popen) -> int:
    """The process that serves: the one started, or under the one-file build the program its
    launcher runs (the launcher's only child)."""
    if not os.environ.get("HUB_ENGINE_EXE"):
        return proc.pid
    return wait_until(lambda: (engines_of(proc.pid) or [None])[0], 10, "the unpacked program")


def engines_of(pid: int) -> list[int]:
    """The live child processes of pid (the server's engines)."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            out.append(int(entry))
    return out


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_gone(pids: list[int], timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not any(alive(p) for p in pids):
            return
        time.sleep(0.05)
    assert not [p for p in pids if alive(p)], f"processes still running: {pids}"


def wait_until(fn, timeout: float = 20, what: str = "condition", interval: float = 0.05):
    deadline = time.monotonic() + timeout
    while True:
        value = fn()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(interval)


def rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


# --- in the browser ------------------------------------------------------------------------------

def js(driver, script: str, *args):
    return driver.execute_script(script, *args)


def open_board(driver, url: str) -> None:
    driver.get(url)
    wait_until(lambda: js(driver, "return document.documentElement.dataset.ready === '1' || "
                                  "!!document.documentElement.dataset.error"), what="the board")
    assert js(driver, "return document.documentElement.dataset.error || null") is None
    wait_engine(driver)


def wait_engine(driver, timeout: float = 30) -> int:
    """The pid of the tab's engine once it is ready."""
    wait_until(lambda: js(driver, "return document.getElementById('engine').dataset.state") == "ready",
               timeout, "the engine")
    return int(js(driver, "return document.getElementById('engine').dataset.pid"))


def board_position(driver) -> str:
    return js(driver, "return document.getElementById('board').dataset.position || ''")


def click_square(driver, k: int) -> None:
    """A click at the middle of layout square k, on whatever is drawn there."""
    from selenium.webdriver.common.action_chains import ActionChains

    rect = driver.find_element("css selector", f"#board rect.dark[data-square='{k}']")
    ActionChains(driver).move_to_element(rect).click().perform()


def drag(driver, a: int, b: int) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    src = driver.find_element("css selector", f"#board rect.dark[data-square='{a}']")
    dst = driver.find_element("css selector", f"#board rect.dark[data-square='{b}']")
    r1, r2 = src.rect, dst.rect          # the board is drawn again once the piece is picked up
    dx = round(r2["x"] + r2["width"] / 2 - r1["x"] - r1["width"] / 2)
    dy = round(r2["y"] + r2["height"] / 2 - r1["y"] - r1["height"] / 2)
    (ActionChains(driver).move_to_element(src).click_and_hold().move_by_offset(5, 5)
     .move_by_offset(dx // 2 - 5, dy // 2 - 5).move_by_offset(dx - dx // 2, dy - dy // 2)
     .release().perform())


def choose_variant(driver, variant: str) -> None:
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element("id", "variant")).select_by_value(variant)
    wait_until(lambda: js(driver, "return document.getElementById('board').dataset.variant")
               == variant, what="the new variant")


def mode(driver, name: str) -> None:
    driver.find_element("css selector", f"#modes button[data-mode='{name}']").click()


def unflip(driver) -> None:
    """The board seen from White's side (a game as Black turns it round)."""
    if js(driver, "return document.querySelector('#board svg').dataset.flipped") == "1":
        driver.find_element("css selector", ".controls button[data-go='flip']").click()
        wait_until(lambda: js(driver, "return document.querySelector('#board svg')"
                                      ".dataset.flipped") == "0", what="the board unflipped")


def labels(driver) -> dict[tuple[int, int], str]:
    """Square names drawn on the board, by (column, row) of the drawing."""
    items = js(driver, """return [...document.querySelectorAll('#board text.lbl')].map(t =>
        [Math.floor(t.getAttribute('x') / 50), Math.floor(t.getAttribute('y') / 50), t.textContent]);""")
    return {(c, r): text for c, r, text in items}


def pieces(driver) -> dict[tuple[int, int], str]:
    """Pieces drawn on the board by (column, row): 'white man', 'black king', ..."""
    items = js(driver, """return [...document.querySelectorAll('#board svg.board > .piece')].map(p => {
        const c = p.querySelector('circle');
        return [Math.floor(c.getAttribute('cx') / 50), Math.floor(c.getAttribute('cy') / 50),
                (p.classList.contains('white') ? 'white' : 'black') + ' ' +
                (p.classList.contains('king') ? 'king' : 'man')];});""")
    return {(c, r): what for c, r, what in items}


def screenshot(driver, directory: Path, name: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    assert driver.save_screenshot(str(path))
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10000
    if SCREENSHOTS:
        Path(SCREENSHOTS).mkdir(parents=True, exist_ok=True)
        (Path(SCREENSHOTS) / name).write_bytes(data)
    return path


def ws_connect(server: Server, origin: str | None = "own", **kw):
    """A WebSocket to the server as a page would open it (Origin: the server's own)."""
    import websocket

    if origin == "own":
        origin = server.base
    return websocket.create_connection(server.ws_url(), origin=origin, suppress_origin=origin is None,
                                       timeout=kw.pop("timeout", 20), **kw)


def ws_until(ws, pred, timeout: float = 30) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        ws.settimeout(max(0.05, deadline - time.monotonic()))
        msg = json.loads(ws.recv())
        if pred(msg):
            return msg
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
