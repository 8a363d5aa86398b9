"""The clock of one move: its time budget, pondering, and the hard-limit timer.

A move's clock runs from the moment its `go` line was read (or from `ponder-hit` for a ponder
search). `timeman.budget` turns the `level` into a soft target (no new iteration after it) and
a hard limit; each iteration after the first gets the hard limit as its deadline. Only a clock
started by `ponder-hit` also needs a timer thread (which calls `on_hard_limit` at the hard
limit): the iteration running then was started without a deadline. A search on the clock from
its start starts no thread, which on a busy machine can cost milliseconds of the move. The per-move cost the engine cannot see is
learnt from the clock between moves (timeman.Overhead).

States: idle -> running (think, analyze), or idle -> pondering -> running (ponder-hit) -> idle.
"""
from __future__ import annotations

import math
import threading
import time
from typing import Callable

from loguru import logger

from hub_engine.engine.timeman import Budget, Overhead, budget
from protocol import Limits


class Clock:
    """One engine's clock; `ponder_hit` comes from the session's thread, the rest from the
    search thread, and the timer calls `on_hard_limit` from a thread of its own."""

    def __init__(self, on_hard_limit: Callable[[], None]) -> None:
        self.overhead = Overhead()                 # per-move cost the engine cannot see
        self.budget = Budget(None, None)
        self.running = threading.Event()           # set while this move's clock runs
        self._on_hard_limit = on_hard_limit
        self._state = "idle"                       # idle | pondering | running
        self._early_hit = False
        self._start = 0.0
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self._move: tuple | None = None            # (time, inc, started) of a move on the clock

    def begin(self, limits: Limits, mode: str) -> None:
        """A `go` arrives: learn the overhead of the last move if this one is on the clock too."""
        started = min(time.monotonic(), math.inf if limits.issued is None else limits.issued)
        on_clock = (mode == "think" and limits.time is not None and limits.move_time is None
                    and not limits.infinite)
        if on_clock:
            self.overhead.next_move(limits.time, limits.inc)
            logger.debug("move overhead: {:.2f} ms", 1000 * self.overhead.estimate)
            self._move = (limits.time, limits.inc, started)
        else:
            self.overhead.forget()
            self._move = None

    def arm(self, limits: Limits, mode: str, phase: float = 0.0) -> None:
        """The search starts: its budget, and the clock runs (a ponder search waits for
        ponder-hit, unless it came already). `go analyze` honours limits the client gave;
        with none it runs until `stop`. `phase` is timeman.budget's (0 at the start of a game,
        1 with no men left)."""
        self.budget = (Budget(None, None) if limits.is_unlimited() else
                       budget(limits.move_time, limits.time, limits.inc, limits.moves,
                              self.overhead.estimate, phase))
        with self._lock:
            if mode == "ponder" and not self._early_hit:
                self._state = "pondering"          # no clock until ponder-hit
                self.running.clear()
                self._start = time.monotonic()
            else:
                self._state = "running"
                self._run(None if mode == "ponder" else limits.issued)

    def ponder_hit(self) -> None:
        with self._lock:
            if self._state == "pondering":
                self._state = "running"
                self._run(timer=True)
            elif self._state == "idle":
                self._early_hit = True     # overtook the first lines of search(): keep it

    def _run(self, since: float | None = None, timer: bool = False) -> None:
        """The clock runs from `since` (default now), with the hard-limit timer if asked for
        (caller holds the lock). No timer for a zero budget: the 1-ply iteration must
        complete."""
        self.running.set()
        now = time.monotonic()
        self._start = now if since is None else min(since, now)
        if timer and self.budget.hard:
            left = max(0.001, self._start + self.budget.hard - now)
            self._timer = threading.Timer(left, self._on_hard_limit)
            self._timer.daemon = True
            self._timer.start()

    def deadline(self, fail_low: bool = False) -> float:
        """The hard limit as a time.monotonic() value, 0.0 for none (or not running yet); with
        `fail_low`, the longer one of an iteration whose root failed low."""
        if self.budget.hard is None or not self.running.is_set():
            return 0.0
        return self._start + (self.budget.fail_low_hard if fail_low else self.budget.hard)

    def soft_limit_passed(self, factor: float) -> bool:
        """After an iteration: is the soft target (scaled by the best move's stability)
        spent? Never for a move-time (spent to the end), nor before the clock runs."""
        if self.budget.soft is None or self.budget.exact or not self.running.is_set():
            return False
        return time.monotonic() - self._start > self.budget.soft * factor * 0.55

    def end(self) -> None:
        """The move is answered: remember what it cost, stop the timer, back to idle."""
        if self._move is not None:
            move_time, inc, started = self._move
            self.overhead.moved(move_time, inc, time.monotonic() - started)
            self._move = None
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            self._state = "idle"
            self._early_hit = False
