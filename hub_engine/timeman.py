"""Time management: turn a `level` into a soft target and a hard limit for one move.

Convention (hub-protocol.md): the increment is added before the move, so up to `time + inc` may
be spent now. The hard limit never exceeds that minus a safety margin for process overhead; the
soft target is where iterative deepening stops starting new iterations, stretched when the best
move changes and shrunk when it is stable.
"""
from __future__ import annotations

from dataclasses import dataclass

SAFETY = 0.03              # seconds kept back for pipes, process wake-up and the `done` line
MIN_THINK = 0.005          # never plan less than this
DEFAULT_MOVES_TO_GO = 30   # sudden death: assume this many moves still to play
HARD_FACTOR = 4.0          # the hard limit may reach this many soft targets
HARD_SHARE = 0.4           # ... but at most this share of the clock in one move


@dataclass(frozen=True)
class Budget:
    """Seconds for one move; None means no time limit (depth, nodes, infinite)."""

    soft: float | None
    hard: float | None
    exact: bool = False    # move-time: spend it all; only the hard limit ends the search


def budget(move_time: float | None = None, time: float | None = None, inc: float | None = None,
           moves: int | None = None) -> Budget:
    """The time this move may use."""
    if move_time is not None:
        hard = max(MIN_THINK, move_time - min(SAFETY, 0.25 * move_time))
        return Budget(hard, hard, exact=True)
    if time is None:
        return Budget(None, None)
    inc = max(0.0, inc or 0.0)
    available = max(0.0, time) + inc
    ceiling = max(MIN_THINK, available - SAFETY - 0.02 * available)
    moves_to_go = moves if moves and moves > 0 else DEFAULT_MOVES_TO_GO
    reserve_share = time / moves_to_go
    soft = min(ceiling, max(MIN_THINK, reserve_share + inc * 0.9))
    if moves_to_go == 1:
        hard = ceiling
    else:
        hard = min(ceiling, soft * HARD_FACTOR, max(soft, available * HARD_SHARE))
    return Budget(soft, max(soft, hard))


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
