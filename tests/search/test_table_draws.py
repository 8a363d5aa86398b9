"""Table draws with the switch tb_draw: of the draws the tables prove, the root's side keeps the
one its evaluation likes best; a draw that favours the other side scores as a plain draw, and a
search that scores positions (analysis) scores every table draw as a draw."""
from __future__ import annotations

import pytest

from hub_engine.core import INF, Searcher, TransTable, eval_weights
from hub_engine.engine import Engine
from hub_engine.rules.position import Position
from hub_engine.rules.variants import get_variant

# russian, 5 pieces: two kings and a man against two kings. Every line ends in a 4-piece table
# draw (the shipped tables), so without the switch every move scores 0.
STRONGER_TO_MOVE = "W:WK32,K16,5:BK3,K6"
WEAKER_TO_MOVE = "B:WK32,K16,5:BK3,K6"


@pytest.fixture(scope="module")
def tables():
    e = Engine()
    e.set_param("variant", "russian")
    e.set_param("tt-size", "16")
    e.init()
    return e.searchers.main.tables


def search(tables, fen: str, tb_draw: int, depth: int = 6, playing: int = 1) -> tuple[int, tuple]:
    v = get_variant("russian")
    s = Searcher(v.core_rules, TransTable(16), eval_weights(v.name))
    s.set_tables(tables, 4)
    s.tb_draw = tb_draw
    s.playing = playing
    board = Position.parse("russian", fen).board
    result = None
    for d in range(1, depth + 1):
        result = s.iterate(board, d, -INF, INF, [], board.initial_counters(), 0.0, 0)
        assert result[3]
    return result[0], tuple(result[1][:1])


def test_off_every_table_draw_scores_zero(tables):
    assert search(tables, STRONGER_TO_MOVE, 0)[0] == 0
    assert search(tables, WEAKER_TO_MOVE, 0)[0] == 0


def test_the_stronger_side_scores_its_draws_by_the_evaluation_within_the_cap(tables):
    off_score, off_move = search(tables, STRONGER_TO_MOVE, 0)
    scores = {n: search(tables, STRONGER_TO_MOVE, n) for n in (1, 4, 8)}
    for n, (score, _) in scores.items():
        assert 0 < score <= 5 * n, (n, score)
    assert scores[1][0] <= scores[4][0] <= scores[8][0]
    # the bias chooses among the drawing moves: here another move than the first draw found
    assert scores[4][1] != off_move


def test_the_weaker_side_keeps_a_plain_draw(tables):
    assert search(tables, WEAKER_TO_MOVE, 4) == search(tables, WEAKER_TO_MOVE, 0)
    assert search(tables, WEAKER_TO_MOVE, 8)[0] == 0


def test_a_searcher_that_scores_positions_keeps_table_draws_level(tables):
    # analysis, books and self-play labels score positions for neither side
    assert search(tables, STRONGER_TO_MOVE, 4, playing=0) == search(tables, STRONGER_TO_MOVE, 0)


def test_the_engine_leans_when_it_plays_and_not_when_it_analyses():
    from protocol import Limits

    e = Engine()
    e.set_param("variant", "russian")
    e.set_param("tt-size", "16")
    e.init()
    scores = {}
    for mode in ("think", "analyze"):
        e.set_position(Position.parse("russian", STRONGER_TO_MOVE).hub(), [])
        infos = []
        e.search(Limits(depth=6), mode, infos.append)
        scores[mode] = infos[-1].score
    assert scores["analyze"] == 0.0
    assert 0.0 < scores["think"] <= 0.2
