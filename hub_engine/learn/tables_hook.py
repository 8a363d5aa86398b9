"""Where self-play asks the endgame tables for an exact result.

A probe is a callable `probe(board) -> int | None`: +1 (the side to move wins), 0 (draw), -1
(loss) for a position inside the tables, None outside them (or when no tables are installed).
Self-play ends a game at the first position a probe answers and labels it with that value.

The tables package is expected to offer `hub_engine.tables.wld_probe(variant)` returning such a
callable, or None when the variant has no tables on this machine. Until it does, there is no
probe and games are labelled with their played result only.
"""
from __future__ import annotations

from typing import Callable, Optional

TableProbe = Callable[[object], Optional[int]]


def table_probe(variant: str) -> TableProbe | None:
    """The endgame tables' probe for a variant, or None."""
    try:
        from hub_engine import tables
    except ImportError:
        return None
    factory = getattr(tables, "wld_probe", None)
    return factory(variant) if callable(factory) else None
