"""Boards of self-play records (for the pipeline tests)."""
from __future__ import annotations

from hub_engine.core import CoreBoard
from hub_engine.learn.records import Record
from hub_engine.variants import get_variant


def board_of_record(variant: str, r: Record) -> CoreBoard:
    def sq(m: int) -> list[int]:
        return [s for s in range(32) if m >> s & 1]
    return CoreBoard(get_variant(variant).core_rules, r.side, sq(r.white & ~r.kings),
                     sq(r.white & r.kings), sq(r.black & ~r.kings), sq(r.black & r.kings))
