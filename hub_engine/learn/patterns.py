"""The geometry of the learned evaluation, in internal squares (a1 = 0, c1 = 1, ..., h8 = 31).

Shared by the numpy feature code (features.py) and its tests; the compiled core (learned.pxi)
computes the same windows with row tables, and the tests hold the two equal.
"""
from __future__ import annotations

ROWS, ROW_SQUARES, NSQ = 8, 4, 32
FILE_OFFSETS = (0, 1, 2)          # in-row offset k of a window: files a-d, c-f, e-h
RANK_OFFSETS = (0, 1, 2, 3, 4)    # first row g of a window: ranks 1-4 ... 5-8
N_WINDOWS, N_TABLES, ENTRIES, CENTRE = 15, 8, 3 ** 8, (3 ** 8 - 1) // 2
RES, PHASE_MEN = 8, 24
# ending values (learned.pxi): positions of at most ENDING_PIECES pieces; counts capped
ENDING_PIECES, ENDING_MEN_CAP, ENDING_KING_CAP = 10, 7, 4
ENDING_ENTRIES = (ENDING_MEN_CAP + 1) ** 2 * (ENDING_KING_CAP + 1) ** 2 * 4
SCALARS = ("men", "first_king", "extra_kings", "men_vs_king", "tempo", "mobility",
           "king_mobility", "runaway1", "runaway2", "runaway3", "king_long_diagonal",
           "king_double_diagonal", "balance", "to_move")
N_PARAMS = N_TABLES * ENTRIES + len(SCALARS)        # per phase


def row(s: int) -> int:
    return s // ROW_SQUARES


def col(s: int) -> int:
    return 2 * (s % ROW_SQUARES) + row(s) % 2


def square(r: int, c: int) -> int | None:
    """The internal square at row r, column c (0..7), or None for a light or off-board square."""
    if not (0 <= r < ROWS and 0 <= c < 2 * ROW_SQUARES) or (c - r) % 2:
        return None
    return r * ROW_SQUARES + c // 2


def window_squares(w: int) -> tuple[int, ...]:
    """Window w = 5k + g: its 8 squares in trit order (trit 2j + c = square 4(g + j) + k + c)."""
    k, g = divmod(w, len(RANK_OFFSETS))
    return tuple(ROW_SQUARES * (g + j) + k + c for j in range(4) for c in range(2))


def window_table(w: int) -> int:
    """Windows w and 14 - w are each other's 180-degree image and share a table."""
    return min(w, N_WINDOWS - 1 - w)


WINDOWS = tuple(window_squares(w) for w in range(N_WINDOWS))
TABLE_OF_WINDOW = tuple(window_table(w) for w in range(N_WINDOWS))

# (row, column) steps: up-left, up-right, down-left, down-right
DIRECTIONS = ((1, -1), (1, 1), (-1, -1), (-1, 1))


def ray(s: int, d: int) -> list[int]:
    """Squares from s (exclusive) in direction d up to the edge."""
    dr, dc = DIRECTIONS[d]
    out, r, c = [], row(s) + dr, col(s) + dc
    while (t := square(r, c)) is not None:
        out.append(t)
        r, c = r + dr, c + dc
    return out


def cone(s: int) -> list[int]:
    """The widened forward cone of a side-0 man on s (the squares a runaway needs empty)."""
    r, c = row(s), col(s)
    return [t for t in range(NSQ) if row(t) > r and abs(col(t) - c) <= (row(t) - r) + 1]


LONG_DIAGONAL = tuple(s for s in range(NSQ) if col(s) == row(s))
DOUBLE_DIAGONALS = tuple(s for s in range(NSQ) if col(s) + row(s) in (6, 8))
LEFT = tuple(s for s in range(NSQ) if s % ROW_SQUARES < 2)
