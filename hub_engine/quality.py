"""Move quality: how much a played move gives away, in classes with their PDN marks.

A played move's loss is the best move's score minus the played move's, in men, from the
mover's view. The analysis classifies each move by it and the report shows the classes; both
import them from here (a module below both, so no import runs back up).
"""
from __future__ import annotations

INACCURACY = 0.3    # men lost against the best move: an inaccuracy from here
MISTAKE = 1.0       # a mistake from here
BLUNDER = 2.5       # a blunder from here
CLASSES = ("inaccuracy", "mistake", "blunder")        # the mildest first
THRESHOLDS = {"inaccuracy": INACCURACY, "mistake": MISTAKE, "blunder": BLUNDER}
NAGS = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}   # the marks a PDN move gets


def classify(loss: float | None) -> str | None:
    """inaccuracy / mistake / blunder / None for a score loss in men: from INACCURACY (0.3)
    an inaccuracy, from MISTAKE (1.0) a mistake, from BLUNDER (2.5) a blunder."""
    if loss is None:
        return None
    if loss >= BLUNDER:
        return "blunder"
    if loss >= MISTAKE:
        return "mistake"
    if loss >= INACCURACY:
        return "inaccuracy"
    return None
