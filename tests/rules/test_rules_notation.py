"""Notation round trips and errors: Hub position strings, PDN FEN, Hub move strings.

Expected strings are built with rules_helpers, which reads hub-protocol.md and rules.md section 6
independently of hub_engine.rules.notation.
"""
from __future__ import annotations

import itertools

import pytest

from rules_helpers import Position, hub, layout, move_key, mv, pos, random_positions
from hub_engine import IllegalMoveError, NotationError, get_variant
from hub_engine.rules import notation

VARIANTS = ("brazilian", "russian", "portuguese", "spanish", "italian", "english")
START_HUB = "W" + "b" * 12 + "e" * 8 + "w" * 12

# hub-protocol.md "8x8 positions and square numbers": the full sets behind the table's
# "first moves from the start" column, worked out square by square.
FIRST_MOVES = {
    "russian": {"9-13", "10-13", "10-14", "11-14", "11-15", "12-15", "12-16"},
    "brazilian": {"9-13", "10-13", "10-14", "11-14", "11-15", "12-15", "12-16"},
    "portuguese": {"9-13", "10-13", "10-14", "11-14", "11-15", "12-15", "12-16"},
    "spanish": {"9-13", "10-13", "10-14", "11-14", "11-15", "12-15", "12-16"},
    "italian": {"21-17", "21-18", "22-18", "22-19", "23-19", "23-20", "24-20"},
    "english": {"12-16", "11-16", "11-15", "10-15", "10-14", "9-14", "9-13"},
}
FIRST_MOVES_LAYOUT = {   # the same moves in layout numbers (notation=layout)
    "russian": {"21-17", "22-17", "22-18", "23-18", "23-19", "24-19", "24-20"},
    "brazilian": {"21-17", "22-17", "22-18", "23-18", "23-19", "24-19", "24-20"},
    "english": {"21-17", "22-17", "22-18", "23-18", "23-19", "24-19", "24-20"},
    "portuguese": {"21-17", "21-18", "22-18", "22-19", "23-19", "23-20", "24-20"},
    "spanish": {"21-17", "21-18", "22-18", "22-19", "23-19", "23-20", "24-20"},
    "italian": {"21-17", "21-18", "22-18", "22-19", "23-19", "23-20", "24-20"},
}


@pytest.fixture(scope="module")
def positions():
    """A fixed sample of positions of every variant from random playouts (kings included)."""
    return {v: random_positions(v, 120, seed=7) for v in VARIANTS}


# --- square numbers --------------------------------------------------------------------------

@pytest.mark.parametrize("variant", VARIANTS)
def test_square_numbers_match_hub_protocol(variant):
    v = get_variant(variant)
    for name in [f + r for f in "abcdefgh" for r in "12345678" if ("abcdefgh".index(f) + int(r)) % 2]:
        k = layout(variant, name)
        s = notation.layout_to_internal(v, k)
        assert notation.internal_to_layout(v, s) == k
        assert notation.square_number(v, s, "layout") == k
        assert notation.square_from_number(v, notation.square_number(v, s), "variant") == s
        assert notation.square_from_number(v, k, "layout") == s
    assert sorted(notation.layout_to_internal(v, k) for k in range(1, 33)) == list(range(32))


def test_square_number_landmarks():
    """hub-protocol.md and rules.md section 6 name a few squares outright."""
    russian, english, portuguese, italian = (get_variant(n) for n in
                                             ("russian", "english", "portuguese", "italian"))
    a1 = 0
    assert notation.square_number(russian, a1) == 1                  # russian: a1 = 1
    assert notation.pdn_square(russian, a1) == "a1"
    assert notation.pdn_square(get_variant("brazilian"), a1) == "29"  # brazilian: 29 = a1
    assert notation.pdn_square(get_variant("brazilian"), 31) == "4"   # 4 = h8
    # portuguese square 1 is White's lower-right corner, the first mover's men are on 1-12
    assert notation.square_number(portuguese, notation.layout_to_internal(portuguese, 32)) == 1
    # english: Black (the first mover) on 1-12
    assert {notation.square_number(english, s) for s in range(12)} == set(range(1, 13))
    assert {notation.square_number(italian, s) for s in range(12)} == set(range(21, 33))


# --- Hub position strings ---------------------------------------------------------------------

@pytest.mark.parametrize("variant", VARIANTS)
def test_start_position_hub_string(variant):
    p = Position.start(variant)
    assert p.hub() == START_HUB
    assert Position.from_hub(variant, START_HUB) == p
    assert Position.parse(variant, "start") == p
    assert p.side == 0
    assert p.side_name == ("black" if variant == "english" else "white")


@pytest.mark.parametrize("variant", VARIANTS)
def test_hub_string_round_trip(variant, positions):
    for p in positions[variant]:
        text = p.hub()
        assert len(text) == 33 and text[0] in "WB"
        assert set(text[1:]) <= set("wbWBe")
        q = Position.from_hub(variant, text)
        assert q == p and q.hub() == text
        assert notation.format_hub_position(get_variant(variant),
                                            notation.parse_hub_position(get_variant(variant), text)) == text


def test_hub_string_names_the_squares_of_the_layout():
    # one piece of each kind on known layout squares, read in every variant
    for variant in VARIANTS:
        p = pos(variant, "B", "Ka1,c3", "Kh8,b6")
        text = p.hub()
        assert text[0] == "B"
        assert text[layout(variant, "a1")] == "W" and text[layout(variant, "c3")] == "w"
        assert text[layout(variant, "h8")] == "B" and text[layout(variant, "b6")] == "b"
        assert text.count("e") == 28
        assert p.side == 1


def test_hub_string_dots_mean_empty():
    assert Position.from_hub("russian", "W" + "." * 32) == Position.from_hub("russian", "W" + "e" * 32)


@pytest.mark.parametrize("text,message", [
    ("W" + "e" * 50, "51 characters"),          # a 10x10 string
    ("W" + "e" * 19, "20 characters"),
    ("X" + "e" * 32, "side 'X'"),
    ("w" + "e" * 32, "side 'w'"),
    ("W" + "x" + "e" * 31, "'x' on square 1"),
    ("W" + "e" * 31 + "k", "'k' on square 32"),
])
def test_hub_string_errors(text, message):
    with pytest.raises(NotationError, match=message.replace("(", r"\(")):
        Position.from_hub("russian", text)
    assert issubclass(NotationError, ValueError)


# --- PDN FEN ----------------------------------------------------------------------------------

START_FEN = {
    "russian": "W:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,c3,e3,g3:Bb6,d6,f6,h6,a7,c7,e7,g7,b8,d8,f8,h8",
    "brazilian": "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12",
    "italian": "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12",
    "portuguese": "W:W1,2,3,4,5,6,7,8,9,10,11,12:B21,22,23,24,25,26,27,28,29,30,31,32",
    "spanish": "W:W1,2,3,4,5,6,7,8,9,10,11,12:B21,22,23,24,25,26,27,28,29,30,31,32",
    "english": "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12",
}


@pytest.mark.parametrize("variant", VARIANTS)
def test_start_fen_both_directions(variant):
    p = Position.start(variant)
    assert p.fen() == START_FEN[variant]
    assert Position.from_fen(variant, START_FEN[variant]) == p


@pytest.mark.parametrize("variant,fen", [
    ("russian", "W:W21-32:B1-12"),             # russian records also use the brazilian numbers
    ("brazilian", "W:W21-32:B1-12"),
    ("italian", "W:W21-32:B1-12"),
    ("portuguese", "W:W1-12:B21-32"),
    ("spanish", "W:W1-12:B21-32"),
    ("english", "B:W21-32:B1-12"),
    ("brazilian", "W:W21-32:B1-12:H0:F1"),     # lidraughts' halfmove clock and move number
    ("russian", "W:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,c3,e3,g3:Bb6,d6,f6,h6,a7,c7,e7,g7,b8,d8,f8,h8:H0:F1"),
    ("brazilian", '"W:W21-32:B1-12."'),        # quoted, with the PDN full stop
    ("english", "B:B1-12:W21-32"),             # colours in the other order
    ("brazilian", "W:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,c3,e3,g3:Bb6,d6,f6,h6,a7,c7,e7,g7,b8,d8,f8,h8"),
])
def test_fen_forms_of_the_start(variant, fen):
    assert Position.from_fen(variant, fen) == Position.start(variant)


@pytest.mark.parametrize("variant,fen,w,b,side", [
    # kings, in each variant's own square names (expected squares in the test frame)
    ("russian", "W:Wa1,c3,Kh2:Bb6,Kd8", "a1,c3,Kh2", "b6,Kd8", "W"),
    ("russian", "B:WKa1:Bh8", "Ka1", "h8", "B"),
    ("brazilian", "B:W29,K22:B1,K9", "a1,Kc3", "b8,Kb6", "B"),       # 29 = a1, 1 = b8
    ("brazilian", "W:WK21-23:B4", "Ka3,Kc3,Ke3", "h8", "W"),         # a king range
    # italian = layout on the mirrored board: 29 is the real b1 (test frame g1), 1 the real a8
    ("italian", "W:W29,K22:B1,K9", "g1,Ke3", "h8,Kh6", "W"),
    # english 33 - layout: Black (first mover, 'w' in Hub) 1 = g1, 12 = a3; White 18 = e5, 31 = d8
    ("english", "B:W18,K31:B1,K12", "g1,Ka3", "e5,Kd8", "W"),
    # portuguese 33 - layout on the mirrored board: 1 = White's lower-right corner (test frame a1)
    ("portuguese", "W:W1,K12:B32,K21", "a1,Kg3", "h8,Kb6", "W"),
])
def test_fen_with_kings(variant, fen, w, b, side):
    p = Position.from_fen(variant, fen)
    assert p.hub() == hub(variant, side, w, b)
    assert Position.from_fen(variant, p.fen()) == p


@pytest.mark.parametrize("variant", VARIANTS)
def test_fen_round_trip(variant, positions):
    for p in positions[variant]:
        text = p.fen()
        assert Position.from_fen(variant, text) == p
        assert Position.parse(variant, text) == p
        if variant == "russian":
            assert all(sq[-2] in "abcdefgh" for part in text.split(":")[1:]
                       for sq in part[1:].split(",") if sq)


@pytest.mark.parametrize("variant", ["russian", "brazilian", "italian", "english"])
def test_fen_matches_pydraughts(variant, positions):
    """pydraughts writes FEN as lidraughts does; we must read it as the same position."""
    from draughts import Board

    for p in positions[variant][:40]:
        assert Position.from_fen(variant, Board(variant=variant, fen=p.hub()).fen) == p


@pytest.mark.parametrize("variant,fen,message", [
    ("russian", "W:W33:B1", "square 33"),
    ("brazilian", "W:W0:B1", "square 0"),
    ("russian", "W:Wa2:B1", "'a2' is a light square"),
    ("russian", "W:Wz9:B1", "bad square 'z9'"),
    ("brazilian", "W:W1,x:B2", "bad square 'x'"),
    ("russian", "X:W1:B2", "expected side W or B"),
    ("russian", "W", "expected side W or B"),
    ("brazilian", "W:W1,1:B2", "square 1 given twice"),
    ("brazilian", "W:W1:B1", "square 1 given twice"),
    ("brazilian", "W:W1:Q2", "section 'Q2'"),
    ("italian", "W:Wa1:B2", "algebraic square 'a1' is not used in italian"),
])
def test_fen_errors(variant, fen, message):
    with pytest.raises(NotationError, match=message):
        Position.from_fen(variant, fen)


# --- Hub move strings -------------------------------------------------------------------------

@pytest.mark.parametrize("variant", VARIANTS)
def test_first_moves_from_the_start(variant):
    p = Position.start(variant)
    assert {str(m) for m in p.legal_moves()} == FIRST_MOVES[variant]
    assert {m.hub("layout") for m in p.legal_moves()} == FIRST_MOVES_LAYOUT[variant]
    for text in FIRST_MOVES_LAYOUT[variant]:
        assert p.parse_move(text, "layout").hub("layout") == text


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_legal_move_round_trips(variant, positions):
    n_caps = 0
    for p in positions[variant]:
        moves = p.legal_moves()
        for notation_name in ("variant", "layout"):
            texts = [m.hub(notation_name) for m in moves]
            assert len(set(texts)) == len(texts), f"{p.hub()}: two moves print alike"
            for m, text in zip(moves, texts):
                assert p.parse_move(text, notation_name).key() == m.key()
                if m.captured:
                    nums = [int(x) for x in text.split("x")]
                    assert nums[2:] == sorted(nums[2:]), "captured squares not ascending"
                    assert len(nums) == 2 + len(m.captured)
                else:
                    assert "x" not in text and text.count("-") == 1
        n_caps += sum(1 for m in moves if m.captured)
    assert n_caps > 20     # the sample exercised captures


@pytest.mark.parametrize("variant", VARIANTS)
def test_captured_squares_in_any_order(variant, positions):
    seen = 0
    for p in positions[variant]:
        for m in p.legal_moves():
            if len(m.captured) < 2:
                continue
            nums = str(m).split("x")
            for perm in itertools.islice(itertools.permutations(nums[2:]), 6):
                text = "x".join(nums[:2] + list(perm))
                assert p.parse_move(text).key() == m.key()
                assert p.parse_move(text.replace("x", ":")).key() == m.key()
            seen += 1
    assert seen > 0


@pytest.mark.parametrize("variant", VARIANTS)
def test_short_capture_form_only_when_unambiguous(variant, positions):
    accepted = rejected = 0
    for p in positions[variant]:
        caps = [m for m in p.legal_moves() if m.captured]
        for m in caps:
            a, b = str(m).split("x")[:2]
            same_ends = [c for c in caps if (c.frm, c.to) == (m.frm, m.to)]
            if len({frozenset(c.captured) for c in same_ends}) == 1:
                assert p.parse_move(f"{a}x{b}").key() == m.key()
                accepted += 1
            else:
                with pytest.raises(IllegalMoveError, match="ambiguous"):
                    p.parse_move(f"{a}x{b}")
                rejected += 1
    assert accepted > 0


def test_short_capture_form_ambiguous_case():
    """Russian Ka1 against c3, e3, c7, e7 ends on f2 with two or with four pieces."""
    v = "russian"
    p = pos(v, "W", "Ka1", "c3,e3,c7,e7")
    short = mv(v, "a1xf2")
    with pytest.raises(IllegalMoveError, match="ambiguous"):
        p.parse_move(short)
    assert p.parse_move(mv(v, "a1xf2 c3 e3")).captured != p.parse_move(mv(v, "a1xf2 c3 e3 c7 e7")).captured
    # unambiguous short form in the same position
    assert move_key(str(p.parse_move(mv(v, "a1xb8")))) == move_key(mv(v, "a1xb8 c3 c7"))


def test_move_string_must_match_the_kind_of_move():
    v = "russian"
    p = pos(v, "W", "c3,h2", "d4")
    with pytest.raises(IllegalMoveError):
        p.parse_move(mv(v, "h2-g3"))            # quiet move while a capture is compulsory
    with pytest.raises(IllegalMoveError):
        p.parse_move(mv(v, "c3xe5 f6"))         # wrong captured square
    with pytest.raises(IllegalMoveError):
        p.parse_move(mv(v, "c3-e5"))            # a capture written as a quiet move
    q = Position.start(v)
    with pytest.raises(IllegalMoveError, match="illegal move 9x13"):
        q.parse_move("9x13")


@pytest.mark.parametrize("text,message", [
    ("22-", "bad move '22-'"),
    ("abc", "bad move 'abc'"),
    ("22x", "bad move '22x'"),
    ("", "bad move ''"),
    ("22--18", "bad move"),
    ("22-33", "square 33 is not between 1 and 32"),
    ("0-4", "square 0 is not between 1 and 32"),
    ("22x13x40", "square 40 is not between 1 and 32"),
    ("22-18-14", "a quiet move is origin-destination"),
    ("22x13x17x17", "captured twice"),
])
def test_move_string_errors(text, message):
    p = Position.start("russian")
    with pytest.raises(NotationError, match=message):
        p.parse_move(text)
    with pytest.raises(ValueError):          # NotationError and IllegalMoveError are ValueErrors
        p.play(text)


def test_play_rejects_a_move_of_another_position():
    p = Position.start("russian")
    other = pos("russian", "W", "c3", "d4").legal_moves()[0]
    with pytest.raises(IllegalMoveError):
        p.play(other)
