"""The engine with tables: Hub parameters, probes in the search, the root rule, no tables = as before."""
from __future__ import annotations

import pytest

from hub_engine import Position
from hub_engine.core import INF, Searcher, TransTable, eval_weights, score_to_hub
from hub_engine.engine import Engine
from hub_engine.tables.play import child_value
from hub_engine.rules.variants import get_variant
from protocol import Limits

KINGS_2V1 = "W" + "e" * 10 + "W" + "e" * 10 + "W" + "e" * 9 + "B"    # english: a table win


def make(variant: str, **params) -> Engine:
    e = Engine()
    e.set_param("variant", variant)
    e.set_param("tt-size", "16")
    for k, v in params.items():
        e.set_param(k.replace("_", "-"), str(v))
    e.init()
    return e


def run(e: Engine, pos: str, **limits):
    e.set_position(pos, [])
    infos = []
    res = e.search(Limits(**limits), "think", infos.append)
    return res, infos


def test_parameters_are_declared_and_checked(tmp_path):
    e = Engine()
    specs = {p.name: p for p in e.params()}
    assert specs["bb-size"].type == "int" and specs["bb-size"].value == 4     # the shipped set
    assert (specs["bb-size"].min, specs["bb-size"].max) == (0, 6)
    assert specs["tables-path"].type == "string" and specs["tables-path"].value == "default"
    with pytest.raises(ValueError, match="between 0 and 6"):
        e.set_param("bb-size", "7")
    with pytest.raises(ValueError, match="integer"):
        e.set_param("bb-size", "all")
    with pytest.raises(ValueError, match="not a directory"):
        e.set_param("tables-path", str(tmp_path / "missing"))
    e.set_param("tables-path", str(tmp_path))
    assert {p.name: p for p in e.params()}["bb-size"].value == 4   # still the shipped set


def test_a_table_win_shows_as_89_and_keeps_the_win():
    e = make("english")
    res, infos = run(e, KINGS_2V1, move_time=0.2)
    assert 89.0 < infos[-1].score < 90.0
    pos = Position.from_hub("english", KINGS_2V1)
    move = pos.parse_move(res.move)
    child = pos.play(move)
    t = e.settings.tables.tables(get_variant("english"))
    assert child_value(t, child, pos.board.counters_after(child.board, move.frm, move.captured,
                                                          move.promote, pos.board.initial_counters())) == -1


def test_table_scores_on_the_hub_scale():
    assert score_to_hub(29000 - 23) == 89.77 and score_to_hub(-(29000 - 5)) == -89.95
    assert score_to_hub(29999) == 99.99 and score_to_hub(150) == 1.5


@pytest.mark.parametrize("variant,pos", [
    ("english", KINGS_2V1),
    ("russian", "W:WK1,K2,16:BK30,21"),
])
def test_without_tables_the_search_is_unchanged(tmp_path, variant, pos):
    # bb-size=0, and a tables directory with nothing in it plus no shipped set, search exactly
    # as a searcher that was never given tables (same nodes, score and move)
    position = Position.parse(variant, pos)
    v = get_variant(variant)

    def nodes(setup) -> tuple:
        tt = TransTable(16)
        s = Searcher(v.core_rules, tt, eval_weights(v.name))
        setup(s)
        out = []
        for d in range(1, 9):
            score, pv, n, *_ = s.iterate(position.board, d, -INF, INF, [], position.board.initial_counters(), 0.0, 0)
            out.append((score, tuple(pv[:1]), n))
        return out

    plain = nodes(lambda s: None)
    e = make(variant, bb_size=0)
    assert nodes(lambda s: s.set_tables(e.searchers.main.tables, 0)) == plain
    e = make(variant)
    with_tables = nodes(lambda s: s.set_tables(e.searchers.main.tables, 4))
    assert with_tables != plain


def test_bb_size_zero_switches_the_tables_off():
    e = make("english", bb_size=0)
    res, infos = run(e, KINGS_2V1, depth=6)
    assert abs(infos[-1].score) < 80 or infos[-1].score > 99     # a search score or a real mate
    e.set_param("bb-size", "3")
    res, infos = run(e, KINGS_2V1, depth=6)
    assert 89.0 < infos[-1].score < 90.0


def test_a_root_inside_the_tables_keeps_its_value_among_losing_moves():
    # russian 2 kings v 1 with captures around: every move the root keeps must keep the value
    e = make("russian")
    t = e.settings.tables.tables(get_variant("russian"))
    pos = Position.from_fen("russian", "W:WKc1,Ka3,Kb4:BKb8")
    from hub_engine import Game
    from hub_engine.tables.play import root_moves
    keep = root_moves(t, Game("russian", pos))
    assert keep and len(keep) < len(pos.legal_moves())
    res, infos = run(e, pos.hub(), move_time=0.2)
    assert res.move in {m.hub() for m in keep}


@pytest.mark.parametrize("variant", ["english", "russian"])
def test_a_won_kings_root_plays_the_fastest_conversion(variant):
    # every move the engine picks in a won kings-only table position shortens the distance to
    # the next capture by one ply (a search alone, adding what comes after a capture, shuns it)
    import random
    from hub_engine.rules.notation import Setup
    e = make(variant)
    t = e.settings.tables.tables(get_variant(variant))
    rng = random.Random(2)
    checked = 0
    while checked < 12:
        sq = rng.sample(range(32), 4)
        pos = Position.from_setup(variant, Setup(0, (), tuple(sq[:2]), (), tuple(sq[2:])))
        r = t.probe(pos)
        if r is None or r.ruled != "win" or pos.legal_moves()[0].is_capture:
            continue
        res, _ = run(e, pos.hub(), move_time=0.05)
        child = pos.play(pos.parse_move(res.move))
        d = t.core.probe_dtc(child.board)
        assert d >= 128 and d - 128 == r.distance - 1, (pos.hub(), res.move, r.distance, d)
        checked += 1


@pytest.mark.parametrize("variant", ["italian", "russian", "english"])
def test_a_man_on_its_crowning_row_is_not_looked_up(shipped, variant):
    # a set-up position can hold one (no move makes it); no table index holds it, so the probe
    # must say unknown rather than read past the table
    from hub_engine.rules.notation import Setup
    t = shipped[variant]
    for side, men0, men1 in ((0, (29,), ()), (0, (), (2,)), (1, (30,), ()), (1, (), (1,))):
        pos = Position.from_setup(variant, Setup(side, men0, (12,), men1, (20,)))
        assert pos.board.pieces()[0] == men0 and pos.board.pieces()[2] == men1
        assert t.core.probe(pos.board) == -1 and t.core.probe_dtc(pos.board) == -1
        assert t.probe(pos) is None or pos.legal_moves()[0].is_capture
    e = make(variant)
    res, infos = run(e, Position.from_setup(variant, Setup(0, (29,), (12,), (), (20,))).hub(),
                     move_time=0.05)
    assert res.move and not 88 < abs(infos[-1].score) < 90      # a search's score, not a table's
