"""`hub-engine book build|probe|info|unpack`: build a rule-set's book, look a position up,
describe a book (counts, ballot coverage, the start position's main line), turn a book back into
a build log (to grow the packaged books)."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from hub_engine.tables.slices import RULESETS


def _ruleset(name: str) -> str:
    from hub_engine.rules.variants import get_variant
    from hub_engine.tables.slices import ruleset_of

    return ruleset_of(get_variant(name))


def add_parser(sub) -> None:
    from hub_engine.book.build import DEFAULT_BALLOT_PRIORITY, DEFAULT_NODES, SAVE_EVERY
    from hub_engine.book.tree import DEFAULT_W
    from hub_engine.rules.variants import VARIANTS

    book = sub.add_parser("book", help="opening books: build, probe, info, unpack (docs/book.md)")
    steps = book.add_subparsers(dest="book_command", required=True, metavar="STEP",
                                parser_class=type(book))
    b = steps.add_parser("build", help="grow a rule-set's book by drop-out expansion (resumable)")
    b.set_defaults(handler=_build, interrupted="hub-engine book: interrupted; the book was "
                   "written; the same command resumes")
    b.add_argument("--variant", required=True, choices=sorted(VARIANTS),
                   help="rules of the book (spanish: the portuguese book)")
    b.add_argument("--dir", help="books directory (default: $HUB_ENGINE_BOOKS or the user data "
                                 "directory); the log is DIR/work/<rule-set>.log")
    size = b.add_mutually_exclusive_group(required=True)
    size.add_argument("--positions", type=int, help="score this many more positions")
    size.add_argument("--total", type=int, help="score positions until the book holds this many")
    b.add_argument("--nodes", type=int, default=DEFAULT_NODES,
                   help="node budget of each scoring search (fixed for a book)")
    b.add_argument("--eval", default="learned",
                   help="evaluation of the searches: learned, hand or a weight file (fixed for "
                        "a book)")
    b.add_argument("--w", type=float, default=DEFAULT_W,
                   help="drop-out weight: plies of priority per centi-man a move is behind the "
                        "best (small: wide book, large: deep main lines)")
    b.add_argument("--ballot-priority", type=float, default=DEFAULT_BALLOT_PRIORITY,
                   help="priority of the ballot roots, in plies (the start position has 0)")
    b.add_argument("--main-line", type=int, default=0, metavar="PLIES",
                   help="make every root's main line this many plies deep (root after root), "
                        "then stop, instead of growing by priority (0: off)")
    b.add_argument("--ballots", metavar="FILE", action="append", default=[],
                   help="more roots: a file of positions (Hub string or PDN FEN, then a name)")
    b.add_argument("--workers", type=int, default=1,
                   help="local processes (1: search in this process)")
    b.add_argument("--scheduler", metavar="ADDRESS",
                   help="a Dask scheduler (tcp://host:port) instead of local processes")
    b.add_argument("--save-every", type=float, default=SAVE_EVERY,
                   help="seconds between book files written during the build")
    b.add_argument("--no-progress", action="store_true", help="no progress bar")

    u = steps.add_parser("unpack", help="write a build log from a book (the packaged one by "
                         "default), so that `book build` grows it")
    u.set_defaults(handler=_unpack)
    u.add_argument("--variant", required=True, choices=sorted(VARIANTS), help="rules")
    u.add_argument("--dir", help="books directory to write DIR/work/<rule-set>.log in (default: "
                                 "as `book build`)")
    u.add_argument("--file", help="the book file (default: the book shipped in the package)")
    u.add_argument("--eval", default="learned",
                   help="the evaluation the book was built with (default learned)")
    u.add_argument("--ballots", metavar="FILE", action="append", default=[],
                   help="more roots the book was built with (as `book build --ballots`)")

    for name, text, handler in (
            ("probe", "the book's moves at a position", _probe),
            ("info", "what a book holds: counts, ballot coverage, main line", _info)):
        p = steps.add_parser(name, help=text)
        p.set_defaults(handler=handler)
        p.add_argument("--variant", required=True, choices=sorted(VARIANTS), help="rules")
        where = p.add_mutually_exclusive_group()
        where.add_argument("--dir", help="a books directory: its book only (default: as the "
                           "engine looks, then the packaged book)")
        where.add_argument("--file", help="a book file")
        if name == "probe":
            p.add_argument("--pos", help="Hub position string or PDN FEN (default: the start)")
            p.add_argument("--moves", default="", help="moves played from there (Hub strings)")
        else:
            p.add_argument("--lines", type=int, default=30,
                           help="plies of the start position's main line to print")
            p.add_argument("--main-line", type=int, default=12, metavar="PLIES",
                           help="count the ballots whose main line is at least this deep")


def _warn_new_book(ruleset: str, directory: Path) -> None:
    """A build without a log starts a new book, which the engine then plays instead of the
    shipped one: say so, and how to grow the shipped one instead."""
    from hub_engine.book import store

    if store.log_path(directory, ruleset).exists() or not store.packaged_path(ruleset).exists():
        return
    print(f"hub-engine: no build log in {directory}: starting a new {ruleset} book, which the "
          "engine will play instead of the shipped one; to grow the shipped book, run "
          f"`hub-engine book unpack --variant {ruleset}` first", file=sys.stderr)


def _build(args: argparse.Namespace) -> int:
    from hub_engine.book import store
    from hub_engine.book.build import Settings, build, read_roots
    from hub_engine.learn.weights import evaluation

    ruleset = _ruleset(args.variant)
    count = args.positions if args.positions is not None else args.total
    if count < 0 or args.nodes < 1 or args.workers < 1 or args.w < 0 or args.main_line < 0:
        raise ValueError("--positions/--total must be >= 0, --nodes and --workers positive, "
                         "--w and --main-line >= 0")
    evaluation(ruleset, args.eval)             # a bad --eval fails here, not in the workers
    extra = [r for path in args.ballots for r in read_roots(Path(path), ruleset)]
    _warn_new_book(ruleset, store.books_dir(args.dir))
    s = build(Settings(ruleset, args.nodes, args.eval), args.dir, positions=args.positions,
              total=args.total, w=args.w, ballot_priority=args.ballot_priority,
              extra_roots=extra, line_plies=args.main_line, workers=args.workers,
              scheduler=args.scheduler, progress=False if args.no_progress else None,
              save_every=args.save_every)
    keys = ("ruleset", "scored", "total", "expanded", "seconds", "cpu_seconds",
            "positions_per_hour", "positions_per_core_hour", "mean_depth", "mean_nodes", "book")
    if args.main_line:
        keys = keys[:4] + ("main_line", "short_lines") + keys[4:]
    print(" ".join(f"{k}={s[k]}" for k in keys))
    return 0


def _unpack(args: argparse.Namespace) -> int:
    from hub_engine.book import store
    from hub_engine.book.build import read_roots
    from hub_engine.book.fileformat import read_book, rules_fingerprint
    from hub_engine.book.unpack import unpack
    from hub_engine.learn.weights import evaluation
    from hub_engine.rules.variants import get_variant

    ruleset = _ruleset(args.variant)
    evaluation(ruleset, args.eval)
    path = Path(args.file) if args.file else store.packaged_path(ruleset)
    data = read_book(path, ruleset=ruleset,
                     fingerprint=rules_fingerprint(get_variant(args.variant).core_rules))
    extra = [r for name in args.ballots for r in read_roots(Path(name), ruleset)]
    s = unpack(data, store.books_dir(args.dir), args.eval, extra)
    print(" ".join(f"{k}={v}" for k, v in s.items()))
    if s["unreached"]:
        print(f"hub-engine: {s['unreached']} of the book's positions hang from no expanded "
              "position (moves of an expansion a killed build left unfinished, or roots of "
              "--ballots files not given here): left out", file=sys.stderr)
    return 0


def _open(args: argparse.Namespace):
    from hub_engine.book import store
    from hub_engine.book.fileformat import read_book, rules_fingerprint
    from hub_engine.book.play import DEFAULT_PATH, Book, load_book
    from hub_engine.datafiles import existing
    from hub_engine.rules.variants import get_variant

    variant = get_variant(args.variant)
    path = Path(args.file) if args.file else None
    if args.dir:                            # that directory's book only, not the packaged one
        path = existing(store.book_path(store.books_dir(args.dir), _ruleset(args.variant)))
        if path is None:
            raise ValueError(f"no book for {args.variant} in {args.dir} (build one: "
                             "hub-engine book build)")
    if path is not None:
        data = read_book(path, ruleset=_ruleset(args.variant),
                         fingerprint=rules_fingerprint(variant.core_rules))
        return variant, Book(data, path)
    book, errors = load_book(variant, DEFAULT_PATH)
    for e in errors:
        print(f"hub-engine: {e}", file=sys.stderr)
    if book is None:
        raise ValueError(f"no book for {args.variant} (build one: hub-engine book build)")
    return variant, book


def _score(value: int) -> str:
    from hub_engine.core import score_to_hub

    return f"{score_to_hub(value):+.2f}"


def _probe(args: argparse.Namespace) -> int:
    from hub_engine.book.keys import board_key
    from hub_engine.rules.position import Game, Position

    variant, book = _open(args)
    game = Game(variant, Position.parse(variant, args.pos or "start"))
    for text in args.moves.split():
        game.play(text)
    pos = game.position
    entry = book.entry(board_key(pos.board))
    print(f"position {pos.hub()} key {board_key(pos.board):016x}")
    if entry is None:
        print("not in the book")
        return 1
    value, expanded, height = entry
    print(f"value {_score(value)} expanded {'yes' if expanded else 'no'} height {height}")
    for m in book.moves(pos) or []:
        print(f"{m.move.hub():>10} {_score(m.value)} height {m.height}")
    return 0


def _info(args: argparse.Namespace) -> int:
    from hub_engine.book.ballots import ballot_sets, read_set
    from hub_engine.book.keys import board_key
    from hub_engine.rules.position import Position

    variant, book = _open(args)
    h = book.header
    print(f"file {book.source} ({os.path.getsize(book.source)} bytes)")
    print(f"ruleset {h.ruleset} fingerprint {h.fingerprint:08x} entries {h.entries} "
          f"expanded {h.expanded} nodes-per-search {h.nodes}")
    for set_name in ballot_sets(h.ruleset):
        entries = [book.entry(board_key(Position.from_hub(variant, b.position).board))
                   for b in read_set(set_name)]
        expanded = [e for e in entries if e is not None and e[1]]
        heights = sorted(e[2] for e in expanded)
        median = heights[len(heights) // 2] if heights else 0
        deep = sum(1 for h in heights if h >= args.main_line)
        print(f"ballots {set_name}: {len(expanded)}/{len(entries)} expanded, main line "
              f"median {median} plies, min {heights[0] if heights else 0}, "
              f"{deep}/{len(entries)} at {args.main_line} plies or more")
    pos = Position.start(variant)
    line = []
    while len(line) < args.lines:
        moves = book.moves(pos)
        if not moves:
            break
        line.append(f"{moves[0].move.hub()} ({_score(moves[0].value)})")
        pos = pos.play(moves[0].move)
    start = book.entry(board_key(Position.start(variant).board))
    print(f"start: height {start[2] if start else 0}, main line {len(line)} plies: "
          + " ".join(line))
    return 0
