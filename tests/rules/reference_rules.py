"""A small, slow, independent move generator written straight from rules.md (sections 1-3).

It shares nothing with hub_engine: squares are (file, rank) pairs in the test frame of
rules_helpers (first mover at the bottom moving up, dark corner a1 at its lower left; mirrored
variants are the left-right mirror image), pieces live in a dict, and captures are found by plain
recursion. It exists to be an oracle for portuguese and spanish, which no Python library
implements, and a second opinion for the other four variants.
"""
from __future__ import annotations

from dataclasses import dataclass

from rules_helpers import FILES, number

DIRS = ((-1, 1), (1, 1), (-1, -1), (1, -1))


@dataclass(frozen=True)
class Rules:
    flying: bool
    men_back: bool
    precedence: str      # none | quantity | quality | italian
    crowning: str        # end | pass | king
    men_take_kings: bool


RULES = {   # rules.md section 1 table
    "brazilian": Rules(True, True, "quantity", "pass", True),
    "russian": Rules(True, True, "none", "king", True),
    "portuguese": Rules(True, False, "quality", "end", True),
    "spanish": Rules(True, False, "quality", "end", True),
    "italian": Rules(False, False, "italian", "end", False),
    "english": Rules(False, False, "none", "end", True),
}

Square = tuple   # (file 0..7, rank 0..7)


def name(sq: Square) -> str:
    return f"{FILES[sq[0]]}{sq[1] + 1}"


def squares_of_layout(variant: str) -> list[Square]:
    """Test-frame square of each Hub layout square 1..32 (index 0 = layout 1)."""
    out = []
    for k in range(1, 33):
        rank = 7 - (k - 1) // 4
        idx = (k - 1) % 4
        if variant in ("italian", "portuguese", "spanish"):
            real_file = 2 * idx + (1 - rank % 2)       # light corner at the lower left
            out.append((7 - real_file, rank))
        else:
            out.append((2 * idx + rank % 2, rank))
    return out


class Board:
    def __init__(self, variant: str, hub: str):
        self.variant = variant
        self.rules = RULES[variant]
        self.side = 0 if hub[0] == "W" else 1
        self.pieces: dict[Square, tuple[int, bool]] = {}
        for sq, ch in zip(squares_of_layout(variant), hub[1:]):
            if ch in "wW":
                self.pieces[sq] = (0, ch == "W")
            elif ch in "bB":
                self.pieces[sq] = (1, ch == "B")

    # --- move generation -------------------------------------------------------------------
    def moves(self) -> list[tuple]:
        """Legal moves as (origin, destination, captured tuple in capture order, promote)."""
        seqs = []
        for sq, (side, king) in list(self.pieces.items()):
            if side == self.side:
                seqs += self._captures_from(sq, king)
        if seqs:
            return self._precedence(seqs)
        return self._quiet()

    def _on(self, sq):
        return 0 <= sq[0] < 8 and 0 <= sq[1] < 8

    def _promo_rank(self):
        return 7 if self.side == 0 else 0

    def _captures_from(self, origin, king):
        out = []
        mover = self.pieces.pop(origin)          # the moving piece leaves its square
        try:
            self._search(origin, origin, king, [], False, out)
        finally:
            self.pieces[origin] = mover
        return [(o, d, tuple(c), p, king) for o, d, c, p in out]

    def _jumps(self, sq, king, captured):
        """(captured square, [landing squares]) for every first jump from sq."""
        r = self.rules
        res = []
        for df, dr in DIRS:
            if not king and not r.men_back and dr != (1 if self.side == 0 else -1):
                continue
            x = (sq[0] + df, sq[1] + dr)
            if king and r.flying:
                while self._on(x) and x not in self.pieces:
                    x = (x[0] + df, x[1] + dr)
            if not self._on(x) or x not in self.pieces:
                continue
            side, is_king = self.pieces[x]
            if side == self.side or x in captured:
                continue                           # own piece, or already taken: it blocks
            if not king and is_king and not r.men_take_kings:
                continue
            lands = []
            y = (x[0] + df, x[1] + dr)
            while self._on(y) and y not in self.pieces:
                lands.append(y)
                if not (king and r.flying):
                    break
                y = (y[0] + df, y[1] + dr)
            if lands:
                res.append((x, lands))
        return res

    def _search(self, origin, sq, king, captured, promoted, out):
        r = self.rules
        jumps = self._jumps(sq, king, captured)
        if not jumps:
            return False
        for x, lands in jumps:
            caps = captured + [x]
            options = []
            for y in lands:
                options.append((y, self._continues(y, king, caps)))
            if king and r.flying and any(c for _, c in options):
                options = [(y, c) for y, c in options if c]
            for y, _ in options:
                if not king and y[1] == self._promo_rank():
                    if r.crowning == "end":
                        out.append((origin, y, caps, True))
                        continue
                    if r.crowning == "king":
                        if not self._search(origin, y, True, caps, True, out):
                            out.append((origin, y, caps, True))
                        continue
                    # pass: on as a man; crowned only if the move ends here
                    if not self._search(origin, y, False, caps, False, out):
                        out.append((origin, y, caps, True))
                    continue
                if not self._search(origin, y, king, caps, promoted, out):
                    out.append((origin, y, caps, promoted))
        return True

    def _continues(self, y, king, caps):
        if not king and y[1] == self._promo_rank():
            if self.rules.crowning == "end":
                return False
            king = self.rules.crowning == "king"
        return bool(self._jumps(y, king, caps))

    def _precedence(self, seqs):
        r = self.rules

        def kings(c):
            return [self.pieces[x][1] for x in c]

        if r.precedence == "quantity":
            key = lambda s: len(s[2])
        elif r.precedence == "quality":
            key = lambda s: (len(s[2]), sum(kings(s[2])))
        elif r.precedence == "italian":
            key = lambda s: (len(s[2]), s[4], sum(kings(s[2])), tuple(kings(s[2])))
        else:
            key = lambda s: 0
        best = max(key(s) for s in seqs)
        merged = {}
        for s in seqs:
            if key(s) == best:
                merged.setdefault((s[0], s[1], frozenset(s[2]), s[3]), s[:4])
        return list(merged.values())

    def _quiet(self):
        out = []
        fwd = 1 if self.side == 0 else -1
        for sq, (side, king) in self.pieces.items():
            if side != self.side:
                continue
            for df, dr in DIRS:
                if not king and dr != fwd:
                    continue
                y = (sq[0] + df, sq[1] + dr)
                while self._on(y) and y not in self.pieces:
                    out.append((sq, y, (), not king and y[1] == self._promo_rank()))
                    if not (king and self.rules.flying):
                        break
                    y = (y[0] + df, y[1] + dr)
        return out

    # --- playing ---------------------------------------------------------------------------
    def play(self, move) -> "Board":
        origin, dest, caps, promote = move
        b = Board.__new__(Board)
        b.variant, b.rules = self.variant, self.rules
        b.pieces = dict(self.pieces)
        side, king = b.pieces.pop(origin)
        for x in caps:
            del b.pieces[x]
        b.pieces[dest] = (side, king or promote)
        b.side = 1 - self.side
        return b

    def perft(self, depth: int) -> int:
        if depth == 0:
            return 1
        moves = self.moves()
        if depth == 1:
            return len(moves)
        return sum(self.play(m).perft(depth - 1) for m in moves)


def hub_strings(variant: str, hub: str) -> set[str]:
    """Legal moves of a Hub position as Hub move strings in the variant's numbers."""
    out = set()
    for o, d, caps, _ in Board(variant, hub).moves():
        a, b = number(variant, name(o)), number(variant, name(d))
        if caps:
            out.add("x".join(map(str, [a, b, *sorted(number(variant, name(x)) for x in caps)])))
        else:
            out.add(f"{a}-{b}")
    return out
