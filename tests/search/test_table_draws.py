"""Table draws with the switch tb_draw: of the draws the tables prove, the root's side keeps the
one its evaluation likes best; a draw that favours the other side scores as a plain draw, and a
search that scores positions (analysis) scores every table draw as a draw."""
from __future__ import annotations

import pytest

from hub_engine.engine import Engine
from hub_engine.rules.position import Position
from protocol import Limits

from search_helpers import deepen, make_searcher

# russian, 5 pieces: two kings and a man against two kings. Every line ends in a 4-piece table
# draw (the shipped tables), so without the switch every move scores 0.
STRONGER_TO_MOVE = "W:WK32,K16,5:BK3,K6"
WEAKER_TO_MOVE = "B:WK32,K16,5:BK3,K6"


@pytest.fixture(scope="module")
def engine():
    e = Engine()
    e.set_param("variant", "russian")
    e.set_param("tt-size", "16")
    e.init()
    return e


@pytest.fixture(scope="module")
def tables(engine):
    return engine.searchers.main.tables


def search(tables, fen: str, tb_draw: int, depth: int = 6, playing: int = 1) -> tuple[int, tuple]:
    s = make_searcher("russian")
    s.set_tables(tables, 4)
    s.tb_draw = tb_draw
    s.playing = playing
    result = deepen("russian", Position.parse("russian", fen).board, depth, searcher=s)
    return result[0], tuple(result[1][:1])


def test_off_every_table_draw_scores_zero(tables):
    assert search(tables, STRONGER_TO_MOVE, 0)[0] == 0
    assert search(tables, WEAKER_TO_MOVE, 0)[0] == 0


def test_the_stronger_side_scores_its_draws_by_the_evaluation_within_the_cap(tables):
    off_move = search(tables, STRONGER_TO_MOVE, 0)[1]
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


def test_the_engine_leans_when_it_plays_and_not_when_it_analyses(engine):
    scores = {}
    for mode in ("think", "analyze"):
        engine.set_position(Position.parse("russian", STRONGER_TO_MOVE).hub(), [])
        infos = []
        engine.search(Limits(depth=6), mode, infos.append)
        scores[mode] = infos[-1].score
    assert scores["analyze"] == 0.0
    assert 0.0 < scores["think"] <= 0.2
