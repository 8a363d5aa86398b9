"""A plain, slow, independent endgame solver: the oracle the compiled tables are checked against.

It shares nothing with the compiled generator: positions are dicts of the rules tests'
reference move generator (tests/rules/reference_rules.py, written from rules.md), enumerated with
itertools over the test frame's squares, and solved by forward iteration: repeat full passes over
the slice pair, a position being won when some move reaches a lost position and lost when every
move reaches a won one (no move: lost), until a pass changes nothing; what is left is drawn.
It needs no un-moves and no counters, which is what makes it a second opinion.

Values outside the pair being solved (after a capture or a promotion) are read from the tables
under test through their Python probe. Checking every pair this way, smallest first, proves every
table by induction: a pair's own values are recomputed here, and the values it borrows are those
of pairs checked before it.

Only positions with the first mover (side 0, moving up) to move are enumerated; the other side to
move is the board turned 180 degrees with colours swapped (a symmetry of every rule in rules.md).
"""
from __future__ import annotations

import itertools
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "rules"))

from reference_rules import Board, squares_of_layout  # noqa: E402

DARK = sorted((f, r) for r in range(8) for f in range(8) if (f + r) % 2 == 0)   # keys are sorted tuples
Key = tuple   # (side-0 men, side-0 kings, side-1 men, side-1 kings), each a sorted tuple


def turned(sq: tuple) -> tuple:
    return (7 - sq[0], 7 - sq[1])


def key_of(board: Board) -> tuple[Key, bool]:
    """The key of board seen with its side to move as side 0, and whether it was turned."""
    groups = ([], [], [], [])
    for sq, (side, king) in board.pieces.items():
        if board.side == 0:
            groups[2 * side + king].append(sq)
        else:
            groups[2 * (1 - side) + king].append(turned(sq))
    return tuple(tuple(sorted(g)) for g in groups), board.side == 1


def board_of(variant: str, key: Key) -> Board:
    b = Board.__new__(Board)
    b.variant = variant
    b.rules = Board(variant, "W" + "e" * 32).rules
    b.side = 0
    b.pieces = {}
    for i, group in enumerate(key):
        for sq in group:
            b.pieces[sq] = (i // 2, bool(i % 2))
    return b


def hub_of(variant: str, key: Key) -> str:
    """Hub position string (side 0 to move) in the reference's own layout mapping."""
    where = {}
    for i, group in enumerate(key):
        for sq in group:
            where[sq] = "wWbB"[i]
    return "W" + "".join(where.get(sq, "e") for sq in squares_of_layout(variant))


def material(key: Key) -> tuple:
    return tuple(len(g) for g in key)


def positions(mat: tuple) -> list[Key]:
    """Every position of material (men0, kings0, men1, kings1), side 0 to move."""
    wm, wk, bm, bk = mat
    men0 = [s for s in DARK if s[1] < 7]
    men1 = [s for s in DARK if s[1] > 0]
    out = []
    for a in itertools.combinations(men0, wm):
        for b in itertools.combinations([s for s in men1 if s not in a], bm):
            free = [s for s in DARK if s not in a and s not in b]
            for c in itertools.combinations(free, wk):
                rest = [s for s in free if s not in c]
                for d in itertools.combinations(rest, bk):
                    out.append((a, c, b, d))
    return out


def children_of(variant: str, key: Key, inside: set, outside) -> list:
    """Per reference move: the child's key when its material is in `inside`, else its value
    ('loss' when the side to move has no piece left, otherwise outside(key))."""
    board = board_of(variant, key)
    kids = []
    for mv in board.moves():
        ck, _ = key_of(board.play(mv))
        if not ck[0] and not ck[1]:
            kids.append("loss")
        elif material(ck) in inside:
            kids.append(ck)
        else:
            kids.append(outside(ck))
    return kids


def solve_pair(variant: str, mats: list[tuple], outside) -> dict[Key, str]:
    """Values ('win', 'draw', 'loss' for the side to move) of every position of the slices mats
    (a slice and its colour image); outside(key) gives the value of any other position."""
    inside = set(mats)
    keys = [k for m in mats for k in positions(m)]
    children: dict[Key, list] = {}
    value: dict[Key, str | None] = {}
    for k in keys:
        kids = children_of(variant, k, inside, outside)
        children[k] = kids
        value[k] = "loss" if not kids else None
    changed = True
    while changed:
        changed = False
        for k in keys:
            if value[k] is not None:
                continue
            vals = [c if isinstance(c, str) else value[c] for c in children[k]]
            if "loss" in vals:
                value[k] = "win"
                changed = True
            elif all(v == "win" for v in vals):
                value[k] = "loss"
                changed = True
    return {k: (v or "draw") for k, v in value.items()}


def solve_distances(variant: str, mats: list[tuple], outside) -> dict[Key, tuple[str, int]]:
    """(value, distance) of every position of the pair, distances counting plies to the next
    conversion (a capture or a crowning: every move that leaves the pair). outside(key) values a
    conversion's result ('win', 'draw', 'loss' for its side to move); the winner takes the
    shortest way to a conversion it wins, the loser the longest. Distance 0: no move, lost.

    Forward iteration again, one pass per ply: a position is won in d when some move in the pair
    reaches one lost in d - 1 (or d = 1 and some conversion wins), lost in d when every move is
    won for the other side and the longest of those is d - 1 (a conversion counting 0)."""
    inside = set(mats)
    keys = [k for m in mats for k in positions(m)]
    children = {k: children_of(variant, k, inside, outside) for k in keys}
    result: dict[Key, tuple[str, int]] = {k: ("loss", 0) for k in keys if not children[k]}
    d = 0
    while True:
        d += 1
        found = {}
        for k in keys:
            if k in result:
                continue
            kids = [(c, 0) if isinstance(c, str) else result.get(c, (None, None))
                    for c in children[k]]
            if any(v == "loss" and dist == d - 1 for v, dist in kids):
                found[k] = ("win", d)
            elif all(v == "win" for v, _ in kids) and max(dist for _, dist in kids) == d - 1:
                found[k] = ("loss", d)
        if not found:
            break
        result.update(found)
    return {k: result.get(k, ("draw", 0)) for k in keys}
