"""Openings that reach endings, for measuring what the tables are worth:
`python -m hub_engine.tables.endings --variant V [--pieces 8] [--count 30] --out FILE`.

Self-play from the start position (a few random plies, then shallow searches with a random
choice among the moves within --margin of the best) until at most --pieces pieces are left and
the side to move has no capture; a position our depth-10 search scores within +/- --max-score is
kept. Each line of FILE is the game's moves from the start, which is what
`hub-engine match --openings FILE` reads, so a match between the engine with tables and without
starts every game in a balanced ending.
"""
from __future__ import annotations

import argparse
import random
import sys

from hub_engine.core import INF, Searcher, TransTable, eval_weights
from hub_engine.rules.position import Game
from hub_engine.rules.variants import VARIANTS, get_variant


def _score(searcher: Searcher, game: Game, depth: int) -> int:
    b = game.position.board
    return searcher.iterate(b, depth, -INF, INF, game.history_hashes()[:-1], game.counters, 0.0,
                            0)[0]


def generate(variant: str, pieces: int, count: int, seed: int = 1, margin: int = 30,
             max_score: float = 0.6, max_tries: int = 2000) -> list[list[str]]:
    """Up to `count` distinct move lists from the start that end in a balanced ending."""
    v = get_variant(variant)
    tt = TransTable(18)
    searcher = Searcher(v.core_rules, tt, eval_weights(v.name))
    rng = random.Random(seed)
    out, seen = [], set()
    for _ in range(max_tries):
        if len(out) >= count:
            break
        game = Game(v)
        for _ in range(rng.randint(2, 6)):
            game.play(rng.choice(game.legal_moves()))
        while game.result() is None and sum(map(len, game.position.board.pieces())) > pieces:
            scored = []
            for m in game.legal_moves():
                game.play(m)
                scored.append((-_score(searcher, game, 3), m))
                game.undo()
            best = max(s for s, _ in scored)
            game.play(rng.choice([m for s, m in scored if s >= best - margin]))
        pos = game.position
        if game.result() is not None or pos.hub() in seen:
            continue
        if sum(map(len, pos.board.pieces())) > pieces or any(m.is_capture for m in pos.legal_moves()):
            continue
        tt.clear()
        if abs(_score(searcher, game, 10)) > max_score * 100:
            continue
        seen.add(pos.hub())
        out.append([str(m) for m in game.moves])
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m hub_engine.tables.endings",
                                description=__doc__.splitlines()[0])
    p.add_argument("--variant", required=True, choices=sorted(VARIANTS))
    p.add_argument("--pieces", type=int, default=8)
    p.add_argument("--count", type=int, default=30)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--max-score", type=float, default=0.6)
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)
    lines = generate(args.variant, args.pieces, args.count, args.seed, max_score=args.max_score)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(f"# {args.variant}: {len(lines)} openings reaching <= {args.pieces} pieces "
                f"(python -m hub_engine.tables.endings, seed {args.seed})\n")
        for moves in lines:
            f.write(" ".join(moves) + "\n")
    print(f"{len(lines)} openings written to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
