"""How each variant's players draw and number the board (rules.md section 6), as data for the page.

Every board is drawn from White's side, as the variants' diagrams are printed: for english that is
the Hub layout turned round (Black, who moves first, sits on squares 1-12 at the top), for the
others the layout itself (italian, portuguese and spanish on their mirrored board, a light square
in each player's lower-left corner). Each square carries its name in three notations:

    record     the variant's game-record names (russian a1-h8, brazilian/italian layout numbers,
               english/portuguese/spanish 33 - layout)
    hub        the numbers of Hub move strings, as the analysis records write moves
    algebraic  the board coordinates a1-h8 seen from White
"""
from __future__ import annotations

from hub_engine.rules import notation
from hub_engine.rules.variants import VARIANTS, Variant

NOTATIONS = ("record", "hub", "algebraic")
NOTATION_TITLES = {"record": "game record", "hub": "Hub move numbers", "algebraic": "a1-h8"}


def square_xy(variant: Variant, k: int) -> tuple[int, int]:
    """Column (0 = left) and row (0 = top) of layout square k on the board seen from White."""
    row, col = divmod(k - 1, 4)
    rank = 7 - row                     # 0 = the first mover's back rank
    dark_first = rank % 2 == 0         # the dark square comes first on this rank, from the left
    if variant.mirrored:
        dark_first = not dark_first
    x = 2 * col + (0 if dark_first else 1)
    if variant.first_mover == "white":
        return x, row
    return 7 - x, 7 - row


def square_names(variant: Variant, k: int) -> dict[str, str]:
    """The names of layout square k in each notation of NOTATIONS."""
    s = notation.layout_to_internal(variant, k)
    x, y = square_xy(variant, k)
    return {"record": notation.pdn_square(variant, s),
            "hub": str(notation.square_number(variant, s)),
            "algebraic": f"{notation.FILES[x]}{8 - y}"}


def notation_choices(variant: Variant) -> list[list[str]]:
    """[key, title] of the notations that name this variant's squares differently (record first)."""
    seen: dict[tuple[str, ...], str] = {}
    out = []
    for key in NOTATIONS:
        names = tuple(square_names(variant, k)[key] for k in range(1, 33))
        if names in seen:
            continue
        seen[names] = key
        title = NOTATION_TITLES[key]
        if key == "record" and names == tuple(square_names(variant, k)["hub"] for k in range(1, 33)):
            title = "numbers (game record = Hub)"
        elif key == "record":
            title = f"{'a1-h8' if names[0][0].isalpha() else 'numbers'} (game record)"
        out.append([key, title])
    return out


def geometry(variant: Variant) -> dict:
    """What the page needs to draw one variant: first mover, squares and notations."""
    squares = []
    for k in range(1, 33):
        x, y = square_xy(variant, k)
        names = square_names(variant, k)
        squares.append([x, y] + [names[n] for n in NOTATIONS])
    return {"first": variant.first_mover, "squares": squares,
            "notations": notation_choices(variant),
            "separator": ":" if variant.pdn_squares == "algebraic" else "x"}


def geometries(names: set[str] | list[str]) -> dict[str, dict]:
    """geometry() of the named variants, by name, in a fixed order."""
    return {name: geometry(VARIANTS[name]) for name in sorted(names)}
