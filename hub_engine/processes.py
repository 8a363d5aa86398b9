"""Child processes that die with their parent.

A pool's worker processes outlive a parent killed by `kill -9` (or a crashed GUI) and go on
burning CPU: `exit_with_parent` run in each child (a pool's `initializer`) ends it when its
parent goes, and `process_pool` makes such a pool.
"""
from __future__ import annotations

import os
import signal
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor

PARENT_POLL = 0.5           # seconds between a child's checks that its parent still lives


def exit_with_parent(use_prctl: bool = True, poll: float = PARENT_POLL) -> None:
    """Make this process end when its parent does, even when the parent is killed (`kill -9`)
    and has no chance to stop it: PR_SET_PDEATHSIG on Linux, and everywhere a thread that
    notices the parent has changed (the orphan was adopted) and exits."""
    parent = os.getppid()
    if use_prctl and sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)     # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(poll)
        os._exit(1)

    if parent == 1:             # already an orphan (the parent died while this one started)
        os._exit(1)
    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _start_child() -> None:
    exit_with_parent()


def process_pool(workers: int, **options) -> ProcessPoolExecutor:
    """A ProcessPoolExecutor whose workers exit when this process does, however it ends."""
    return ProcessPoolExecutor(max_workers=workers, initializer=_start_child, **options)
