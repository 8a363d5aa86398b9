"""The tables agree with the independent solver (solver.py, reference move generator)."""
from __future__ import annotations

import os
import random

import pytest

from hub_engine import Position
from hub_engine.tables.probe import Tables
from hub_engine.tables.slices import RULESETS, pairs
from hub_engine.core import tb_plies_left
from solver import (DARK, children_of, hub_of, material, positions,  # noqa: I001
                    solve_distances, solve_pair)
from reference_rules import Board

FULL = os.environ.get("HUB_ENGINE_TABLES_FULL_CHECK")   # e.g. "4": every pair up to 4 pieces


def check_pair(variant: str, tables: Tables, mats: list[tuple]) -> dict:
    """Solve the pair independently; every position must equal the table's probe."""
    cache: dict = {}

    def table_value(key):
        if key not in cache:
            cache[key] = tables.probe(Position.from_hub(variant, hub_of(variant, key))).value
        return cache[key]

    values = solve_pair(variant, mats, table_value)
    bad = [(hub_of(variant, k), v, table_value(k)) for k, v in values.items() if table_value(k) != v]
    assert not bad, f"{variant} {mats}: {len(bad)} positions disagree, e.g. {bad[:3]}"
    counts = {"win": 0, "draw": 0, "loss": 0}
    for v in values.values():
        counts[v] += 1
    return counts


def check_distances(variant: str, tables: Tables, mats: list[tuple]) -> None:
    """Solve the pair's distances independently; every stored distance byte must be the
    solver's: a win or loss in d plies when d fits in the plies the move-count rules leave after
    a conversion (with men on the board, the quiet rule aside: a man step restarts it), else 0."""
    def byte(key) -> int:
        b = tables.core.probe_dtc(Position.from_hub(variant, hub_of(variant, key)).board)
        assert b >= 0, f"{variant} {hub_of(variant, key)}: no distance table"
        return b

    def conversion(key) -> str:
        b = byte(key)
        return "draw" if b == 0 else ("win" if b < 128 else "loss")

    values = solve_distances(variant, mats, conversion)
    bad = []
    for key, (value, d) in values.items():
        board = Position.from_hub(variant, hub_of(variant, key)).board
        quiet, noc, cfg, cfgp = board.initial_counters()
        men = bool(key[0] or key[2])
        limit = tb_plies_left(board, (-10 ** 6 if men else quiet, noc, cfg, cfgp))
        want = 0
        if value != "draw" and d <= limit:
            want = min(d, 127) + (128 if value == "loss" else 0)
        if byte(key) != want:
            bad.append((hub_of(variant, key), value, d, limit, byte(key)))
    assert not bad, f"{variant} {mats}: {len(bad)} distances disagree, e.g. {bad[:3]}"


def pair_list(max_pieces: int, min_pieces: int = 2) -> list[list[tuple]]:
    return [[tuple(m) for m in p] for p in pairs(max_pieces) if p[0].pieces >= min_pieces]


def test_english_king_against_king_is_the_published_count(small_dir):
    # 992 positions, 230 wins / 654 draws / 108 losses for the side to move (Ed Trice's table)
    t = Tables("english", [small_dir])
    counts = check_pair("english", t, [(0, 1, 0, 1)])
    assert counts == {"win": 230, "draw": 654, "loss": 108}
    from hub_engine.tables import fileformat as ff
    from hub_engine.tables.slices import Material
    from hub_engine.tables.store import read_slice
    header = read_slice(small_dir, "english", ff.KIND_WLD, Material(0, 1, 0, 1)).header
    assert (header.wins, header.draws, header.losses) == (230, 654, 108)


@pytest.mark.parametrize("ruleset", RULESETS)
def test_two_piece_tables_agree_with_the_solver(small_dir, ruleset):
    t = Tables(ruleset, [small_dir])
    for mats in pair_list(2):
        check_pair(ruleset, t, mats)


@pytest.mark.parametrize("ruleset", ["english", "russian", "italian", "brazilian", "portuguese"])
def test_three_piece_tables_agree_with_the_solver(small_dir, ruleset):
    # short kings (english) and flying kings (russian) every 3-piece pair; the other rule-sets the
    # pairs where their rules differ most: kings only and a man with a king (captures, crowning)
    t = Tables(ruleset, [small_dir])
    chosen = pair_list(3, 3)
    if ruleset not in ("english", "russian"):
        chosen = [p for p in chosen if p[0] in ((0, 2, 0, 1), (1, 1, 0, 1), (1, 0, 0, 2))]
    for mats in chosen:
        check_pair(ruleset, t, mats)


@pytest.mark.parametrize("ruleset", RULESETS)
def test_distance_tables_agree_with_the_solver(small_dir, ruleset):
    # every pair up to 3 pieces in english and russian (short and flying kings), the others the
    # pairs where their rules differ most, as for the win/draw/loss tables above
    t = Tables(ruleset, [small_dir])
    chosen = pair_list(3)
    if ruleset not in ("english", "russian"):
        chosen = [p for p in chosen
                  if p[0] in ((1, 0, 1, 0), (0, 2, 0, 1), (1, 1, 0, 1), (1, 0, 0, 2))]
    for mats in chosen:
        check_distances(ruleset, t, mats)


def random_key(rng: random.Random, mats: tuple):
    """A uniformly drawn position of material mats (side 0 to move), as a solver key."""
    wm, wk, bm, bk = mats
    while True:
        men0 = rng.sample([s for s in DARK if s[1] < 7], wm)
        men1 = rng.sample([s for s in DARK if s[1] > 0], bm)
        if set(men0) & set(men1):
            continue
        free = [s for s in DARK if s not in men0 and s not in men1]
        kings = rng.sample(free, wk + bk)
        return (tuple(sorted(men0)), tuple(sorted(kings[:wk])), tuple(sorted(men1)),
                tuple(sorted(kings[wk:])))


@pytest.mark.parametrize("ruleset", RULESETS)
def test_four_piece_tables_are_consistent_with_the_reference_moves(shipped, ruleset):
    # a sample of every 4-piece slice: the table value is the negamax of its children's values
    # over the reference generator's moves (the full forward-iteration check is HUB_ENGINE_
    # TABLES_FULL_CHECK=4, run before a release)
    t = shipped[ruleset]
    rng = random.Random(4)
    order = {"loss": 0, "draw": 1, "win": 2}
    for p in pairs(4):
        if p[0].pieces != 4:
            continue
        for m in p:
            for _ in range(6):
                key = random_key(rng, tuple(m))
                kids = children_of(ruleset, key, set(), lambda ck: t.probe(
                    Position.from_hub(ruleset, hub_of(ruleset, ck))).value)
                want = {"loss": "win", "draw": "draw", "win": "loss"}[min(kids, key=order.get)] if kids else "loss"
                got = t.probe(Position.from_hub(ruleset, hub_of(ruleset, key))).value
                assert got == want, f"{ruleset} {hub_of(ruleset, key)}: table {got}, moves say {want}"


@pytest.mark.skipif(not FULL, reason="full check: set HUB_ENGINE_TABLES_FULL_CHECK=4 (slow)")
@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_small_table_agrees_with_the_solver(shipped, ruleset):
    for mats in pair_list(int(FULL)):
        counts = check_pair(ruleset, shipped[ruleset], mats)
        print(ruleset, mats, counts, flush=True)


def test_solver_positions_match_the_slice_sizes():
    # the solver's own enumeration counts what the tables index (overlapping men excluded)
    from hub_engine.tables.slices import Material
    for mats in [(0, 1, 0, 1), (1, 0, 1, 0), (0, 2, 1, 0)]:
        m = Material(*mats)
        n = len(positions(mats))
        assert n <= m.size
        assert material(positions(mats)[0]) == mats
    assert len(positions((0, 1, 0, 1))) == 992
    assert Board  # the reference generator is what the solver plays with
