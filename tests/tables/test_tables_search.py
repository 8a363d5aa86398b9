"""Spot checks against the search where the search is exact: a mate it finds (without tables) is
a table win for the winner, and a table draw is never a mate.

CI checks 4-piece positions with the shipped tables; HUB_ENGINE_TABLES_CHECK_DIR=<tables dir>
also checks 5- and 6-piece positions of every rule-set built there (run once with the full build).
"""
from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from hub_engine import Position
from hub_engine.core import INF, MATE, Searcher, TransTable, eval_weights
from hub_engine.rules.notation import Setup
from hub_engine.tables.probe import Tables
from hub_engine.tables.slices import RULESETS, slices
from hub_engine.rules.variants import VARIANTS

CHECK_DIR = os.environ.get("HUB_ENGINE_TABLES_CHECK_DIR")
MATE_BOUND = MATE - 256


def random_position(rng: random.Random, ruleset: str, m) -> Position:
    while True:
        sq = rng.sample(range(32), m.pieces)
        men0 = [s for s in sq[:m.wm] if s < 28]
        men1 = [s for s in sq[m.wm + m.wk:m.wm + m.wk + m.bm] if s >= 4]
        if len(men0) < m.wm or len(men1) < m.bm:
            continue
        side = rng.randint(0, 1)
        own = (tuple(men0), tuple(sq[m.wm:m.wm + m.wk]))
        other = (tuple(men1), tuple(sq[m.wm + m.wk + m.bm:]))
        if side == 1:     # the side to move plays down: turn the board
            own = tuple(tuple(31 - s for s in g) for g in own)
            other = tuple(tuple(31 - s for s in g) for g in other)
            pos = Position.from_setup(ruleset, Setup(1, *other, *own))
        else:
            pos = Position.from_setup(ruleset, Setup(0, *own, *other))
        if pos.legal_moves() and not pos.legal_moves()[0].is_capture:
            return pos


def spot_check(ruleset: str, tables: Tables, pieces: int, count: int, nodes: int) -> dict:
    v = VARIANTS[ruleset]
    rng = random.Random(pieces * 101 + len(ruleset))
    mats = list(slices(pieces))
    seen = {"mates": 0, "checked": 0}
    for _ in range(count):
        pos = random_position(rng, ruleset, rng.choice(mats))
        r = tables.probe(pos)
        assert r is not None, pos.hub()
        tt = TransTable(18)
        s = Searcher(v.core_rules, tt, eval_weights(v.name))
        score = 0
        for d in range(1, 40):
            score, _pv, _n, done, *_ = s.iterate(pos.board, d, -INF, INF, [], pos.board.initial_counters(),
                                                 0.0, nodes)
            if not done or abs(score) > MATE_BOUND:
                break
        seen["checked"] += 1
        if abs(score) > MATE_BOUND and done:
            seen["mates"] += 1
            want = "win" if score > 0 else "loss"
            assert r.value == want, f"{ruleset} {pos.hub()}: search finds a {want}, table says {r.value}"
    return seen


@pytest.mark.parametrize("ruleset", RULESETS)
def test_four_piece_mates_found_by_search_are_table_results(shipped, ruleset):
    seen = spot_check(ruleset, shipped[ruleset], 4, 30, 10000)
    assert seen["mates"] >= 5          # the check did test something


@pytest.mark.skipif(not CHECK_DIR, reason="set HUB_ENGINE_TABLES_CHECK_DIR to a built tables dir")
@pytest.mark.parametrize("pieces", [5, 6])
@pytest.mark.parametrize("ruleset", RULESETS)
def test_five_and_six_piece_spot_checks(ruleset, pieces):
    t = Tables(ruleset, [Path(CHECK_DIR)], max_pieces=pieces)
    if t.complete_pieces() < pieces:
        pytest.skip(f"{ruleset} has no complete {pieces}-piece set in {CHECK_DIR}")
    seen = spot_check(ruleset, t, pieces, 200, 300000)
    print(ruleset, pieces, seen)
    assert seen["mates"] > 0
