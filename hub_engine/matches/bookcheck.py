"""`hub-engine book-check`: the book's moves against a timed search's, judged by a longer search.

Why: a book move replaces a search, and is worth playing only where it is at least as good. A
match between book on and book off measures that through game results, which at a fixed time a
move are nearly all draws; this measures it move by move. Positions are drawn the way games reach
them: from a root (a ballot of a set, or the start position when the variant has none), book
moves are played as the engine picks them (`book-margin`'s softmax) until the book ends, and one
position of that line where the side to move has a choice is kept. There the book's move B (as
the engine would pick it) and the move S of a `--move-time` search of a Hub engine with its book
off are compared; when they differ, the engine searches the position after each for `--ref-time`
(a forced reply is played first, since an engine answers it without a search), and S - B is the
difference of the two values, in centi-men from the mover's view: above 0 the search's move was
the better one. The summary groups positions by the height of the book's move (how many plies
its best line goes on in the book): a move at the book's frontier (height 0) was chosen by
fixed-node searches one ply below, a move deeper inside by a minimax over many of them.
"""
from __future__ import annotations

import argparse
import math
import random
import shlex
import sys
from dataclasses import dataclass
from typing import TextIO

from hub_engine.book.ballots import ballot_sets, set_positions
from hub_engine.book.play import DEFAULT_MARGIN, Book, choose, load_book
from hub_engine.matches.engines import MatchEngine, parse_params
from hub_engine.program import self_command
from hub_engine.rules.position import Game
from hub_engine.rules.variants import VARIANTS, get_variant
from protocol.client import EngineError

HEIGHTS = (("0", 0, 0), ("1-3", 1, 3), ("4-7", 4, 7), ("8+", 8, 10**6))   # of the book move
NOISE = 5                                          # centi-men: "better" beyond this


@dataclass
class Checked:
    """One position: the book's move and the search's, and their values when they differ."""
    position: str
    root: str
    ply: int              # plies of book moves from the root
    book: str
    height: int
    search: str
    book_value: float | None = None      # centi-men, the mover's view, by the longer search
    search_value: float | None = None

    @property
    def difference(self) -> float | None:
        """S - B in centi-men: 0 for the same move, None when a value is missing."""
        if self.search == self.book:
            return 0.0
        if self.book_value is None or self.search_value is None:
            return None
        return self.search_value - self.book_value


def roots_of(variant: str, ballot_set: str | None) -> list[tuple[str, str]]:
    """(name, Hub position) of each root: the set's ballots not listed as lost (by default the
    variant's first set), or the start position for a variant without a set."""
    name = get_variant(variant).name
    sets = ballot_sets(name)
    if ballot_set is None and not sets:
        return [("start", Game(name).position.hub())]
    return set_positions(name, ballot_set or sets[0])


def sample_positions(variant: str, book: Book, roots: list[tuple[str, str]], count: int,
                     seed: int, margin: int = DEFAULT_MARGIN) -> list[tuple[str, str, int, object]]:
    """count (root name, position, ply, book move) drawn as the docstring of the module says;
    the same seed gives the same positions, each once. Roots are used in a shuffled order,
    again when count is larger (other picks give other lines); a line without a choice, or
    whose drawn position was drawn before, is skipped, so fewer may come back."""
    rng = random.Random(seed)
    order = list(roots)
    rng.shuffle(order)
    out = []
    seen: set[str] = set()
    tries = 0
    while len(out) < count and tries < 3 * count + len(order):
        name, position = order[tries % len(order)]
        tries += 1
        game = Game(variant, position)
        line = []
        while not game.draw_reason():
            moves = book.moves(game.position)
            if not moves:
                break
            picked = choose(moves, margin, rng)
            line.append((game.position.hub(), len(game.moves), picked, len(moves)))
            game.play(picked.move)
        choices = [x for x in line if x[3] > 1]
        if not choices:
            continue
        pos, ply, picked, _n = rng.choice(choices)
        if pos not in seen:
            seen.add(pos)
            out.append((name, pos, ply, picked))
    return out


def value_after(engine: MatchEngine, position: str, move: str, seconds: float,
                variant: str) -> float | None:
    """The engine's value of `move` at `position` in centi-men for the mover, from a search of
    the position after it (forced replies played first); None at a game's end or no score."""
    line, sign = [move], -1
    game = Game(variant, position, line)
    while len(game.legal_moves()) == 1 and not game.draw_reason():
        forced = str(game.legal_moves()[0])
        game.play(forced)
        line.append(forced)
        sign = -sign
    if not game.legal_moves() or game.draw_reason():
        return None
    engine.new_game()
    reply = engine.go(position, line, f"move-time={seconds:g}", seconds + 10)
    return None if reply.score is None else sign * reply.score * 100


def check(args: argparse.Namespace, out: TextIO) -> list[Checked]:
    """Compare the book's moves with the search's at --positions positions; print each."""
    variant = get_variant(args.variant)
    book, errors = load_book(variant, args.book_path or "default")
    if book is None:
        raise ValueError("; ".join(errors) or f"no book for {variant.name}")
    roots = roots_of(variant.name, args.ballots)
    sample = sample_positions(variant.name, book, roots, args.positions, args.seed, args.margin)
    params = [("book", "false"), *parse_params(args.param, "book-check")]
    command = args.engine or shlex.join(self_command())
    engine = MatchEngine(command, "engine", variant.name, params)
    engine.ensure_started()
    results = []
    try:
        for k, (root, position, ply, picked) in enumerate(sample, 1):
            engine.new_game()
            reply = engine.go(position, [], f"move-time={args.move_time:g}", args.move_time + 10)
            c = Checked(position, root, ply, str(picked.move), picked.height, reply.move)
            if c.search != c.book:
                c.book_value = value_after(engine, position, c.book, args.ref_time, variant.name)
                c.search_value = value_after(engine, position, c.search, args.ref_time,
                                             variant.name)
            d = c.difference
            print(f"position {k:4d}/{len(sample)} {root!r} ply={ply} book={c.book} "
                  f"height={c.height} search={c.search} "
                  f"S-B={'-' if d is None else f'{d:+.0f}'} pos={position}", file=out, flush=True)
            results.append(c)
    finally:
        engine.quit()
    return results


def summary(results: list[Checked]) -> list[str]:
    """One line per height class and one for all: positions, same move, S - B mean with its
    95% interval (over the positions with a value), positions where each side was better."""
    lines = []
    for label, lo, hi in (*HEIGHTS, ("all", 0, 10**6)):
        group = [c for c in results if lo <= c.height <= hi]
        diffs = [c.difference for c in group if c.difference is not None]
        mean = sum(diffs) / len(diffs) if diffs else 0.0
        var = sum((x - mean) ** 2 for x in diffs) / (len(diffs) - 1) if len(diffs) > 1 else 0.0
        error = 1.96 * math.sqrt(var / len(diffs)) if diffs else 0.0
        same = sum(c.search == c.book for c in group)
        lines.append(f"height {label:>4}: positions={len(group)} same={same} "
                     f"S-B={mean:+.1f} +/- {error:.1f} cm (95%, {len(diffs)} valued) "
                     f"search-better={sum(x > NOISE for x in diffs)} "
                     f"book-better={sum(x < -NOISE for x in diffs)}")
    return lines


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--variant", choices=sorted(VARIANTS), default="brazilian",
                   help="rules, and so the book (default brazilian)")
    p.add_argument("--ballots", metavar="SET",
                   help="roots: this ballot set of the variant (default: its first set; the "
                        "start position for a variant without one)")
    p.add_argument("--positions", type=int, default=200, help="positions to check (default 200)")
    p.add_argument("--move-time", type=float, default=0.5,
                   help="seconds of the search the book replaces (default 0.5)")
    p.add_argument("--ref-time", type=float, default=3.0,
                   help="seconds of the search that values both moves (default 3)")
    p.add_argument("--margin", type=int, default=DEFAULT_MARGIN,
                   help=f"book-margin of the book's picks (default {DEFAULT_MARGIN})")
    p.add_argument("--seed", type=int, default=1, help="seed of the positions (default 1)")
    p.add_argument("--engine", help="Hub engine command (default: this program); its book is "
                                    "turned off with set-param book=false")
    p.add_argument("--param", action="append", metavar="NAME=VALUE",
                   help="set-param for the engine (repeatable)")
    p.add_argument("--book-path", metavar="DIR",
                   help="directory of <rule-set>.book (default: where the engine finds its book)")


def add_parser(sub) -> None:
    p = sub.add_parser("book-check", help="the book's moves against a timed search's, judged "
                                          "by a longer search",
                       description=__doc__.split("\n\n")[0])
    add_arguments(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    if not 1 <= args.positions <= 100_000:
        print("book-check: error: --positions must be 1 to 100000", file=sys.stderr)
        return 2
    if not (0 < args.move_time <= 3600 and 0 < args.ref_time <= 3600):
        print("book-check: error: --move-time and --ref-time must be above 0 (at most 3600)",
              file=sys.stderr)
        return 2
    try:
        results = check(args, out)
    except (ValueError, EngineError) as exc:
        print(f"book-check: error: {exc}", file=sys.stderr)
        return 1
    for line in summary(results):
        print(line, file=out)
    return 0
