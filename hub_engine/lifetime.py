"""Child processes that end with their parent, even when the parent is killed (`kill -9`).

A parent killed with SIGKILL has no chance to stop its children. Two guards make them go anyway:

- `exit_with_parent()`, called inside a child that runs this package's code: PR_SET_PDEATHSIG on
  Linux (the kernel kills it when its parent dies), and on every system a thread that notices
  the parent has changed (the orphan was adopted) and exits.
- `parent_death_signal()`, a `preexec_fn` for `subprocess.Popen`, for a child that runs any
  program: on Linux it sets PR_SET_PDEATHSIG between fork and exec, and the setting survives the
  exec. Elsewhere there is no such call; a Hub engine still ends there, because its stdin closes
  with the parent and the protocol makes an engine exit at end of input.

PR_SET_PDEATHSIG fires when the *thread* that started the child ends, not the process: start
such children from a thread that lives as long as the process (the main thread, an event loop).
"""
from __future__ import annotations

import os
import signal
import sys
import threading
import time
from typing import Callable

PARENT_POLL = 0.5           # seconds between a child's checks that its parent still lives
PR_SET_PDEATHSIG = 1
WATCH_ENV = "HUB_ENGINE_PARENT_WATCH"   # "1": the Hub loop calls exit_with_parent() at start


def _prctl() -> Callable | None:
    """libc's prctl on Linux, None elsewhere (or when it cannot be found)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


def exit_with_parent(use_prctl: bool = True, poll: float = PARENT_POLL) -> None:
    """Make this process end when its parent does (see the module docstring)."""
    parent = os.getppid()
    prctl = _prctl() if use_prctl else None
    if prctl is not None:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(poll)
        os._exit(1)

    if parent == 1:             # already an orphan (the parent died while this one started)
        os._exit(1)
    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def parent_death_signal(sig: int = getattr(signal, "SIGKILL", 9)) -> Callable[[], None] | None:
    """A Popen `preexec_fn` that has the child receive `sig` when its parent dies (Linux), or
    None where the system has no such call.

    Everything is looked up before the fork: between fork and exec the child may only make
    plain system calls (another thread of the parent may hold a lock the child would wait on).
    """
    prctl = _prctl()
    if prctl is None:
        return None
    parent = os.getpid()
    getppid, exit_now = os.getppid, os._exit

    def preexec() -> None:
        prctl(PR_SET_PDEATHSIG, int(sig))
        if getppid() != parent:          # the parent died before the call: do not run at all
            exit_now(1)

    return preexec


def watch_requested() -> bool:
    """Whether the parent asked this process to watch it (WATCH_ENV)."""
    return os.environ.get(WATCH_ENV) == "1"
