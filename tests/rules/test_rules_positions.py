"""Hand-made positions with the exact set of legal moves, derived by hand from rules.md.

Every position is written in the test frame of rules_helpers (first mover at the bottom, moving up,
dark corner a1 at its lower left; mirrored variants get the left-right mirror image), so one
diagram checks the same geometry under every variant's rules. The expected moves were worked out
from rules.md sections 1-3 (the reasoning is in the comments) and are cross-checked against
pydraughts for the variants it implements (russian, brazilian, italian, english).
"""
from __future__ import annotations

import pytest

from rules_helpers import Position, move_key, move_strings, mv, mvs, pos, pydraughts_moves, hub
from hub_engine import Game
from hub_engine.rules.position import Move

FLYING = ("russian", "brazilian", "portuguese", "spanish")
FORWARD_ONLY = ("portuguese", "spanish", "italian", "english")
ALL = ("russian", "brazilian", "portuguese", "spanish", "italian", "english")
PYDRAUGHTS = ("russian", "brazilian", "italian", "english")


def expand(table: dict) -> dict:
    """{('russian', 'brazilian'): [...], ...} -> {'russian': [...], 'brazilian': [...]}"""
    out = {}
    for variants, moves in table.items():
        for v in (variants,) if isinstance(variants, str) else variants:
            out[v] = moves
    return out


# name -> (white (first mover) squares, black squares, {variants: expected moves})
CASES = {
    # --- flying kings: land only where the capture can go on ---------------------------------
    # Ka1 takes c3 and may land d4..h8. From d4 it can take b6 (-> a7); from e5 it can take f4
    # (-> g3 or h2); f6, g7, h8 allow nothing, so they are not legal landing squares.
    # Short kings (italian, english) cannot reach c3 at all.
    "flying_landing_must_continue": ("Ka1", "c3,f4,b6", {
        FLYING: ["a1xa7 c3 b6", "a1xg3 c3 f4", "a1xh2 c3 f4"],
        ("italian", "english"): ["a1-b2"],
    }),
    # A lone piece in front of a flying king: every landing square ends the move, and the king
    # may not turn back and jump d4 a second time.
    "flying_free_landing_no_double_jump": ("Ka1", "d4", {
        FLYING: ["a1xe5 d4", "a1xf6 d4", "a1xg7 d4", "a1xh8 d4"],
        ("italian", "english"): ["a1-b2"],
    }),
    # --- Turkish strike: captured pieces stay on the board and block ---------------------------
    # Ka1 x c3: from d4 it takes f2 (-> g1); from e5 it takes f4 (landing g3, the only square
    # from which f2 can be taken) then f2 (-> e1). From e1 the way to b4 runs through c3, which is
    # still on the board: a1xa5 (four pieces) would be legal only if c3 had been removed.
    "turkish_strike_blocks": ("Ka1", "c3,f4,f2,b4", {
        "russian": ["a1xg1 c3 f2", "a1xe1 c3 f4 f2"],
        ("brazilian", "portuguese", "spanish"): ["a1xe1 c3 f4 f2"],
        ("italian", "english"): ["a1-b2"],
    }),
    # An empty square may be crossed twice: Ka1 x c3 (crossing d4) -> f6 x e7 -> d8 x c7 -> b6,
    # then b6 x e3 crosses d4 again -> f2 or g1. Russian also lists the shorter complete routes
    # (d4 x e3 -> f2/g1 and e5 x c7 -> b8); quantity/quality variants keep the four-piece ones.
    "empty_square_crossed_twice": ("Ka1", "c3,e3,c7,e7", {
        "russian": ["a1xf2 c3 e3", "a1xg1 c3 e3", "a1xb8 c3 c7",
                    "a1xf2 c3 e7 c7 e3", "a1xg1 c3 e7 c7 e3"],
        ("brazilian", "portuguese", "spanish"): ["a1xf2 c3 e7 c7 e3", "a1xg1 c3 e7 c7 e3"],
        ("italian", "english"): ["a1-b2"],
    }),
    # --- crowning during a capture ------------------------------------------------------------
    # b6 x c7 reaches d8. Russian: crowned at once, it goes on as a flying king over g5 to h4.
    # Everywhere else the move ends on d8 (brazilian: a man on d8 has nothing more to take).
    "russian_crowns_and_flies_on": ("b6", "c7,g5", {
        "russian": ["b6xh4 c7 g5"],
        ("brazilian", "portuguese", "spanish", "italian", "english"): ["b6xd8 c7"],
    }),
    # Russian: the new king on d8 takes e7 and may land f6, g5 or h4 (none goes on).
    # Brazilian: the man passes d8 as a man, takes e7 backward and stops on f6, uncrowned.
    # Forward-only variants: the move ends on d8.
    "brazilian_passes_through_last_row": ("b6", "c7,e7", {
        "russian": ["b6xf6 c7 e7", "b6xg5 c7 e7", "b6xh4 c7 e7"],
        "brazilian": ["b6xf6 c7 e7"],
        FORWARD_ONLY: ["b6xd8 c7"],
    }),
    # Brazilian: the man passes d8, comes back to f6 and ends on h8, where it is crowned.
    # Russian: the king from d8 must land on f6 (the only square from which g7 can be taken).
    "brazilian_crowned_when_ending_on_last_row": ("b6", "c7,e7,g7", {
        ("russian", "brazilian"): ["b6xh8 c7 e7 g7"],
        FORWARD_ONLY: ["b6xd8 c7"],
    }),
    # --- precedence -----------------------------------------------------------------------------
    # c3 can take two (d4, f6), h2 one (g3). Russian and english: free choice; the others: most.
    "quantity": ("c3,h2", "d4,f6,g3", {
        ("russian", "english"): ["c3xg7 d4 f6", "h2xf4 g3"],
        ("brazilian", "portuguese", "spanish", "italian"): ["c3xg7 d4 f6"],
    }),
    # Two men each take two; f2's pair includes a king. Quality: take the king. Quantity and
    # none: both. Italian: a man may not take a king at all.
    "quality_most_kings": ("a3,f2", "b4,d6,Kg3,g5", {
        ("russian", "brazilian", "english"): ["a3xe7 b4 d6", "f2xf6 g3 g5"],
        ("portuguese", "spanish"): ["f2xf6 g3 g5"],
        "italian": ["a3xe7 b4 d6"],
    }),
    # Quality: most pieces comes before most kings (three men beat two kings).
    "quality_pieces_before_kings": ("c1,h2", "b2,b4,d6,Kg3,Kg5", {
        ("russian", "english"): ["c1xe7 b2 b4 d6", "h2xh6 g3 g5"],
        ("brazilian", "portuguese", "spanish", "italian"): ["c1xe7 b2 b4 d6"],
    }),
    # --- italian priorities (rules.md section 3) --------------------------------------------------
    # 1. most pieces: c3 takes two (d4, f6) rather than one (b4); a3 takes one.
    "italian_1_most_pieces": ("c3,a3", "d4,f6,b4", {
        "italian": ["c3xg7 d4 f6"],
        "english": ["c3xg7 d4 f6", "c3xa5 b4", "a3xc5 b4"],
    }),
    # 2. tie on count: the king captures, not the man.
    "italian_2_king_rather_than_man": ("Ke3,a3", "f4,b4", {
        "italian": ["e3xg5 f4"],
        "english": ["e3xg5 f4", "a3xc5 b4"],
    }),
    # ... but only on a tie: a man taking two beats a king taking one.
    "italian_2_count_comes_first": ("Ke1,c3", "f2,d4,f6", {
        "italian": ["c3xg7 d4 f6"],
        "english": ["c3xg7 d4 f6", "e1xg3 f2"],
    }),
    # 3. tie on count and capturing piece: take the most kings (b4 + Kb6 rather than d4 + f6).
    "italian_3_most_kings": ("Kc3", "d4,f6,b4,Kb6", {
        "italian": ["c3xc7 b4 b6"],
        "english": ["c3xc7 b4 b6", "c3xg7 d4 f6"],
    }),
    # 4. one king each: take the sequence that meets its king first (Kd4 first, not Kb6 second).
    "italian_4_earliest_king": ("Kc3", "Kd4,f6,b4,Kb6", {
        "italian": ["c3xg7 d4 f6"],
        "english": ["c3xc7 b4 b6", "c3xg7 d4 f6"],
    }),
    # 5. nothing separates the two sequences: free choice.
    "italian_5_free_choice": ("Kc3", "d4,f6,b4,b6", {
        ("italian", "english"): ["c3xc7 b4 b6", "c3xg7 d4 f6"],
    }),
    # Italian men never take kings, not even later in a sequence; kings take kings.
    "italian_man_cannot_take_king": ("c3", "Kd4", {
        "italian": ["c3-b4"],
        "english": ["c3xe5 d4"],
        ("russian", "brazilian"): ["c3xe5 d4"],
    }),
    "italian_man_stops_before_king": ("c3", "d4,Kf6", {
        "italian": ["c3xe5 d4"],
        ("english", "russian", "brazilian", "portuguese", "spanish"): ["c3xg7 d4 f6"],
    }),
    "italian_king_takes_king": ("Kc3", "Kd4", {
        ("italian", "english"): ["c3xe5 d4"],
    }),
    # --- short kings (italian, english) -----------------------------------------------------------
    # One square in each of the four directions; a flying king has 12 squares from d4.
    "short_king_moves": ("Kd4", "h8", {
        ("italian", "english"): ["d4-c3", "d4-c5", "d4-e3", "d4-e5"],
        FLYING: ["d4-a1", "d4-b2", "d4-c3", "d4-e5", "d4-f6", "d4-g7",
                 "d4-a7", "d4-b6", "d4-c5", "d4-e3", "d4-f2", "d4-g1"],
    }),
    # Captures in all four directions, landing directly behind (flying kings may land further).
    "short_king_captures_four_directions": ("Kd4", "c5,e5,c3,e3", {
        ("italian", "english"): ["d4xb6 c5", "d4xf6 e5", "d4xb2 c3", "d4xf2 e3"],
        FLYING: ["d4xb6 c5", "d4xa7 c5", "d4xf6 e5", "d4xg7 e5", "d4xh8 e5",
                 "d4xb2 c3", "d4xa1 c3", "d4xf2 e3", "d4xg1 e3"],
    }),
    # A short king takes only an adjacent piece with an empty square right behind it: not f6
    # (two squares away), not c5 (b6 behind it is occupied).
    "short_king_jumps_only_adjacent": ("Kd4", "f6,c5,b6,e3", {
        ("italian", "english"): ["d4xf2 e3"],
        ("russian", "brazilian"): ["d4xf2 e3", "d4xg1 e3", "d4xg7 f6", "d4xh8 f6"],
    }),
    # --- men capture backward only in russian and brazilian ------------------------------------
    "men_capture_backward": ("d4", "c3", {
        ("russian", "brazilian"): ["d4xb2 c3"],
        FORWARD_ONLY: ["d4-c5", "d4-e5"],
    }),
    # --- circular captures: two paths, one move (rules.md section 2) ------------------------------
    # b4 takes c5, e5, e3, c3 clockwise or anticlockwise and comes back to b4: one move.
    "circular_man_capture": ("b4", "c3,c5,e3,e5", {
        ("russian", "brazilian"): ["b4xb4 c3 c5 e3 e5"],
        FORWARD_ONLY: ["b4xd6 c5"],
    }),
    # The same circle touching the last row. Brazilian: one uncrowned move back to b6.
    # Russian: both directions crown (c7 is on row 7, so any path that takes it reaches row 8):
    # clockwise the king goes d8 x e7 -> f6 x e5 -> d4 x c5 -> b6 or a7; anticlockwise the man
    # goes d4, f6, crowns on d8 and takes c7 -> b6 or a5. The two b6 endings merge.
    "circular_capture_through_last_row": ("b6", "c5,c7,e5,e7", {
        "russian": ["b6xb6 c5 c7 e5 e7", "b6xa7 c5 c7 e5 e7", "b6xa5 c5 c7 e5 e7"],
        "brazilian": ["b6xb6 c5 c7 e5 e7"],
        FORWARD_ONLY: ["b6xd8 c7"],
    }),
    # --- capturing is compulsory --------------------------------------------------------------
    "capture_is_compulsory": ("c3,h2,a1,Kh6", "d4", {
        ALL: ["c3xe5 d4"],
    }),
}

PARAMS = [(name, v) for name, (_, _, table) in CASES.items() for v in expand(table)]


@pytest.mark.parametrize("name,variant", PARAMS, ids=[f"{n}-{v}" for n, v in PARAMS])
def test_legal_moves(name, variant):
    w, b, table = CASES[name]
    p = pos(variant, "W", w, b)
    expected = mvs(variant, *expand(table)[variant])
    got = move_strings(p)
    assert len(got) == len(set(got)), f"duplicate moves listed: {sorted(got)}"
    assert set(got) == expected


PYD_PARAMS = [(n, v) for n, v in PARAMS if v in PYDRAUGHTS]


@pytest.mark.parametrize("name,variant", PYD_PARAMS, ids=[f"{n}-{v}" for n, v in PYD_PARAMS])
def test_expectations_agree_with_pydraughts(name, variant):
    """The hand-derived move sets are what pydraughts computes too (duplicates merged)."""
    w, b, table = CASES[name]
    expected = {move_key(m) for m in mvs(variant, *expand(table)[variant])}
    assert pydraughts_moves(variant, hub(variant, "W", w, b)) == expected


# --- italian rule 4 read as rules.md writes it: compare the positions of all the kings ------------

def test_italian_4_compares_every_king_position():
    """Ka1 x Kb2 -> c3, then either Kd4, f6 (kings at steps 1, 2) or b4, Kb6 (steps 1, 3).

    Counts, capturing piece and number of kings tie; the first king is met at the same step, so
    rules.md's "compare the positions of the kings in the capture order" decides for the sequence
    whose second king comes earlier. pydraughts 0.6.7 only compares the first king and allows both
    (reported as a disagreement, see the report); the engine follows rules.md.
    """
    v = "italian"
    p = pos(v, "W", "Ka1", "Kb2,Kd4,f6,b4,Kb6")
    assert set(move_strings(p)) == mvs(v, "a1xg7 b2 d4 f6")
    assert pydraughts_moves(v, p.hub()) == {move_key(m) for m in mvs(v, "a1xg7 b2 d4 f6",
                                                                       "a1xc7 b2 b4 b6")}


# --- the piece after a capture ---------------------------------------------------------------------

def _piece_on(p: Position, variant: str, square: str) -> str:
    from rules_helpers import layout
    return p.hub()[layout(variant, square)]


@pytest.mark.parametrize("variant,w,b,move,square,piece", [
    ("russian", "b6", "c7,g5", "b6xh4 c7 g5", "h4", "W"),              # crowned mid-capture
    ("brazilian", "b6", "c7,e7", "b6xf6 c7 e7", "f6", "w"),            # passed row 8 as a man
    ("brazilian", "b6", "c7,e7,g7", "b6xh8 c7 e7 g7", "h8", "W"),      # ended on row 8
    ("russian", "b6", "c5,c7,e5,e7", "b6xb6 c5 c7 e5 e7", "b6", "W"),  # circle via row 8
    ("brazilian", "b6", "c5,c7,e5,e7", "b6xb6 c5 c7 e5 e7", "b6", "w"),
    ("russian", "b4", "c3,c5,e3,e5", "b4xb4 c3 c5 e3 e5", "b4", "w"),  # plain circle
    ("portuguese", "b6", "c7,e7", "b6xd8 c7", "d8", "W"),
    ("italian", "b6", "c7,e7", "b6xd8 c7", "d8", "W"),
    ("english", "b6", "c7,e7", "b6xd8 c7", "d8", "W"),
])
def test_piece_after_capture(variant, w, b, move, square, piece):
    p = pos(variant, "W", w, b)
    m = p.parse_move(mv(variant, move))
    assert m.promote == (piece == "W")
    after = p.play(m)
    assert _piece_on(after, variant, square) == piece
    # every captured piece is gone, nothing else of the opponent's is
    n_black = len([x for x in b.split(",") if x])
    assert sum(after.hub()[1:].count(c) for c in "bB") == n_black - len(m.captured)
    assert after.side == 1


def test_circular_capture_counts_once_in_perft():
    for variant in ("russian", "brazilian"):
        p = pos(variant, "W", "b4", "c3,c5,e3,e5")
        assert p.perft(1) == 1
        assert len(p.divide(1)) == 1
        m = p.legal_moves()[0]
        assert m.frm == m.to and len(m.captured) == 4


# --- rules.md section 2: crowning twins ----------------------------------------------------------

def test_russian_crowning_twins_cannot_occur_on_8x8():
    """rules.md section 2 keeps a crowning and a non-crowning path with the same origin,
    destination and captured set as two moves. On 8x8 a man reaches row 8 only by jumping a piece
    on row 7 from row 6, and any path that takes that piece does so as a man from row 6 (crowning)
    or as an already crowned king: two paths with the same captured set either both crown or both
    do not. So the engine must never list two moves with the same (origin, destination, captured);
    this checks it over many random sparse russian positions with men near the last row."""
    import random
    from hub_engine.rules.notation import Setup

    rng = random.Random(2026)
    checked = 0
    for _ in range(20000):
        squares = rng.sample(range(32), rng.randint(4, 9))
        men = tuple(sorted(s for s in squares[:2] if s < 28))
        setup = Setup(0, men, (), tuple(sorted(squares[2:])), ())
        p = Position.from_setup("russian", setup)
        moves = p.legal_moves()
        keys = [(m.frm, m.to, frozenset(m.captured)) for m in moves]
        assert len(keys) == len(set(keys)), p.hub()
        checked += any(m.promote and len(m.captured) > 1 for m in moves)
    assert checked > 50   # the sample did contain crowning multi-captures


def test_parse_move_prefers_the_crowning_twin():
    """The §2 tie-break of parse_move, fed two synthetic twins (see the test above: a real 8x8
    position cannot produce them): the crowning one wins, whichever order they come in."""
    p = pos("russian", "W", "b6", "c7,e7")
    real = p.parse_move(mv("russian", "b6xf6 c7 e7"))
    plain = Move(real.variant, real.frm, real.to, real.captured, False, 0)
    crown = Move(real.variant, real.frm, real.to, real.captured, True, 0)
    for order in ([plain, crown], [crown, plain]):
        p._moves = list(order)
        assert p.parse_move(mv("russian", "b6xf6 c7 e7")).promote is True
        assert p.parse_move(mv("russian", "b6xf6")).promote is True   # short form too


# --- a side that cannot move loses ------------------------------------------------------------

@pytest.mark.parametrize("variant,side,w,b,result", [
    ("russian", "W", "h4", "g5,f6", "0-1"),      # white's only man is blocked
    ("russian", "W", "", "d4", "0-1"),           # white has no piece left
    ("russian", "B", "g3,f2", "h4", "1-0"),      # black's man is blocked
    ("italian", "W", "c3", "Kd4,Kb4", "0-1"),    # italian man blocked by kings it may not take
    ("english", "W", "h4", "g5,f6", "1-0"),      # english: the first mover is Black; it loses
    ("english", "B", "d4", "", "0-1"),           # White (second mover) has nothing: Black won
    ("portuguese", "W", "d4", "c3,c5,e5,b6,f6", "0-1"),   # man can't take backward (c3)
])
def test_no_legal_move_loses(variant, side, w, b, result):
    g = Game(variant, start=hub(variant, side, w, b))
    assert g.legal_moves() == []
    assert g.result() == result


def test_a_side_that_can_move_has_no_result():
    g = Game("russian", start=hub("russian", "W", "h4", "g5"))
    assert g.legal_moves() and g.result() is None
