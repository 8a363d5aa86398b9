"""The transposition table keeps a board close to a move-count draw apart from the same board
with its counters fresh (switch counter_key)."""
from __future__ import annotations

import pytest

from hub_engine.core import INF, TransTable

from search_helpers import board_of, make_searcher

# russian, white to move: a king and two men against a king and a man (a position of a game
# against KestoG 1.4); kings on both sides and five pieces, so the counters run
POSITION = "W" + "eBeeeeeeebWweeeeeeeeeeeeeeeeeeew"
FRESH = (0, 0, 2, 0)        # (quiet, nocapcrown, endgame flags, their plies): just arisen
NEAR = (28, 58, 2, 58)      # two plies before the 15-move rule on king moves draws the game


@pytest.mark.parametrize("depth", [12, 16])
def test_a_search_near_a_counter_draw_does_not_answer_for_fresh_counters(depth):
    board = board_of("russian", POSITION)
    fresh = make_searcher("russian")
    fresh.counter_key = 1
    clean = fresh.iterate(board, depth, -INF, INF, [], FRESH, 0.0, 0)[0]
    assert clean >= 50, "white is a man up with play left"
    s = make_searcher("russian", TransTable(18))
    s.counter_key = 1
    near = s.iterate(board, depth, -INF, INF, [], NEAR, 0.0, 0)[0]
    after = s.iterate(board, depth, -INF, INF, [], FRESH, 0.0, 0)[0]
    # the search near the rule stored its draws; the same board with fresh counters is another
    # position to the table (only move ordering is shared), so its score stays a man's
    assert near < clean and after >= 50 and abs(after - clean) <= 40, (near, after, clean)
