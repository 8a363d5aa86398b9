"""Shared helpers of the rules tests: board set-up from square names, independent of the engine.

Squares are named algebraically in a frame where the first mover sits at the bottom and plays up
the board ("w"/"W" in Hub strings) and the dark corner is at its lower left (a1 dark). For the
mirrored variants (italian, portuguese, spanish: light corner at the lower left) the same diagram
is mirrored left-right (file a <-> h), which is what a board with the light corner at the lower left
is, so one diagram tests the same geometry in every variant.

The Hub layout and the variants' move numbers are computed here straight from hub-protocol.md
("8x8 positions and square numbers"), NOT with hub_engine.rules.notation, so that tests compare the
engine against an independent reading of the documents.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
if str(ROOT) not in sys.path:          # run from anywhere, without an installed package
    sys.path.insert(0, str(ROOT))

from hub_engine import Position, get_variant  # noqa: E402

MIRRORED = {"italian", "portuguese", "spanish"}
FILES = "abcdefgh"


def real_square(variant: str, name: str) -> tuple[int, int]:
    """(file 0..7, rank 0..7) on the variant's real board of a square named in the test frame."""
    f, r = FILES.index(name[0]), int(name[1:]) - 1
    if (f + r) % 2:
        raise AssertionError(f"test bug: {name} is a light square in the test frame")
    if variant in MIRRORED:
        f = 7 - f
    return f, r


def layout(variant: str, name: str) -> int:
    """Hub layout square 1..32: seen from the first mover, top row first, left to right."""
    f, r = real_square(variant, name)
    return (7 - r) * 4 + f // 2 + 1


def number(variant: str, name: str) -> int:
    """The variant's Hub move number of a square (hub-protocol.md table)."""
    k = layout(variant, name)
    if variant in ("russian", "brazilian"):
        return (7 - (k - 1) // 4) * 4 + (k - 1) % 4 + 1
    if variant == "italian":
        return k
    return 33 - k   # english, portuguese, spanish


def hub(variant: str, side: str = "W", w: str = "", b: str = "") -> str:
    """Hub position string; w/b are comma-separated squares of the first/second mover, K = king."""
    chars = ["e"] * 33
    chars[0] = side
    for pieces, man in ((w, "w"), (b, "b")):
        for item in filter(None, (x.strip() for x in pieces.split(","))):
            king = item[0] == "K"
            k = layout(variant, item[1:] if king else item)
            assert chars[k] == "e", f"test bug: two pieces on {item}"
            chars[k] = man.upper() if king else man
    return "".join(chars)


def pos(variant: str, side: str = "W", w: str = "", b: str = "") -> Position:
    return Position.from_hub(variant, hub(variant, side, w, b))


def mv(variant: str, text: str) -> str:
    """Hub move string from `c3-d4` or `c3xe5 d4 f6` (origin x destination, then captured squares)."""
    m = re.fullmatch(r"\s*([a-h]\d)\s*([-x])\s*([a-h]\d)((?:\s+[a-h]\d)*)\s*", text)
    assert m, f"test bug: bad move {text!r}"
    a, sep, c, caps = m.groups()
    nums = [number(variant, a), number(variant, c)]
    if sep == "-":
        return f"{nums[0]}-{nums[1]}"
    caps_n = sorted(number(variant, s) for s in caps.split())
    return "x".join(str(n) for n in nums + caps_n)


def mvs(variant: str, *texts: str) -> set[str]:
    return {mv(variant, t) for t in texts}


def move_strings(p: Position) -> list[str]:
    return [str(m) for m in p.legal_moves()]


def move_key(text: str) -> tuple[int, int, frozenset[int]]:
    """(origin, destination, captured set) of a Hub move string, for order-free comparison."""
    nums = [int(x) for x in re.split(r"[-x]", text)]
    return nums[0], nums[1], frozenset(nums[2:])


def pydraughts_moves(variant: str, hub_string: str) -> set[tuple[int, int, frozenset[int]]]:
    """Legal moves according to pydraughts (imports as `draughts`), duplicate paths merged."""
    from draughts import Board

    board = Board(variant=variant, fen=hub_string)
    return {move_key(m.hub_move) for m in board.legal_moves()}


def random_positions(variant: str, count: int, seed: int, max_plies: int = 150) -> list[Position]:
    """Positions met in seeded random playouts from the start (long games, so kings appear).

    A playout stops when the game is over or after max_plies; one position in every `stride`
    plies is kept so that the list covers openings, middle games and king endings."""
    import random

    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < count:
        p = Position.start(variant)
        for ply in range(max_plies):
            moves = p.legal_moves()
            if not moves:
                break
            if ply % 3 == rng.randrange(3):
                out.append(p)
                if len(out) == count:
                    break
            p = p.play(rng.choice(moves))
    return out


def random_setups(variant: str, count: int, seed: int) -> list[Position]:
    """Random sparse positions: up to 10 pieces a side, many kings, either side to move."""
    import random

    from hub_engine.rules.notation import Setup

    rng = random.Random(seed)
    out = []
    for _ in range(count):
        nw, nb = rng.randint(1, 10), rng.randint(1, 10)
        sq = rng.sample(range(32), nw + nb)
        w, b = sq[:nw], sq[nw:]
        wk = [s for s in w if s >= 28 or rng.random() < 0.4]     # no man on its crowning row
        bk = [s for s in b if s < 4 or rng.random() < 0.3]
        wm = [s for s in w if s not in wk]
        bm = [s for s in b if s not in bk]
        out.append(Position.from_setup(variant, Setup(rng.randrange(2), tuple(sorted(wm)),
                                                      tuple(sorted(wk)), tuple(sorted(bm)),
                                                      tuple(sorted(bk)))))
    return out


__all__ = ["DATA", "ROOT", "get_variant", "hub", "layout", "move_key", "move_strings", "mv", "mvs",
           "number", "pos", "pydraughts_moves", "random_positions", "random_setups", "real_square"]
