"""Square numbers, Hub position strings, Hub move strings and PDN FEN for the 8x8 variants.

Three numberings meet here (hub-protocol.md "8x8 positions and square numbers"):
- internal squares 0..31 of the compiled core: a1 = 0 from the first mover's side, dark corner
  at its lower left, four squares a row;
- the Hub layout 1..32: the board seen from the first mover, top row first, left to right;
- each variant's own numbers (move strings) and its game-record squares (PDN FEN).
Mirrored-board variants (light corner at lower left) are flipped left-right at this boundary only.
"""
from __future__ import annotations

import re
from typing import NamedTuple

from hub_engine.rules.variants import Variant

FILES = "abcdefgh"


class NotationError(ValueError):
    """A position, move or square written wrongly; the message names what is wrong."""


class Setup(NamedTuple):
    """Pieces as internal squares; side 0 is the variant's first mover."""

    side: int
    men0: tuple[int, ...]
    kings0: tuple[int, ...]
    men1: tuple[int, ...]
    kings1: tuple[int, ...]


# --- squares ---------------------------------------------------------------------------------

def layout_to_internal(variant: Variant, k: int) -> int:
    """Internal square of Hub layout square k (1..32)."""
    if not 1 <= k <= 32:
        raise NotationError(f"square {k} is not between 1 and 32")
    row, col = divmod(k - 1, 4)
    if variant.mirrored:
        col = 3 - col
    return (7 - row) * 4 + col


def internal_to_layout(variant: Variant, s: int) -> int:
    row, col = 7 - s // 4, s % 4
    if variant.mirrored:
        col = 3 - col
    return row * 4 + col + 1


def _number_from_layout(scheme: str, k: int) -> int:
    if scheme == "layout":
        return k
    if scheme == "reverse":
        return 33 - k
    return (7 - (k - 1) // 4) * 4 + (k - 1) % 4 + 1   # "russian": a1 = 1


def square_number(variant: Variant, s: int, notation: str = "variant") -> int:
    """The number a Hub move string uses for internal square s (notation 'variant' or 'layout')."""
    k = internal_to_layout(variant, s)
    return k if notation == "layout" else _number_from_layout(variant.numbering, k)


def square_from_number(variant: Variant, n: int, notation: str = "variant") -> int:
    """Internal square of a Hub move number; the three numberings are their own inverses."""
    if not 1 <= n <= 32:
        raise NotationError(f"square {n} is not between 1 and 32")
    k = n if notation == "layout" else _number_from_layout(variant.numbering, n)
    return layout_to_internal(variant, k)


def algebraic(s: int) -> str:
    row = s // 4
    return f"{FILES[2 * (s % 4) + row % 2]}{row + 1}"


def from_algebraic(variant: Variant, name: str) -> int:
    if variant.mirrored:
        raise NotationError(f"algebraic square {name!r} is not used in {variant.name}")
    m = re.fullmatch(r"([a-h])([1-8])", name)
    if not m:
        raise NotationError(f"bad square {name!r}")
    col, row = FILES.index(m.group(1)), int(m.group(2)) - 1
    if (col + row) % 2:
        raise NotationError(f"square {name!r} is a light square")
    return row * 4 + col // 2


def pdn_square(variant: Variant, s: int) -> str:
    """The game-record name of internal square s (rules.md section 6, first form)."""
    if variant.pdn_squares == "algebraic":
        return algebraic(s)
    return str(_number_from_layout(variant.pdn_squares, internal_to_layout(variant, s)))


def from_pdn_square(variant: Variant, name: str) -> int:
    name = name.strip().lower()
    if name[:1].isalpha():
        return from_algebraic(variant, name)
    if not name.isdigit():
        raise NotationError(f"bad square {name!r}")
    scheme = "layout" if variant.pdn_squares == "algebraic" else variant.pdn_squares
    n = int(name)
    if not 1 <= n <= 32:
        raise NotationError(f"square {n} is not between 1 and 32")
    return layout_to_internal(variant, _number_from_layout(scheme, n))


# --- Hub position strings --------------------------------------------------------------------

def parse_hub_position(variant: Variant, text: str) -> Setup:
    """Read a 33-character Hub position (side char, then w/b/W/B/e for layout squares 1..32)."""
    text = text.strip()
    if len(text) != 33:
        raise NotationError(f"bad position: {len(text)} characters, 33 expected for 8x8")
    side = {"W": 0, "B": 1}.get(text[0])
    if side is None:
        raise NotationError(f"bad position: side {text[0]!r} is not W or B")
    lists: dict[str, list[int]] = {"w": [], "W": [], "b": [], "B": []}
    for k, ch in enumerate(text[1:], start=1):
        if ch in lists:
            lists[ch].append(layout_to_internal(variant, k))
        elif ch not in "e.":
            raise NotationError(f"bad position: {ch!r} on square {k}")
    return Setup(side, *(tuple(sorted(lists[c])) for c in "wWbB"))


def format_hub_position(variant: Variant, setup: Setup) -> str:
    chars = ["e"] * 33
    chars[0] = "WB"[setup.side]
    for pieces, ch in zip(setup[1:], "wWbB"):
        for s in pieces:
            chars[internal_to_layout(variant, s)] = ch
    return "".join(chars)


# --- PDN FEN ---------------------------------------------------------------------------------

def _colour_side(variant: Variant, letter: str) -> int:
    """Side index (0 = first mover) of a FEN colour letter."""
    first = "W" if variant.first_mover == "white" else "B"
    return 0 if letter == first else 1


def parse_fen(variant: Variant, text: str) -> Setup:
    """Read PDN FEN such as `W:W21,22,K30:B1,2,K9` (ranges `1-12` allowed) in the variant's squares."""
    body = text.strip().strip('"').rstrip(".").strip()
    parts = [p.strip() for p in body.split(":")]
    if len(parts) < 2 or parts[0].upper() not in ("W", "B"):
        raise NotationError(f"bad FEN {text!r}: expected side W or B, then ':W...' and ':B...'")
    side = _colour_side(variant, parts[0].upper())
    pieces: list[list[int]] = [[], [], [], []]   # men0, kings0, men1, kings1
    seen: set[int] = set()
    for part in parts[1:]:
        if not part:
            continue
        colour, rest = part[0].upper(), part[1:]
        if colour in ("H", "F") and rest.isdigit():
            continue   # lidraughts' halfmove clock and move number
        if colour not in ("W", "B"):
            raise NotationError(f"bad FEN section {part!r}: must start with W or B")
        base = 2 * _colour_side(variant, colour)
        for item in filter(None, (x.strip() for x in rest.split(","))):
            king = item[0].upper() == "K"
            name = item[1:] if king else item
            if "-" in name and name.replace("-", "").isdigit():
                lo, hi = (int(x) for x in name.split("-", 1))
                names = [str(n) for n in range(lo, hi + 1)]
            else:
                names = [name]
            for n in names:
                s = from_pdn_square(variant, n)
                if s in seen:
                    raise NotationError(f"bad FEN: square {n} given twice")
                seen.add(s)
                pieces[base + king].append(s)
    return Setup(side, *(tuple(sorted(p)) for p in pieces))


def format_fen(variant: Variant, setup: Setup) -> str:
    first, second = ("W", "B") if variant.first_mover == "white" else ("B", "W")
    letters = (first, second)

    def section(side: int) -> str:
        men, kings = setup[1 + 2 * side], setup[2 + 2 * side]
        items = sorted([(s, "") for s in men] + [(s, "K") for s in kings],
                       key=lambda it: _sort_key(variant, it[0]))
        return letters[side] + ",".join(k + pdn_square(variant, s) for s, k in items)

    white = 0 if first == "W" else 1
    return f"{letters[setup.side]}:{section(white)}:{section(1 - white)}"


def _sort_key(variant: Variant, s: int) -> tuple:
    name = pdn_square(variant, s)
    return (0, int(name)) if name.isdigit() else (1, name[1], name[0])


# --- Hub move strings ------------------------------------------------------------------------

class MoveText(NamedTuple):
    """A move string read into internal squares; captured is None when the string omits it."""

    frm: int
    to: int
    captured: frozenset[int] | None
    capture: bool


_MOVE_RE = re.compile(r"\d+(?:[-x:]\d+)+")


def parse_move_text(variant: Variant, text: str, notation: str = "variant") -> MoveText:
    """Read `22-18` or `26x17x22` (origin, destination, then every captured square)."""
    t = text.strip().lower()
    if not _MOVE_RE.fullmatch(t):
        raise NotationError(f"bad move {text!r}")
    nums = [int(x) for x in re.split(r"[-x:]", t)]
    squares = [square_from_number(variant, n, notation) for n in nums]
    capture = "x" in t or ":" in t
    if not capture and len(nums) != 2:
        raise NotationError(f"bad move {text!r}: a quiet move is origin-destination")
    captured = frozenset(squares[2:]) if len(squares) > 2 else None
    if captured is not None and len(captured) != len(squares) - 2:
        raise NotationError(f"bad move {text!r}: a square is captured twice")
    return MoveText(squares[0], squares[1], captured, capture)


def format_move(variant: Variant, frm: int, to: int, captured: tuple[int, ...],
                notation: str = "variant") -> str:
    """Hub move string; captured squares are printed in ascending order of their numbers."""
    a, b = square_number(variant, frm, notation), square_number(variant, to, notation)
    if not captured:
        return f"{a}-{b}"
    caps = sorted(square_number(variant, s, notation) for s in captured)
    return "x".join(str(n) for n in [a, b, *caps])
