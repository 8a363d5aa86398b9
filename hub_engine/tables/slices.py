"""Material slices, the rule-sets that own tables, and the order they are built in.

A slice is (wm, wk, bm, bk): men and kings of the side to move ("w") and of the other side ("b").
Its colour image (bm, bk, wm, wk) is solved with it: quiet moves lead from one into the other.
Captures lead into slices with fewer pieces and promotions into slices with fewer men, so pairs
are built by piece count, then by number of men, and pairs on one level do not depend on each
other (two workers can build them at once).
"""
from __future__ import annotations

from functools import lru_cache
from typing import Iterator, NamedTuple

from hub_engine.core import tb_slice_size
from hub_engine.rules.variants import VARIANTS, Variant, get_variant

MAX_PIECES = 6          # the largest tables the build command makes (RAM and time budget)
DTC_MAX_PIECES = 5      # slices up to this size also get a distance table

# Rule-sets with their own tables. Spanish plays by the portuguese rules (same rule table,
# draw counters included; tests/tables checks it), so it reads the portuguese tables.
RULESETS = ("english", "italian", "russian", "brazilian", "portuguese")


def ruleset_of(variant: Variant | str) -> str:
    """The rule-set whose tables a variant uses."""
    v = variant if isinstance(variant, Variant) else get_variant(variant)
    for name in RULESETS:
        if VARIANTS[name].core_rules.as_dict() == v.core_rules.as_dict():
            return name
    raise ValueError(f"no endgame tables for the rules of {v.name}")


def ruleset_variant(ruleset: str) -> Variant:
    if ruleset not in RULESETS:
        raise ValueError(f"unknown rule-set {ruleset!r} (one of {', '.join(RULESETS)})")
    return VARIANTS[ruleset]


class Material(NamedTuple):
    wm: int
    wk: int
    bm: int
    bk: int

    @property
    def pieces(self) -> int:
        return self.wm + self.wk + self.bm + self.bk

    @property
    def men(self) -> int:
        return self.wm + self.bm

    @property
    def kings_only(self) -> bool:
        return self.men == 0

    def image(self) -> "Material":
        return Material(self.bm, self.bk, self.wm, self.wk)

    @property
    def name(self) -> str:
        """File stem, e.g. 1201 (1 man, 2 kings to move against no man and 1 king)."""
        return f"{self.wm}{self.wk}{self.bm}{self.bk}"

    @classmethod
    def parse(cls, text: str) -> "Material":
        if len(text) != 4 or not text.isdigit():
            raise ValueError(f"bad slice name {text!r} (four digits wm wk bm bk)")
        return cls(*map(int, text))

    @property
    def size(self) -> int:
        return slice_size(self)

    def has_dtc(self, dtc_max: int = DTC_MAX_PIECES) -> bool:
        return self.pieces <= dtc_max


@lru_cache(maxsize=None)
def slice_size(m: Material) -> int:
    return tb_slice_size(*m)


def slices(pieces: int) -> Iterator[Material]:
    """Every slice of exactly `pieces` pieces (each side has one; men at most 12 a side)."""
    for w in range(1, pieces):
        b = pieces - w
        for wm in range(w + 1):
            for bm in range(b + 1):
                yield Material(wm, w - wm, bm, b - bm)


def pairs(max_pieces: int) -> list[tuple[Material, ...]]:
    """Slice pairs up to max_pieces in build order (a symmetric slice is a pair of one)."""
    out = []
    for n in range(2, max_pieces + 1):
        seen = set()
        level = []
        for m in slices(n):
            if m in seen:
                continue
            pair = (m,) if m.image() == m else (m, m.image())
            seen.update(pair)
            level.append(pair)
        level.sort(key=lambda p: (p[0].men, -sum(s.size for s in p)))
        out.extend(level)
    return out


def promotion_targets(pair: tuple[Material, ...]) -> set[Material]:
    """Slices of the same piece count that a promotion in the pair leads into."""
    out = set()
    for m in pair:
        if m.wm:
            out.add(Material(m.bm, m.bk, m.wm - 1, m.wk + 1))
    return out


def dependencies(pair: tuple[Material, ...]) -> set[Material]:
    """Every slice the pair's values are read from: all smaller slices and promotion targets."""
    n = pair[0].pieces
    deps = {m for k in range(2, n) for m in slices(k)}
    return deps | promotion_targets(pair)
