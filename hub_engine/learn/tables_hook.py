"""Where self-play asks the endgame tables for an exact result.

A probe is a callable `probe(board) -> int | None`: +1 (the side to move wins), 0 (draw), -1
(loss) for a position inside the tables, None outside them. Self-play ends a game at the first
position a probe answers and labels it with that value (the table's value with the move-count
rules ignored, which is what a training label wants).

The tables package offers `hub_engine.tables.open_tables(variant)`, whose `probe(Position)`
returns a result with `value` "win", "draw" or "loss", or None outside the tables. Without that
package, or without any table files for the variant, there is no probe and games are labelled
with their played result only.
"""
from __future__ import annotations

from typing import Callable, Optional

TableProbe = Callable[[object], Optional[int]]
_SIGN = {"win": 1, "draw": 0, "loss": -1}


def table_probe(variant: str) -> TableProbe | None:
    """The endgame tables' probe for a variant, or None."""
    try:
        from hub_engine.tables import open_tables
    except ImportError:
        return None
    tables = open_tables(variant)
    if not getattr(tables, "files", None):
        return None
    from hub_engine.rules.position import Position

    def probe(board) -> int | None:
        result = tables.probe(Position(variant, board))
        return None if result is None else _SIGN[result.value]

    return probe
