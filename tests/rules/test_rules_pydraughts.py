"""Differential tests against pydraughts 0.6.7 (imports as `draughts`), which implements russian,
brazilian, italian and english (rules.md section 5: correct but slow).

Positions come from seeded random playouts; moves are compared as sets of (origin, destination,
captured set) in the Hub numbering pydraughts uses, which is our `variant` notation.

pydraughts and duplicate capture paths: its legal_moves() lists every capture PATH, so a circular
capture shows up twice with the same hub_move (e.g. russian b4 against c3, c5, e3, e5 gives
'13x13x10x11x18x19' for the paths 13-22-15-6-13 and 13-6-15-22-13). The comparison merges them as
sets, and perft on the pydraughts side counts distinct hub_move strings per node, which is the
"duplicates merged" count of rules.md section 5.
"""
from __future__ import annotations

import random

import pytest

from rules_helpers import Position, move_key, random_positions, random_setups

draughts = pytest.importorskip("draughts")
from draughts import Board  # noqa: E402

VARIANTS = ("russian", "brazilian", "italian", "english")


def king_positions(variant: str, count: int, seed: int) -> list[Position]:
    """Positions with at least one king, from long random playouts."""
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < count:
        p = Position.start(variant)
        for _ in range(300):
            moves = p.legal_moves()
            if not moves:
                break
            text = p.hub()
            if ("W" in text[1:] or "B" in text[1:]) and rng.random() < 0.3:
                out.append(p)
                if len(out) == count:
                    break
            p = p.play(rng.choice(moves))
    return out


@pytest.fixture(scope="module")
def samples():
    return {v: random_positions(v, 200, seed=11, max_plies=200) + king_positions(v, 120, seed=12)
            + random_setups(v, 200, seed=13) for v in VARIANTS}


def theirs(variant: str, p: Position):
    board = Board(variant=variant, fen=p.hub())
    return board, board.legal_moves()


@pytest.mark.parametrize("variant", VARIANTS)
def test_legal_moves_agree_with_pydraughts(variant, samples):
    positions = samples[variant]
    with_kings = with_caps = multi = dup_paths = 0
    for p in positions:
        ours = [str(m) for m in p.legal_moves()]
        assert len(ours) == len(set(ours)), f"{p.hub()}: a move listed twice"
        _, their_moves = theirs(variant, p)
        their_hub = [m.hub_move for m in their_moves]
        assert {move_key(t) for t in ours} == {move_key(t) for t in their_hub}, p.hub()
        # same strings too: captured squares in ascending order, as pydraughts prints them
        assert set(ours) == set(their_hub), p.hub()
        dup_paths += len(their_hub) - len(set(their_hub))
        text = p.hub()
        with_kings += "W" in text[1:] or "B" in text[1:]
        with_caps += any("x" in t for t in ours)
        multi += any(t.count("x") >= 3 for t in ours)
    # the sample must be worth something: kings, captures, multiple captures
    assert len(positions) == 520
    print(variant, "kings", with_kings, "captures", with_caps, "multi", multi, "dup paths", dup_paths)
    assert with_kings >= 250 and with_caps >= 100 and multi >= 10, (with_kings, with_caps, multi)


def their_perft(board, depth: int) -> int:
    moves = board.legal_moves()
    distinct = {}
    for m in moves:
        distinct.setdefault(m.hub_move, m)       # merge duplicate paths
    if depth == 1:
        return len(distinct)
    total = 0
    for m in distinct.values():
        board.push(m)
        total += their_perft(board, depth - 1)
        board.pop()
    return total


@pytest.mark.parametrize("variant", VARIANTS)
def test_perft_agrees_with_pydraughts(variant, samples):
    positions = samples[variant]
    picked = positions[::11][:30]                          # openings to king endings
    for p in picked:
        board = Board(variant=variant, fen=p.hub())
        assert their_perft(board, 2) == p.perft(2), p.hub()
    for p in positions[200::15][:8]:                       # king positions, one ply deeper
        board = Board(variant=variant, fen=p.hub())
        assert their_perft(board, 3) == p.perft(3), p.hub()


@pytest.mark.parametrize("variant,w,b,paths", [
    ("russian", "b4", "c3,c5,e3,e5", 2),
    ("brazilian", "b4", "c3,c5,e3,e5", 2),
    ("brazilian", "b6", "c5,c7,e5,e7", 2),
])
def test_pydraughts_lists_duplicate_paths_we_merge_them(variant, w, b, paths):
    from rules_helpers import pos

    p = pos(variant, "W", w, b)
    _, their_moves = theirs(variant, p)
    assert len(their_moves) == paths                       # one entry per path ...
    assert len({m.hub_move for m in their_moves}) == 1     # ... all with the same Hub string
    assert [str(m) for m in p.legal_moves()] == [their_moves[0].hub_move]
