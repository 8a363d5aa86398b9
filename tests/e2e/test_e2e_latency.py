"""Smoke test of `python -m hub_engine.matches.latency`: it runs and prints its three figures.

The figures themselves are not asserted (no timing asserts in tests); run the module by hand.
"""
from __future__ import annotations

import re
import shlex
import subprocess
import sys

from e2e_helpers import ENGINE_CMD, REPO, engine_env

LINE = re.compile(r"(start_to_wait|init_to_ready|stop_to_done) median=\d+\.\d{3} max=\d+\.\d{3}")


def test_latency_module_prints_three_figures():
    proc = subprocess.run(
        [sys.executable, "-m", "hub_engine.matches.latency", "--runs", "1", "--warmup", "0",
         "--tt-size", "16", "--exe", shlex.join(ENGINE_CMD)],
        cwd=REPO, env=engine_env(), capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    figures = [line for line in proc.stdout.splitlines() if not line.startswith("#")]
    assert len(figures) == 3, proc.stdout
    matches = [LINE.fullmatch(line) for line in figures]
    assert all(matches), proc.stdout
    assert [m.group(1) for m in matches] == [
        "start_to_wait", "init_to_ready", "stop_to_done"], proc.stdout


def test_latency_module_reports_a_dead_engine():
    proc = subprocess.run(
        [sys.executable, "-m", "hub_engine.matches.latency", "--runs", "1", "--warmup", "0",
         "--exe", f"{shlex.quote(sys.executable)} -c pass"],
        cwd=REPO, env=engine_env(), capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 1
    assert "latency: error" in proc.stderr
