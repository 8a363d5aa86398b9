"""Skill levels: level 20 is the full engine; lower levels search less and choose among the
best few moves, always legally (forced captures included)."""
from __future__ import annotations

import random
from collections import Counter

import pytest

from hub_engine.engine import skill
from hub_engine.engine import Engine
from hub_engine.rules.position import Game
from protocol import Limits

OPENING = "11-14 21-18 14x21x18 26x17x21 9-13 29-26".split()      # russian, 7 legal moves
FORCED = "10-13 21-17 6-10 22-18".split()                          # russian, one capture


def engine(level: int, seed: int = 1) -> Engine:
    e = Engine()
    e.set_param("variant", "russian")
    e.set_param("tt-size", "16")
    e.set_param("skill", str(level))
    e._rng = random.Random(seed)
    e.init()
    return e


def play(e: Engine, moves: list[str], **limits) -> tuple[str, list]:
    e.set_position(None, moves)
    e.new_game()
    infos: list = []
    result = e.search(Limits(**limits), "think", infos.append)
    return result.move, infos


def test_parameter():
    e = Engine()
    spec = {p.name: p for p in e.params()}["skill"]
    assert (spec.type, spec.value, spec.min, spec.max) == ("int", 20, 1, 20)
    for bad in ("0", "21", "x"):
        with pytest.raises(ValueError):
            e.set_param("skill", bad)


def test_level_20_is_the_full_engine():
    full = Engine()
    full.set_param("variant", "russian")
    full.set_param("tt-size", "16")
    full.init()
    a = play(full, OPENING, depth=7)
    b = play(engine(20), OPENING, depth=7)
    assert a[0] == b[0] and [i.nodes for i in a[1]] == [i.nodes for i in b[1]]


def test_node_budget_grows_with_the_level():
    budgets = [skill.node_budget(level) for level in range(1, 20)]
    assert budgets == sorted(budgets) and len(set(budgets)) == 19
    assert skill.node_budget(20) is None
    _move, infos = play(engine(5), OPENING, depth=30)
    assert infos[-1].nodes <= skill.node_budget(5) + 100    # the budget ends the search


def test_low_levels_vary_their_moves_and_stay_legal():
    legal = {m.hub() for m in Game("russian", moves=OPENING).legal_moves()}
    low = Counter(play(engine(2, seed), OPENING, depth=30)[0] for seed in range(24))
    assert set(low) <= legal and len(low) >= 2, low
    for seed in range(8):
        # level 19 may vary too, but only among moves that give nothing away
        move, infos = play(engine(19, seed), OPENING, depth=30)
        best = [i for i in infos if i.depth == infos[-1].depth][0]
        assert move in legal and best.score - infos[-1].score <= 0.15, (best, infos[-1])


def test_a_forced_capture_is_played_at_every_level():
    (capture,) = [m.hub() for m in Game("russian", moves=FORCED).legal_moves()]
    for level in (1, 7, 14):
        assert play(engine(level), FORCED, depth=30)[0] == capture


def test_the_chosen_line_is_reported_last():
    for seed in range(40):
        move, infos = play(engine(1, seed), OPENING, depth=30)
        assert infos[-1].pv[0] == move


def test_choice_probabilities_fall_with_the_score_given_away():
    rng = random.Random(5)
    scores = [0.20, 0.10, -0.50, -3.00]       # best first, men
    picks = Counter(skill.choose(scores, 1, rng) for _ in range(4000))
    assert picks[0] > picks[1] > picks[2] > picks[3]
    assert picks[3] < 40                        # three men away: almost never
    picks10 = Counter(skill.choose(scores, 10, rng) for _ in range(4000))
    assert picks10[0] > picks[0]                # a higher level keeps to its best more often
    assert all(skill.choose(scores, 20, rng) == 0 for _ in range(100))
