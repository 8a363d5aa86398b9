"""Random positions and weights for the learned-evaluation tests."""
from __future__ import annotations

import random
from array import array

from hub_engine.core import CoreBoard, EndingValues, PatternWeights, Searcher, TransTable, eval_weights
from hub_engine.learn import patterns as P
from hub_engine.rules.variants import get_variant


def random_position(rng: random.Random, balanced: bool = False) -> tuple[int, int, int, int]:
    """(white mask, black mask, kings mask, side): men never on their crowning row; balanced:
    material within a man and a king of equal."""
    squares = list(range(P.NSQ))
    rng.shuffle(squares)
    n0, n1 = rng.randint(0, 12), rng.randint(0, 12)
    k0, k1 = rng.choice((0, 0, 0, 1, 2, 3)), rng.choice((0, 0, 0, 1, 2, 3))
    if balanced:
        n1 = max(0, min(12, n0 + rng.randint(-1, 1)))
        k1 = max(0, k0 + rng.randint(-1, 1)) if k0 else rng.choice((0, 0, 1))
    white = black = kings = 0
    taken = set()

    def place(count: int, allowed) -> int:
        mask = 0
        for s in squares:
            if count == 0:
                break
            if s not in taken and allowed(s):
                taken.add(s)
                mask |= 1 << s
                count -= 1
        rng.shuffle(squares)
        return mask

    wm = place(n0, lambda s: P.row(s) < P.ROWS - 1)
    bm = place(n1, lambda s: P.row(s) > 0)
    wk = place(k0, lambda s: True)
    bk = place(k1, lambda s: True)
    white, black, kings = wm | wk, bm | bk, wk | bk
    return white, black, kings, rng.randint(0, 1)


def random_ending(rng: random.Random) -> tuple[int, int, int, int]:
    """A random position of 2 to P.ENDING_PIECES + 1 pieces, kings on either side or none."""
    squares = rng.sample(range(P.NSQ), rng.randint(2, P.ENDING_PIECES + 1))
    white = black = kings = 0
    for i, s in enumerate(squares):
        own = i % 2 == 0 if i < 2 else rng.random() < 0.5       # each side has a piece
        king = rng.random() < 0.4 or P.row(s) == (P.ROWS - 1 if own else 0)
        if own:
            white |= 1 << s
        else:
            black |= 1 << s
        if king:
            kings |= 1 << s
    return white, black, kings, rng.randint(0, 1)


def random_endings(rng: random.Random) -> list[int]:
    """Random ending values, within +-3 men."""
    return [rng.randint(-300, 300) for _ in range(P.ENDING_ENTRIES)]


def random_values(rng: random.Random, scale: int = 2000) -> list[int]:
    n = (P.N_TABLES * P.ENTRIES + len(P.SCALARS)) * 2
    return [rng.randint(-scale, scale) for _ in range(n)]


def board_of(variant: str, white: int, black: int, kings: int, side: int) -> CoreBoard:
    def squares(m):
        return [s for s in range(P.NSQ) if m >> s & 1]
    rules = get_variant(variant).core_rules
    return CoreBoard(rules, side, squares(white & ~kings), squares(white & kings),
                     squares(black & ~kings), squares(black & kings))


def compiled_searcher(variant: str, values: list[int], endings: list[int] | None = None) -> Searcher:
    weights = {**eval_weights(variant), "learned": PatternWeights(array("h", values).tobytes())}
    if endings is not None:
        weights["endings"] = EndingValues(array("h", endings).tobytes())
    return Searcher(get_variant(variant).core_rules, TransTable(12), weights)
