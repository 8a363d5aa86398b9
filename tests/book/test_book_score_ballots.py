"""The scoring search (fixed nodes: reproducible) and the packaged ballot sets."""
from __future__ import annotations

import pytest

from hub_engine.book.ballots import SETS, ballot_sets, ballots, read_set
from hub_engine.book.score import score_task
from hub_engine.rules.position import Game, Position

COUNTS = {"english-3move": 174, "english-11man": 2500, "italian-11man": 2400, "russian": 745,
          "brazilian": 736}


def test_a_score_depends_on_the_position_and_budget_only():
    game = Game("russian")
    for m in ("9-13", "21-17"):
        game.play(m)
    limits = {"ruleset": "russian", "eval": "learned", "nodes": 30000}
    task = {"key": 1, "position": game.position.hub()}
    first = score_task(task, limits)
    score_task({"key": 2, "position": Position.start("russian").hub()}, limits)   # other work
    again = score_task(task, limits)
    assert {k: first[k] for k in ("score", "depth", "nodes")} == \
        {k: again[k] for k in ("score", "depth", "nodes")}
    assert first["depth"] >= 6 and 30000 <= first["nodes"] < 30000 * 1.1
    deeper = score_task(task, {**limits, "nodes": 120000})
    assert deeper["depth"] > first["depth"]


def test_a_position_without_moves_scores_as_lost():
    # white (to move) has a single man, blocked by black men
    pos = Position.from_fen("russian", "W:Wa1:Bb2,c3")
    assert not pos.legal_moves()
    res = score_task({"key": 1, "position": pos.hub()},
                     {"ruleset": "russian", "eval": "hand", "nodes": 1000})
    assert res["score"] < -29000


def test_the_ballot_sets_are_complete_and_legal():
    assert {s for sets in SETS.values() for s, _v, _f in sets} == set(COUNTS)
    assert ballot_sets("portuguese") == [] and ballots("portuguese") == []
    for ruleset in ("english", "italian", "russian", "brazilian"):
        for set_name in ballot_sets(ruleset):
            found = read_set(set_name)
            assert len(found) == COUNTS[set_name]
            for b in found[:: max(1, len(found) // 50)]:
                assert Position.from_hub(ruleset, b.position).legal_moves()
    three = read_set("english-3move")
    assert sum(b.lost for b in three) == 17 and three[0].name == "001 09-13 21-17 05-09"
    g = Game("english")
    for m in ("9-13", "21-17", "5-9"):
        g.play(m)
    assert g.position.hub() == three[0].position


def test_the_ballots_agree_with_pydraughts():
    draughts = pytest.importorskip("draughts")
    import json
    from pathlib import Path

    for ruleset, sets in SETS.items():
        for set_name, variant, filename in sets:
            source = Path(draughts.__file__).parent / "ballot_files" / filename
            fens = json.loads(source.read_text())["all"]
            ours = read_set(set_name)
            assert [b.name for b in ours] == list(fens)
            for b in ours[::97]:
                theirs = draughts.Board(variant=variant, fen=fens[b.name])
                assert sorted(m.hub_move for m in theirs.legal_moves()) == \
                    sorted(m.hub() for m in Position.from_hub(ruleset, b.position).legal_moves())
