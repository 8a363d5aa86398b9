"""Runs of `hub-engine match` and `hub-engine tournament` in a child process, for the tests
that stop them as a user does (Ctrl-C, a kill) and look at what their state file kept."""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from launchers import default_sigint

ROOT = Path(__file__).resolve().parents[2]


def start(command: str, argv: list[str], state: Path) -> subprocess.Popen:
    """`hub-engine COMMAND ARGV --state STATE` with its output piped; Ctrl-C (SIGINT) reaches
    it as it would from a terminal."""
    return subprocess.Popen([sys.executable, "-m", "hub_engine", command, *argv,
                             "--state", str(state)], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=default_sigint)


def wait_for_games(state: Path, count: int, proc: subprocess.Popen, timeout: float = 60) -> None:
    """Until the state file holds `count` games (its first line is the settings)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if state.exists() and len(state.read_text().splitlines()) - 1 >= count:
            return
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    raise AssertionError(f"fewer than {count} games within {timeout} s")


def state_games(path: Path) -> list[dict]:
    """The games a state file holds (its first line is the settings)."""
    return [json.loads(x) for x in path.read_text().splitlines()[1:]]
