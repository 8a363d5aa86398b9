"""Openings for matches and tournaments: from a file, a standard ballot set, or random legal lines
screened for balance.

Each opening is played twice, once with each colour, so that a lopsided line costs both engines
alike. An opening is a list of strings: Hub moves from the start position, or a Hub position
string first (the position the game starts from: a ballot, an 11-man ballot that no moves from
the start reach, a line of a file) and then Hub moves from it. Lists of strings keep the state
files of matches and tournaments what they were for openings from the start.
"""
from __future__ import annotations

import argparse
import random

from hub_engine.rules.position import Game, Position


def is_position(word: str) -> bool:
    """A Hub position string or a FEN (they start with the side to move), not a Hub move."""
    return word[:1] in ("W", "B")


def start_of(opening: list[str]) -> tuple[str | None, list[str]]:
    """The position an opening starts from (None: the start position) and its moves."""
    if opening and is_position(opening[0]):
        return opening[0], opening[1:]
    return None, list(opening)


def opening_game(variant: str, opening: list[str]) -> Game:
    """The game an opening leads to: its position, then its moves played."""
    start, moves = start_of(opening)
    return Game(variant, start, moves)


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
    """One opening a line: Hub moves separated by spaces, from the start, or from a position
    (a Hub position string or a FEN) given first on the line; # starts a comment."""
    out = []
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            words = line.split()
            start = None
            try:
                if is_position(words[0]):               # a FEN has commas: one word
                    start = Position.parse(variant, words.pop(0))
                    if not start.legal_moves():
                        raise ValueError("the position has no legal move")
                game = Game(variant, start)
                for m in " ".join(words).replace(",", " ").split():
                    game.play(m)       # an illegal line stops: better than a silent bad set
            except ValueError as exc:
                raise ValueError(f"{path} line {number}: {exc}") from None
            out.append(([start.hub()] if start is not None else [])
                       + [str(m) for m in game.moves])
    return out


def ballot_openings(variant: str, set_name: str, count: int, seed: int,
                    lost: bool = False) -> list[list[str]]:
    """count openings from a standard ballot set of the variant (hub_engine/book/ballots.py:
    english-3move, english-11man, italian-11man, russian, brazilian), each position once, in an
    order shuffled by seed as a drawn ballot card picks them, repeated when count is larger;
    the ballots the set lists as lost for one side are left out unless lost. Each opening is
    the ballot's position alone. ValueError for a set the variant does not have."""
    from hub_engine.book.ballots import set_positions

    chosen = [position for _name, position in set_positions(variant, set_name, lost)]
    random.Random(seed).shuffle(chosen)
    return [[chosen[i % len(chosen)]] for i in range(count)]


def choose_openings(variant: str, count: int, args: argparse.Namespace) -> list[list[str]]:
    """The `count` openings the options of add_arguments ask for: the file's lines in turn
    (repeated when the file has fewer), a ballot set's, or random ones. ValueError on an empty
    file or a ballot set the variant does not have."""
    if args.openings and args.ballots:
        raise ValueError("--openings and --ballots exclude each other")
    if args.ballots:
        return ballot_openings(variant, args.ballots, count, args.seed, lost=args.lost_ballots)
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
    p.add_argument("--seed", type=int, default=1,
                   help="seed of the random openings, or of the order of --ballots (default 1)")
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
    p.add_argument("--openings", help="file of openings, one a line: Hub moves from the start, or "
                                      "a position (Hub string or FEN) and then Hub moves")
    p.add_argument("--ballots", metavar="SET",
                   help="openings from a standard ballot set, each with both colours, in an "
                        "order shuffled by --seed: english-3move, english-11man (english), "
                        "italian-11man, russian, brazilian")
    p.add_argument("--lost-ballots", action="store_true",
                   help="with --ballots, keep the ballots the set lists as lost for one side "
                        "(left out by default)")
