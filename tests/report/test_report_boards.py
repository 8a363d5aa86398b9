"""Boards as each variant's players draw them (rules.md section 6), checked against the notation
module's own square numbering rather than against the report's formulas."""
import pytest
from report_samples import seen_from_white

from hub_engine.rules import notation
from hub_engine.rules.position import Position
from hub_engine.report.boards import geometry, square_names, square_xy
from hub_engine.rules.variants import VARIANTS


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_every_square_is_a_dark_square_of_its_own(name):
    v = VARIANTS[name]
    cells = [square_xy(v, k) for k in range(1, 33)]
    assert len(set(cells)) == 32
    assert cells == [seen_from_white(v, k) for k in range(1, 33)]
    # the dark (playing) squares: a1 is dark on the normal board, light on the mirrored one
    parity = 0 if v.mirrored else 1
    assert all((x + y) % 2 == parity for x, y in cells)


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_white_men_start_at_the_bottom(name):
    v = VARIANTS[name]
    pos = Position.start(v).hub()
    first_is_white = v.first_mover == "white"
    for k in range(1, 33):
        ch = pos[k]
        if ch == "e":
            continue
        white = (ch == "w") == first_is_white
        assert (square_xy(v, k)[1] >= 5) == white, (k, ch)


# (variant, column, row from White's side, square name in the game record) from rules.md section 6
CORNERS = [
    ("english", 1, 0, "1"),        # Black on 1-12 at the top, square 1 in the double corner
    ("english", 6, 7, "32"),
    ("english", 0, 7, "29"),       # the single corner at White's lower left
    ("russian", 0, 7, "a1"),
    ("russian", 7, 0, "h8"),
    ("brazilian", 1, 0, "1"),      # 1 = b8, 4 = h8, 5 = a7, 29 = a1, 32 = g1
    ("brazilian", 7, 0, "4"),
    ("brazilian", 0, 1, "5"),
    ("brazilian", 0, 7, "29"),
    ("brazilian", 6, 7, "32"),
    ("italian", 0, 0, "1"),        # mirrored board: the dark corner at White's lower right
    ("italian", 7, 7, "32"),
    ("portuguese", 7, 7, "1"),     # from White's lower-right square
    ("spanish", 7, 7, "1"),
    ("spanish", 5, 7, "2"),        # then right to left
]


@pytest.mark.parametrize("name,x,y,label", CORNERS)
def test_known_squares_carry_their_record_names(name, x, y, label):
    v = VARIANTS[name]
    k = next(k for k in range(1, 33) if square_xy(v, k) == (x, y))
    assert square_names(v, k)["record"] == label


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_hub_names_are_the_numbers_of_move_strings(name):
    v = VARIANTS[name]
    g = geometry(v)
    move = Position.start(v).legal_moves()[0]
    frm = notation.internal_to_layout(v, move.frm)
    to = notation.internal_to_layout(v, move.to)
    assert f"{g['squares'][frm - 1][3]}-{g['squares'][to - 1][3]}" == str(move)


def test_notation_choices_leave_out_names_that_repeat():
    assert [k for k, _t in geometry(VARIANTS["brazilian"])["notations"]] == ["record", "hub", "algebraic"]
    assert [k for k, _t in geometry(VARIANTS["russian"])["notations"]] == ["record", "hub"]
    assert [k for k, _t in geometry(VARIANTS["english"])["notations"]] == ["record", "algebraic"]
