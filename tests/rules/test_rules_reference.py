"""The engine against reference_rules.py, an independent slow generator written from rules.md.

This is the only second opinion for portuguese and spanish besides the reference file; for the
other four it backs up pydraughts. Positions: seeded random playouts plus random sparse set-ups
(many kings, long flying-king captures, crowning mid-capture).
"""
from __future__ import annotations

import json

import pytest

from rules_helpers import DATA, Position, mvs, random_positions, random_setups
import reference_rules as ref

VARIANTS = tuple(ref.RULES)


@pytest.fixture(scope="module")
def samples():
    return {v: random_positions(v, 600, seed=21, max_plies=200) + random_setups(v, 900, seed=22)
            for v in VARIANTS}


@pytest.mark.parametrize("variant", VARIANTS)
def test_legal_moves_agree_with_reference(variant, samples):
    long_caps = 0
    for p in samples[variant]:
        ours = [str(m) for m in p.legal_moves()]
        assert len(ours) == len(set(ours))
        assert set(ours) == ref.hub_strings(variant, p.hub()), p.hub()
        long_caps += any(s.count("x") >= 4 for s in ours)
    assert long_caps >= 10


@pytest.mark.parametrize("variant", VARIANTS)
def test_quick_capture_test_agrees_with_the_move_generator(variant, samples):
    """The search's capture test (bitboard fills for flying kings), for each side of every
    sample: true exactly when that side, to move, has a capture."""
    from hub_engine.core import can_capture

    seen = {True: 0, False: 0}
    for p in samples[variant]:
        text = p.hub()
        other = Position.from_hub(variant, {"W": "B", "B": "W"}[text[0]] + text[1:])
        for q, side in ((p, p.board.side), (other, 1 - p.board.side)):
            expected = any(m.is_capture for m in q.legal_moves())
            assert can_capture(p.board, side) is expected, (text, side)
            seen[expected] += 1
    assert min(seen.values()) > 100


@pytest.mark.parametrize("variant", VARIANTS)
def test_perft_agrees_with_reference(variant, samples):
    for p in samples[variant][::75]:
        assert p.perft(3) == ref.Board(variant, p.hub()).perft(3), p.hub()


@pytest.mark.parametrize("variant", VARIANTS)
def test_reference_reproduces_start_perft(variant):
    """The oracle itself must agree with rules.md section 5 (depth 5 splits the families)."""
    expected = {"english": 7361, "russian": 7482, "brazilian": 7473, "italian": 7361,
                "portuguese": 7361, "spanish": 7361}
    assert ref.Board(variant, Position.start(variant).hub()).perft(5) == expected[variant]


def test_reference_reproduces_the_portuguese_file():
    with open(DATA / "portuguese-perft.jsonl") as fh:
        for line in fh:
            case = json.loads(line)
            for variant in ("portuguese", "spanish"):
                assert ref.hub_strings(variant, case["pos"]) == set(case["moves"])
                b = ref.Board(variant, case["pos"])
                assert [b.perft(d) for d in (1, 2, 3)] == case["perft"]


def test_reference_agrees_with_the_hand_made_positions():
    """The hand-derived sets of test_rules_positions.py, checked by the oracle too."""
    from rules_helpers import hub
    from test_rules_positions import CASES, expand

    for name, (w, b, table) in CASES.items():
        for variant, moves in expand(table).items():
            assert ref.hub_strings(variant, hub(variant, "W", w, b)) == mvs(variant, *moves), \
                (name, variant)
