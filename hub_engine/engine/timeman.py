"""Time management: turn a `level` into a soft target and a hard limit for one move.

Convention (hub-protocol.md): the increment is added before the move, so up to `time + inc` may
be spent now. The engine's clock runs from the moment the `go` line was read (Limits.issued), so
the `pos` replay and the start of the search threads are counted; what it cannot see (the
client writing and reading lines, process wake-ups, network lag) is at least MOVE_OVERHEAD per
move, more when the client's clock shows more (Overhead). A reserve of the clock is never
planned; with less than that left, the move is a 1-ply answer given at once.
The soft target is where iterative deepening stops starting new iterations, stretched when the
best move changes and shrunk when it is stable; the hard limit stops the search mid-iteration,
unless the iteration's root failed low (the best move so far looks worse at this depth): then
it may run to a longer limit (`Budget.fail_low`) to find a better move or confirm the old one.
"""
from __future__ import annotations

import statistics
from collections import deque
from dataclasses import dataclass

MAX_SECONDS = 1e7          # longer times count as this (~4 months): no search needs more, and a
                           # timer cannot wait longer than the OS allows (threading.TIMEOUT_MAX)
MOVE_OVERHEAD = 0.001      # seconds per move outside the engine's view (client pipes, wake-ups),
                           # at least: the median measured is 0.4 ms on a loaded machine
RESERVE = 0.02             # seconds of the clock never planned; under this, answer at once
RESERVE_SHARE = 0.02       # ... plus this share of the clock
MOVE_TIME_MARGIN = 0.03    # `move-time`: kept back from it (at most a quarter of it)
DEFAULT_MOVES_TO_GO = 30   # sudden death: assume this many moves still to play at the start,
ENDGAME_MOVES_TO_GO = 10   # ... and this many once every man is gone (Scan's lerp by phase)
HARD_FACTOR = 4.0          # the hard limit may reach this many soft targets
HARD_SHARE = 0.4           # ... but at most this share of the clock in one move
FAIL_LOW_FACTOR = 2.0      # an iteration whose root failed low may run to this many hard limits
FAIL_LOW_SHARE = 0.5       # ... but at most this share of the clock


@dataclass(frozen=True)
class Budget:
    """Seconds for one move; None means no time limit (depth, nodes, infinite).

    0 means: no time to search, answer with what the first (1-ply) iteration finds.
    """

    soft: float | None
    hard: float | None
    exact: bool = False    # move-time: spend it all; only the hard limit ends the search
    fail_low: float | None = None   # the hard limit of an iteration whose root failed low (the
                                    # move that was best looks worse): None, the same as hard

    @property
    def fail_low_hard(self) -> float | None:
        return self.hard if self.fail_low is None else self.fail_low


def seconds(value: float | None) -> float:
    """A time from the client, within 0..MAX_SECONDS (None and negative times count as 0)."""
    return min(MAX_SECONDS, max(0.0, value or 0.0))


def moves_to_go(phase: float, moves: int | None = None) -> int:
    """Moves that share the clock: the client's `moves` (to the next time control) when given;
    in sudden death a guess from DEFAULT_MOVES_TO_GO at the start (phase 0) down to
    ENDGAME_MOVES_TO_GO when every man is gone (phase 1), as Scan's time allocation."""
    if moves and moves > 0:
        return moves
    phase = min(1.0, max(0.0, phase))
    return round(DEFAULT_MOVES_TO_GO + (ENDGAME_MOVES_TO_GO - DEFAULT_MOVES_TO_GO) * phase)


def budget(move_time: float | None = None, time: float | None = None, inc: float | None = None,
           moves: int | None = None, overhead: float = MOVE_OVERHEAD, phase: float = 0.0) -> Budget:
    """The time this move may use, counted from the moment its `go` was read; `overhead` is
    what each move costs the clock beyond that (Overhead.estimate); `phase` is how far the game
    is from its start (0) to its end (1, no men left): fewer moves are left to share the clock."""
    if move_time is not None:
        move_time = seconds(move_time)
        hard = move_time - min(MOVE_TIME_MARGIN, 0.25 * move_time)
        return Budget(hard, hard, exact=True)
    if time is None:
        return Budget(None, None)
    time, inc = seconds(time), seconds(inc)
    overhead = min(MAX_SECONDS, max(MOVE_OVERHEAD, overhead))
    available = time + inc - overhead
    reserve = RESERVE + RESERVE_SHARE * max(0.0, available)
    ceiling = available - reserve
    if ceiling <= 0:
        return Budget(0.0, 0.0)
    to_go = moves_to_go(phase, min(moves, 10**6) if moves and moves > 0 else None)
    # this move's share of the clock, less its overhead; the clock left shrinks with every
    # share, so the reserve is never reached by shares (only the ceiling has to keep it)
    share = max(0.0, time / to_go - overhead)
    soft = min(ceiling, share + inc * 0.9)
    if to_go == 1:
        hard = ceiling
    else:
        hard = min(ceiling, soft * HARD_FACTOR, max(soft, available * HARD_SHARE))
    hard = max(soft, hard)
    fail_low = min(ceiling, hard * FAIL_LOW_FACTOR, max(hard, available * FAIL_LOW_SHARE))
    return Budget(soft, hard, fail_low=fail_low if fail_low > hard else None)


class Overhead:
    """What a move costs the client's clock beyond the engine's own count, learnt from the clock.

    Between two moves on the clock, the client charged `time + inc - next time` for the first
    (hub-protocol's convention, and pydraughts' `time=clock-inc` gives the same); the engine
    counted `elapsed` from reading `go` to its answer. The difference is pipes, wake-ups, a busy
    machine or network lag. The estimate is the median of the last few differences (one stall
    does not move it), never below MOVE_OVERHEAD; a difference outside 0..CAP is not a move's
    overhead (another game, a client that sets the clock) and is ignored.
    """

    CAP = 1.0
    KEEP = 5

    def __init__(self) -> None:
        self._extras: deque[float] = deque(maxlen=self.KEEP)
        self._last: tuple[float, float, float] | None = None

    @property
    def estimate(self) -> float:
        """Seconds a move costs the clock beyond the engine's count, at least MOVE_OVERHEAD."""
        if not self._extras:
            return MOVE_OVERHEAD
        return max(MOVE_OVERHEAD, statistics.median(self._extras))

    def forget(self) -> None:
        """A new game, or a search whose time the client may count otherwise."""
        self._last = None

    def next_move(self, time: float, inc: float | None) -> None:
        """A move on the clock starts: learn from the last one, if it came just before."""
        if self._last is not None:
            last_time, last_inc, elapsed = self._last
            extra = seconds(last_time) + seconds(last_inc) - seconds(time) - elapsed
            if -0.002 <= extra <= self.CAP:            # the client may round to milliseconds
                self._extras.append(max(0.0, extra))
        self._last = None

    def moved(self, time: float, inc: float | None, elapsed: float) -> None:
        """The move given `time` and `inc` took `elapsed` seconds by the engine's count."""
        self._last = (time, inc or 0.0, elapsed)


class Stability:
    """Scales the soft target: more time when the best move changes, less when it holds."""

    def __init__(self) -> None:
        self.best: tuple | None = None
        self.stable_iterations = 0
        self.factor = 1.0

    def update(self, best: tuple, score_drop: int) -> float:
        if best == self.best:
            self.stable_iterations += 1
        else:
            self.stable_iterations = 0
        self.best = best
        if self.stable_iterations == 0:
            self.factor = 1.6
        elif self.stable_iterations >= 4:
            self.factor = 0.6
        else:
            self.factor = 1.0
        if score_drop > 30:      # the score fell: look deeper for a way out
            self.factor *= 1.5
        return self.factor
