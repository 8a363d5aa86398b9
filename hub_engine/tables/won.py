"""Won table positions, for measuring how the engine converts them:
`python -m hub_engine.tables.won --variant V [--pieces 5] [--min-distance 12] [--count 60]
[--seed 1] [--dir D] --out FILE`.

Random positions of exactly --pieces pieces with at least one man, the first mover to move and
no capture to make, that the distance tables call won for the side to move with at least
--min-distance plies to the next capture or crowning (under fresh counters). Each line of FILE
is a PDN FEN, which `hub-engine match --openings FILE` plays from once with each colour, so a match
of the engine against itself, with and without some table feature, counts the wins each makes.
"""
from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

from hub_engine.rules.notation import Setup
from hub_engine.rules.position import Position
from hub_engine.rules.variants import VARIANTS
from hub_engine.tables.probe import open_tables
from hub_engine.tables.slices import slices


def generate(variant: str, pieces: int, min_distance: int, count: int, seed: int = 1,
             path: str | Path | None = None, max_tries: int = 1_000_000) -> list[str]:
    """Up to `count` distinct FENs (fewer when max_tries draws do not find them); ValueError
    when the distance tables of that many pieces are not all there."""
    t = open_tables(variant, path)
    missing = [m.name for m in slices(pieces) if ("dtc", m) not in t.files]
    if missing:
        raise ValueError(f"no distance tables of {len(missing)} {pieces}-piece slices of "
                         f"{t.ruleset} (build them with `hub-engine tables build --variant "
                         f"{variant}`)")
    rng = random.Random(seed)
    out: list[str] = []
    for _ in range(max_tries):
        if len(out) >= count:
            break
        first = rng.randint(1, pieces - 1)
        squares = rng.sample(range(32), pieces)
        own, other = squares[:first], squares[first:]
        # men off their crowning rows: squares 28-31 for the first mover, 0-3 for the other
        own_men = [s for s in own if rng.random() < 0.5 and s < 28]
        other_men = [s for s in other if rng.random() < 0.5 and s >= 4]
        if not own_men and not other_men:
            continue
        pos = Position.from_setup(variant, Setup(0, tuple(own_men),
                                                 tuple(s for s in own if s not in own_men),
                                                 tuple(other_men),
                                                 tuple(s for s in other if s not in other_men)))
        moves = pos.legal_moves()
        if not moves or moves[0].is_capture:
            continue
        d = t.core.probe_dtc(pos.board)
        if min_distance <= d < 128 and pos.fen() not in out:
            out.append(pos.fen())
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m hub_engine.tables.won",
                                description=__doc__.splitlines()[0])
    p.add_argument("--variant", required=True, choices=sorted(VARIANTS))
    p.add_argument("--pieces", type=int, default=5, help="pieces on the board (3..5, default 5)")
    p.add_argument("--min-distance", type=int, default=12,
                   help="least plies to the next capture or crowning (1..126, default 12)")
    p.add_argument("--count", type=int, default=60)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--dir",
                   help="tables directory (default $HUB_ENGINE_TABLES or the user data dir)")
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)
    if not 3 <= args.pieces <= 5:
        p.error("--pieces must be between 3 and 5 (the sizes with distance tables)")
    if not 1 <= args.min_distance <= 126:
        p.error("--min-distance must be between 1 and 126")
    try:
        fens = generate(args.variant, args.pieces, args.min_distance, args.count, args.seed,
                        args.dir)
    except ValueError as exc:
        p.error(str(exc))
    with open(args.out, "w", encoding="utf-8") as f:
        for fen in fens:
            f.write(fen + "\n")
    print(f"{len(fens)} positions written to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
