"""MultiPV: the N best root moves with exact scores, best line last, best move unchanged."""
from __future__ import annotations

import pytest

from hub_engine.engine import Engine
from hub_engine.engine.params import MAX_MULTIPV
from hub_engine.rules.position import Game
from protocol import Limits, format_info

# (variant, moves from the start): positions with seven legal moves and no capture
POSITIONS = [
    ("russian", "11-14 21-18 14x21x18 26x17x21 9-13 29-26".split()),
    ("brazilian", "11-14 21-18 14x21x18 26x17x21 9-13 29-26".split()),
    ("english", "10-15 24-19 15x24x19 27x20x24 12-16 32-27".split()),
    ("italian", "22-19 12-15 19x12x15 7x16x12 24-20 4-7".split()),
    ("portuguese", "11-14 21-18 14x21x18 26x17x21 9-13 29-26".split()),
]


def engine(variant: str, multipv: int) -> Engine:
    e = Engine()
    e.set_param("variant", variant)
    e.set_param("tt-size", "16")
    e.set_param("multipv", str(multipv))
    e.init()
    return e


def run(variant: str, moves: list[str], multipv: int, depth: int, mode: str = "think"):
    e = engine(variant, multipv)
    e.set_position(None, moves)
    infos = []
    result = e.search(Limits(depth=depth), mode, infos.append)
    last = [i for i in infos if i.depth == max(x.depth for x in infos)]
    return result, infos, last


@pytest.mark.parametrize("variant,moves", POSITIONS)
def test_every_legal_move_once_with_ordered_scores(variant, moves):
    legal = [m.hub() for m in Game(variant, moves=moves).legal_moves()]
    assert len(legal) >= 3
    result, infos, last = run(variant, moves, len(legal), 6)
    assert [i.multipv for i in last] == list(range(len(legal), 0, -1))   # best last
    firsts = [i.pv[0] for i in last]
    assert sorted(firsts) == sorted(legal)                     # every legal move, once
    ranked = sorted(last, key=lambda i: i.multipv)
    scores = [i.score for i in ranked]
    assert scores == sorted(scores, reverse=True)
    assert result.move == ranked[0].pv[0] and infos[-1].multipv == 1


@pytest.mark.parametrize("variant,moves", POSITIONS)
@pytest.mark.parametrize("depth", [5, 8])
def test_best_line_equals_the_single_line_search(variant, moves, depth):
    single, single_infos, _ = run(variant, moves, 1, depth)
    multi, _, last = run(variant, moves, 3, depth)
    best = [i for i in last if i.multipv == 1][0]
    assert best.score == single_infos[-1].score and best.pv == single_infos[-1].pv
    assert multi.move == single.move
    assert all(i.multipv is None for i in single_infos)


def test_more_lines_than_moves_and_a_forced_capture():
    # one legal move (a capture): one line, whatever multipv asks (`go analyze`: `think`
    # answers a single legal move at once, without searching)
    moves = "10-13 21-17 6-10 22-18".split()
    assert len(Game("russian", moves=moves).legal_moves()) == 1
    result, infos, last = run("russian", moves, 5, 4, "analyze")
    assert [i.multipv for i in last] == [1] and result.move == last[0].pv[0]


def test_multipv_parameter_bounds_and_info_format():
    e = Engine()
    spec = {p.name: p for p in e.params()}["multipv"]
    assert (spec.type, spec.value, spec.min, spec.max) == ("int", 1, 1, MAX_MULTIPV)
    for bad in ("0", str(MAX_MULTIPV + 1), "two"):
        with pytest.raises(ValueError):
            e.set_param("multipv", bad)
    _r, infos, _l = run("russian", POSITIONS[0][1], 2, 3)
    line = format_info(infos[-1])
    assert line.endswith(" multipv=1") and line.index('pv="') < line.index("multipv=")


def test_time_limited_multipv_answers_a_legal_move():
    e = engine("brazilian", 4)
    e.set_position(None, POSITIONS[1][1])
    infos = []
    result = e.search(Limits(move_time=0.2), "think", infos.append)
    legal = [m.hub() for m in Game("brazilian", moves=POSITIONS[1][1]).legal_moves()]
    assert result.move in legal and infos
