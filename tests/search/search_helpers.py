"""Helpers for the search tests: a fresh searcher and iterative deepening to a fixed depth."""
from __future__ import annotations

from hub_engine.core import INF, Searcher, TransTable, eval_weights
from hub_engine.rules.position import Position
from hub_engine.rules.variants import get_variant


def make_searcher(variant: str, tt: TransTable | None = None) -> Searcher:
    v = get_variant(variant)
    return Searcher(v.core_rules, tt or TransTable(18), eval_weights(v.name))


def board_of(variant: str, text: str = "start"):
    v = get_variant(variant)
    return (Position.start(v) if text == "start" else Position.from_hub(v, text)).board


def deepen(variant: str, text, depth: int, history=(), counters=None, contempt: int = 0,
           searcher: Searcher | None = None):
    """Iterate depths 1..depth with a full window; the last result tuple. `searcher` (set up by
    the caller: tables, switches) replaces the fresh one."""
    s = searcher or make_searcher(variant)
    s.contempt = contempt
    b = board_of(variant, text) if isinstance(text, str) else text
    counters = b.initial_counters() if counters is None else counters
    result = None
    for d in range(1, depth + 1):
        result = s.iterate(b, d, -INF, INF, list(history), counters, 0.0, 0)
        assert result[3], "an unlimited iteration must complete"
    return result
