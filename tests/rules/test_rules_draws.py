"""Draw counters and repetition (rules.md section 4) through Game.draw_reason() and result().

Limits are in moves by each side; a limit of N moves is reached after 2N plies of the kind the rule
counts. Long sequences of legal king moves are found by a small seeded depth-first search that
never lets a position occur a third time (so that repetition does not end the walk first).
"""
from __future__ import annotations

import random
import sys

import pytest

from rules_helpers import hub, layout, mv
from hub_engine import Game

sys.setrecursionlimit(10000)

QUIET = "no man move and no capture"
NOCAPCROWN = "no capture and no crowning"
ENDGAME = "endgame not won in time"
# the core's endgame situation flags (counters[2]); balance-based counts use counters[1] (plies
# without capture or crowning), placement-based ones (long diagonal) counters[3]
CFG_KINGS_VS_LONE, CFG_THREE_VS_DIAG, CFG_FEW_VS_LONE, CFG_RIO_RUN = 1, 8, 16, 64
LONG_DIAGONAL = [layout("russian", sq) for sq in ("a1", "b2", "c3", "d4", "e5", "f6", "g7", "h8")]


def kings_of_mover(g: Game) -> tuple[int, ...]:
    setup = g.position.setup()
    return setup[2 + 2 * setup.side]


def king_step(g, m) -> bool:
    """A king move without capture (what every 'no man move' counter counts)."""
    return not m.is_capture and m.frm in kings_of_mover(g)


def walk(g: Game, plies: int, rng: random.Random, step_ok=king_step, final_ok=None,
         budget: list | None = None) -> bool:
    """Play `plies` moves allowed by step_ok with no draw on the way (backtracking with undo);
    at the end final_ok(g) must hold. Returns False (and leaves g unchanged) when impossible."""
    if budget is None:
        budget = [200000]
    if plies == 0:
        return final_ok is None or final_ok(g)
    moves = g.legal_moves()
    rng.shuffle(moves)
    for m in moves:
        if not step_ok(g, m):
            continue
        budget[0] -= 1
        if budget[0] < 0:
            return False
        g.play(m)
        if g.draw_reason() is None and g.result() is None:
            if walk(g, plies - 1, rng, step_ok, final_ok, budget):
                return True
        g.undo()
    return False


def walk_checked(g: Game, plies: int, seed: int, **kw) -> None:
    assert walk(g, plies, random.Random(seed), **kw), "test bug: no such walk found"


def fresh_moves(g: Game, ok=king_step) -> list:
    """Moves allowed by ok after which the position has not occurred three times."""
    out = []
    for m in g.legal_moves():
        if ok(g, m):
            g.play(m)
            if g.repetitions() < 3:
                out.append(m)
            g.undo()
    return out


def can_go_on(ok=king_step):
    return lambda g: bool(fresh_moves(g, ok))


# --- repetition --------------------------------------------------------------------------------

REP_START = ("russian", "W", "Kc1,g3,h2", "Kf8,a7,b8")


def test_threefold_repetition_by_king_shuffles():
    v, side, w, b = REP_START
    g = Game(v, start=hub(v, side, w, b))
    start = g.position
    shuffle = [mv(v, "c1-d2"), mv(v, "f8-e7"), mv(v, "d2-c1"), mv(v, "e7-f8")]
    for i, m in enumerate(shuffle * 2, start=1):
        g.play(m)
        if i < 8:
            assert g.draw_reason() is None and g.result() is None, f"drawn after ply {i}"
    assert g.position == start
    assert g.repetitions() == 3
    assert g.draw_reason() == "repetition"
    assert g.result() == "1/2-1/2"
    g.undo()
    assert g.repetitions() == 2 and g.draw_reason() is None     # undo forgets the occurrence


def test_repetition_needs_the_same_side_to_move():
    v, side, w, b = REP_START
    g = Game(v, start=hub(v, side, w, b))
    start = g.position
    # a flying king loses a tempo with a triangle c1-d2-e3-c1: same pieces, other side to move
    for m in ["c1-d2", "f8-e7", "d2-e3", "e7-f8", "e3-c1"]:
        g.play(mv(v, m))
    assert g.position.setup()[1:] == start.setup()[1:]
    assert g.position.side != start.side
    assert g.position != start
    assert g.repetitions() == 1


def test_man_move_starts_a_new_repetition_window():
    v, side, w, b = REP_START
    g = Game(v, start=hub(v, side, w, b))
    for m in ["c1-d2", "f8-e7", "d2-c1", "e7-f8"]:
        g.play(mv(v, m))
    assert g.repetitions() == 2
    g.play(mv(v, "g3-f4"))                       # a man move: nothing before it can come back
    assert g.repetitions() == 1
    assert len(g.history_hashes()) == 1
    for m in ["f8-e7", "c1-d2", "e7-f8", "d2-c1"]:
        g.play(mv(v, m))
    assert g.repetitions() == 2 and g.draw_reason() is None


# --- "no man move and no capture" (portuguese/spanish 20, russian/brazilian 15, english 40) ---

QUIET_CASES = [
    # variant, limit in moves, first mover squares, second mover squares
    ("portuguese", 20, "Kc1,h2", "Kf8,a7"),
    ("spanish", 20, "Kc1,h2", "Kf8,a7"),
    ("russian", 15, "Kc1,h2", "Kf8,a7"),
    ("brazilian", 15, "Kc1,h2", "Kf8,a7"),
    ("english", 40, "Kc1,h2", "Kf8,a7"),
]


@pytest.mark.parametrize("variant,limit,w,b", QUIET_CASES)
def test_quiet_king_moves_draw_at_the_limit(variant, limit, w, b):
    g = Game(variant, start=hub(variant, "W", w, b))
    # no draw on any ply up to one ply before the limit
    walk_checked(g, 2 * limit - 1, seed=1, final_ok=can_go_on())
    assert g.counters[0] == 2 * limit - 1
    assert g.draw_reason() is None and g.result() is None
    g.play(fresh_moves(g)[0])
    assert g.counters[0] == 2 * limit
    assert g.draw_reason() == QUIET
    assert g.result() == "1/2-1/2"


@pytest.mark.parametrize("variant,limit,w,b", QUIET_CASES)
def test_quiet_counter_is_reset_by_a_man_move(variant, limit, w, b):
    g = Game(variant, start=hub(variant, "W", w, b))
    man_moves = lambda g: any(not m.is_capture and m.frm not in kings_of_mover(g)
                              for m in g.legal_moves())
    walk_checked(g, 2 * limit - 1, seed=2, final_ok=man_moves)
    m = next(m for m in g.legal_moves() if m.frm not in kings_of_mover(g))
    g.play(m)
    assert g.counters[0] == 0
    walk_checked(g, 2 * limit - 1, seed=3)
    assert g.draw_reason() is None


@pytest.mark.parametrize("variant,limit,w,b", QUIET_CASES)
def test_quiet_counter_is_reset_by_a_capture(variant, limit, w, b):
    g = Game(variant, start=hub(variant, "W", w, b + ",d6,f6"))
    has_capture = lambda g: any(m.is_capture for m in g.legal_moves())
    walk_checked(g, 2 * limit - 1, seed=4, final_ok=has_capture)
    assert g.counters[0] == 2 * limit - 1
    g.play(g.legal_moves()[0])
    assert g.counters[0] == 0
    assert g.draw_reason() is None


def test_brazilian_twenty_move_alternative_setting():
    """rules.md: keep the Brazilian federation's 20 moves as an alternative setting."""
    from hub_engine import get_variant
    alt = get_variant("brazilian").with_draws(quiet_moves=20)
    g = Game(alt, start=hub("brazilian", "W", "Kc1,h2", "Kf8,a7"))
    walk_checked(g, 39, seed=5)
    assert g.draw_reason() is None
    assert get_variant("brazilian").draws.quiet_moves == 15   # the default is untouched


# --- italian: 40 moves without capture or crowning; man moves do not reset it -----------------

def test_italian_forty_moves_without_capture_or_crowning():
    v = "italian"
    g = Game(v, start=hub(v, "W", "Kc1,a1,e1", "Kf8,h8,d8"))
    # 30 king plies, then man moves on both sides (they do not reset the count), then kings again
    walk_checked(g, 30, seed=6)
    men = lambda g, m: not m.is_capture and m.frm not in kings_of_mover(g) and not m.promote
    walk_checked(g, 4, seed=7, step_ok=men)
    assert g.counters[1] == 34
    assert g.counters[0] == 0                     # the quiet counter did see the man moves
    walk_checked(g, 79 - 34, seed=8, final_ok=can_go_on())
    assert g.counters[1] == 79
    assert g.draw_reason() is None
    g.play(fresh_moves(g)[0])
    assert g.counters[1] == 80
    assert g.draw_reason() == NOCAPCROWN


def test_italian_counter_reset_by_crowning_and_by_capture():
    v = "italian"
    g = Game(v, start=hub(v, "W", "Kc1,a7", "Kh6,h4"))
    can_crown = lambda g: any(m.promote and not m.is_capture for m in g.legal_moves())
    walk_checked(g, 60, seed=9, final_ok=can_crown)
    assert g.counters[1] == 60
    g.play(next(m for m in g.legal_moves() if m.promote and not m.is_capture))
    assert g.counters[1] == 0
    # short kings change row parity every move: after 79 plies black's king (from f8) stands on
    # an odd row, next to the white man on d4
    g2 = Game(v, start=hub(v, "W", "Kc1,d4", "Kf8,a7"))
    has_capture = lambda g: any(m.is_capture for m in g.legal_moves())
    walk_checked(g2, 79, seed=10, final_ok=has_capture)
    g2.play(g2.legal_moves()[0])
    assert g2.counters[1] == 0 and g2.draw_reason() is None


# --- russian endgame counters ------------------------------------------------------------------

def test_russian_three_kings_against_lone_king():
    """3 kings (plus a man, whose moves reset the quiet counter but not this one) against a lone
    king off the long diagonal: drawn when 15 moves by each side have passed without a capture."""
    v = "russian"
    g = Game(v, start=hub(v, "W", "Kc1,Ke1,Kg1,a3", "Kb8"))
    assert g.counters[2] & CFG_KINGS_VS_LONE

    def off_diagonal(g, m):
        # keep the configuration: the lone king stays off a1-h8, the man does not crown
        if m.is_capture or m.promote:
            return False
        text = g.position.play(m).hub()
        return all(text[k] != "B" for k in LONG_DIAGONAL)
    man_move = lambda g: any(m.frm not in kings_of_mover(g) and off_diagonal(g, m)
                             for m in g.legal_moves())
    walk_checked(g, 10, seed=11, step_ok=off_diagonal, final_ok=man_move)
    g.play(next(m for m in g.legal_moves() if m.frm not in kings_of_mover(g) and off_diagonal(g, m)))
    assert g.counters[0] == 0 and g.counters[1] == 11
    walk_checked(g, 29 - 11, seed=12, step_ok=off_diagonal, final_ok=can_go_on(off_diagonal))
    assert g.counters[2] & CFG_KINGS_VS_LONE and g.counters[1] == 29
    assert g.draw_reason() is None
    g.play(fresh_moves(g, off_diagonal)[0])
    assert g.counters[2] & CFG_KINGS_VS_LONE and g.counters[1] == 30
    assert g.counters[0] < 30                           # not the quiet rule
    assert g.draw_reason() == ENDGAME


def test_russian_three_pieces_against_lone_king_on_the_long_diagonal():
    """Three pieces (here two kings and a man) against a lone king on a1-h8: 5 moves."""
    v = "russian"
    g = Game(v, start=hub(v, "W", "Ka3,Kg1,a5", "Ke5"))
    assert g.counters[2] & CFG_THREE_VS_DIAG

    def on_diagonal(g, m):
        if m.is_capture or m.promote:
            return False
        text = g.position.play(m).hub()
        return any(text[k] == "B" for k in LONG_DIAGONAL)
    walk_checked(g, 9, seed=17, step_ok=on_diagonal, final_ok=can_go_on(on_diagonal))
    assert g.counters[2] & CFG_THREE_VS_DIAG and g.counters[3] == 9 and g.draw_reason() is None
    g.play(fresh_moves(g, on_diagonal)[0])
    assert g.counters[2] & CFG_THREE_VS_DIAG and g.counters[3] == 10
    assert g.draw_reason() == ENDGAME


@pytest.mark.parametrize("w", ["Kc1,Kg1", "Kc1", "Kc1,a3"])
def test_russian_one_or_two_pieces_against_lone_king(w):
    v = "russian"
    g = Game(v, start=hub(v, "W", w, "Kb8"))
    assert g.counters[2] & CFG_FEW_VS_LONE
    no_crown = lambda g, m: not m.is_capture and not m.promote
    walk_checked(g, 9, seed=13, step_ok=no_crown, final_ok=can_go_on(no_crown))
    assert g.counters[1] == 9 and g.draw_reason() is None
    g.play(fresh_moves(g, no_crown)[0])
    assert g.counters[1] == 10
    assert g.draw_reason() == ENDGAME


def test_russian_few_vs_lone_reset_by_crowning():
    v = "russian"
    g = Game(v, start=hub(v, "W", "Kc1,a7", "Kh2"))
    can_crown = lambda g: any(m.promote and not m.is_capture for m in g.legal_moves())
    no_man = lambda g, m: not m.is_capture and m.frm in kings_of_mover(g)
    walk_checked(g, 8, seed=14, step_ok=no_man, final_ok=can_crown)
    assert g.counters[2] & CFG_FEW_VS_LONE and g.counters[1] == 8
    g.play(next(m for m in g.legal_moves() if m.promote and not m.is_capture))
    assert g.counters[1] == 0
    walk_checked(g, 9, seed=15, step_ok=lambda g, m: not m.is_capture)
    assert g.draw_reason() is None


def test_russian_capture_into_a_new_balance_restarts_the_count():
    """White K + 2 men against K + man; white takes the man: now 3 pieces vs lone king... the
    capture restarts every counter."""
    v = "russian"
    g = Game(v, start=hub(v, "W", "Kc1,a3,h2", "Kb8,g3"))
    g.play(mv(v, "h2xf4 g3"))
    assert g.counters[0] == 0 and g.counters[1] == 0 and g.counters[3] == 0


# --- portuguese three kings against one from the long diagonal ----------------------------------

def test_portuguese_rio_twelve_moves():
    v = "portuguese"
    # three kings already on the long diagonal (test frame a1-h8 is notation squares 1..32's
    # diagonal of the mirrored board), lone king off it
    g = Game(v, start=hub(v, "W", "Kb2,Kd4,Kf6", "Ka7"))
    assert g.counters[2] & CFG_RIO_RUN
    safe = lambda g, m: not m.is_capture
    walk_checked(g, 23, seed=16, step_ok=safe, final_ok=can_go_on(safe))
    assert g.counters[2] & CFG_RIO_RUN and g.counters[3] == 23 and g.draw_reason() is None
    g.play(fresh_moves(g, safe)[0])
    assert g.counters[2] & CFG_RIO_RUN and g.counters[3] == 24
    assert g.draw_reason() == ENDGAME


def test_three_kings_count_runs_from_when_the_balance_arose():
    from hub_engine import get_variant

    v = "brazilian"
    alt = get_variant(v).with_draws(quiet_moves=20)
    g = Game(alt, start=hub(v, "W", "Kc1,Ke1,Kg1", "Kb8"))
    # the lone king visits g7 (on a1-h8) for one move and goes back
    for m in ["c1-d2", "b8-a7", "d2-c1", "a7-b8", "c1-d2", "b8-c7", "d2-c1", "c7-d8",
              "c1-d2", "d8-e7", "d2-c1", "e7-f8", "c1-d2", "f8-g7", "d2-c1", "g7-f8"]:
        g.play(mv(v, m))
        assert g.draw_reason() is None

    def off_diagonal(g, m):
        if m.is_capture:
            return False
        text = g.position.play(m).hub()
        return all(text[k] != "B" for k in LONG_DIAGONAL)
    walk_checked(g, 13, seed=18, step_ok=off_diagonal, final_ok=can_go_on(off_diagonal))
    assert g.draw_reason() is None                      # 29 plies since the balance arose
    g.play(fresh_moves(g, off_diagonal)[0])             # 15 moves each, no capture
    assert g.counters[0] == 30                          # the 20-move king rule is not due yet
    assert g.draw_reason() == ENDGAME                   # 15 moves each since the balance arose
