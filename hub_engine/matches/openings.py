"""Openings for matches and tournaments: from a file, or random legal lines screened for balance.

Each opening is played twice, once with each colour, so that a lopsided line costs both engines
alike.
"""
from __future__ import annotations

import argparse
import random

from hub_engine.rules.position import Game


def is_balanced(game: Game) -> bool:
    """Equal material and no capture for the side to move: no side starts a piece up."""
    s = game.position.setup()
    if len(s.men0) + len(s.kings0) != len(s.men1) + len(s.kings1):
        return False
    return not any(m.is_capture for m in game.legal_moves())


def opening_score(game: Game, depth: int) -> float:
    """Our search's score of the position, in men for the side to move, at a fixed depth."""
    from hub_engine.engine.bench import search_position

    return search_position(game.variant.name, game.position.hub(), depth, tt_log2=16)["score"] / 100


def random_openings(variant: str, count: int, plies: int, seed: int, balanced: bool = True,
                    check_depth: int = 10, max_score: float = 0.5,
                    min_score: float = 0.0) -> list[list[str]]:
    """count distinct openings of `plies` random legal plies from the start (fixed seed).

    balanced keeps only lines that end with equal material and no capture to make, and (with
    check_depth > 0) that our search at that depth scores within +/- max_score men: random plies
    often walk into a shot (e.g. 12-16 24-20 11-14 20-15, where 14-19 wins a man by force).
    min_score > 0 keeps only lines scored at least that far from level, for either side: an
    engine that draws every balanced game against itself still wins or loses some of these, so a
    match between two of its versions can tell them apart (the idea of fishtest's unbalanced
    opening books); each line is played with both colours, so the edge cancels.
    """
    if min_score > max_score:
        raise ValueError(f"--opening-min-score {min_score} is above --opening-max-score {max_score}")
    if min_score > 0 and (not balanced or check_depth <= 0):
        raise ValueError("--opening-min-score needs the search screen (no --unbalanced, "
                         "--opening-depth above 0)")
    rng = random.Random(seed)
    found: list[list[str]] = []
    seen: set[tuple[str, ...]] = set()
    tries = 0
    while len(found) < count and tries < count * 200:
        tries += 1
        game = Game(variant)
        line: list[str] = []
        for _ in range(plies):
            legal = game.legal_moves()
            if not legal or game.draw_reason():
                break
            m = rng.choice(legal)
            game.play(m)
            line.append(str(m))
        if len(line) < plies or not game.legal_moves() or tuple(line) in seen:
            continue
        if balanced and not is_balanced(game):
            continue
        if balanced and check_depth > 0 and not (
                min_score <= abs(opening_score(game, check_depth)) <= max_score):
            continue
        seen.add(tuple(line))
        found.append(line)
    while len(found) < count:          # fewer distinct lines than asked: reuse them
        found.append(list(found[len(found) % max(1, len(found))]) if found else [])
    return found


def read_openings(path: str, variant: str) -> list[list[str]]:
    """One opening a line: Hub moves from the start separated by spaces; # starts a comment."""
    out = []
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            moves = line.replace(",", " ").split()
            game = Game(variant)
            try:
                for m in moves:
                    game.play(m)       # an illegal line stops: better than a silent bad set
            except ValueError as exc:
                raise ValueError(f"{path} line {number}: {exc}") from None
            out.append([str(m) for m in game.moves])
    return out


def choose_openings(variant: str, count: int, args: argparse.Namespace) -> list[list[str]]:
    """The `count` openings the options of add_arguments ask for: the file's lines in turn
    (repeated when the file has fewer), or random ones. ValueError on an empty file."""
    if args.openings:
        lines = read_openings(args.openings, variant)
        if not lines:
            raise ValueError(f"no opening in {args.openings}")
        return [lines[i % len(lines)] for i in range(count)]
    return random_openings(variant, count, args.opening_plies, args.seed,
                           balanced=not args.unbalanced, check_depth=args.opening_depth,
                           max_score=args.opening_max_score, min_score=args.opening_min_score)


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The opening options `match` and `tournament` share."""
    p.add_argument("--seed", type=int, default=1, help="seed of the random openings (default 1)")
    p.add_argument("--opening-plies", type=int, default=4,
                   help="random legal plies from the start per opening (default 4)")
    p.add_argument("--unbalanced", action="store_true",
                   help="keep random openings that leave a side a piece up, a capture to make or "
                        "a score beyond --opening-max-score (by default they are skipped)")
    p.add_argument("--opening-depth", type=int, default=10,
                   help="depth of our search that screens random openings (0 = no search; "
                        "default 10)")
    p.add_argument("--opening-max-score", type=float, default=0.5,
                   help="keep random openings our search scores within +/- this many men "
                        "(default 0.5)")
    p.add_argument("--opening-min-score", type=float, default=0.0,
                   help="keep only random openings our search scores at least this many men "
                        "from level, for either side (default 0: balanced games; e.g. 0.2 with "
                        "--opening-max-score 0.6 for decisive games between close versions)")
    p.add_argument("--openings", help="file of openings, one a line (Hub moves from the start)")
