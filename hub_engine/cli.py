"""Command line: `hub-engine [hub]` runs the Hub loop; `perft`, `bench`, `analyse` are tools.

stdout belongs to the protocol in `hub` mode; logs go through loguru to stderr (WARNING by default)
or to a file (--log-file / HUB_ENGINE_LOG_FILE), at --log-level / HUB_ENGINE_LOG_LEVEL.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

from loguru import logger

LOG_LEVELS = ("TRACE", "DEBUG", "INFO", "SUCCESS", "WARNING", "ERROR", "CRITICAL")


def configure_logging(level: str | None, log_file: str | None) -> None:
    """stderr at the chosen level (WARNING by default); a log file, if any, records DEBUG."""
    level = (level or os.environ.get("HUB_ENGINE_LOG_LEVEL") or "WARNING").upper()
    log_file = log_file or os.environ.get("HUB_ENGINE_LOG_FILE")
    if level not in LOG_LEVELS:
        raise SystemExit(f"hub-engine: error: unknown log level {level!r} ({', '.join(LOG_LEVELS)})")
    logger.remove()
    logger.add(sys.stderr, level=level, format="{time:HH:mm:ss.SSS} {level} {message}")
    if log_file:
        logger.add(log_file, level="DEBUG", enqueue=True,
                   format="{time:YYYY-MM-DD HH:mm:ss.SSS} {level} {message}")


def _position(args: argparse.Namespace):
    from hub_engine.position import Position

    if args.fen:
        return Position.from_fen(args.variant, args.fen)
    if args.pos:
        return Position.from_hub(args.variant, args.pos)
    return Position.start(args.variant)


def cmd_perft(args: argparse.Namespace) -> int:
    pos = _position(args)
    if args.divide:
        total = 0
        for move, count in pos.divide(args.depth):
            print(f"{move} {count}", flush=True)
            total += count
        print(f"total {total}", flush=True)
    first = args.depth if args.only else 1
    for d in range(first, args.depth + 1):
        t0 = time.perf_counter()
        n = pos.perft(d)
        dt = time.perf_counter() - t0
        print(f"depth={d} nodes={n} time={dt:.3f} nps={int(n / dt) if dt > 0 else 0}", flush=True)
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from hub_engine import bench

    bench.main(depth=args.depth, threads=args.threads)
    return 0


def cmd_analyse(args: argparse.Namespace) -> int:
    from hub_engine import analyse

    return analyse.run(args)


def cmd_match(args: argparse.Namespace) -> int:
    from hub_engine import match

    return match.run(args)


def cmd_hub(args: argparse.Namespace) -> int:
    from hub_engine.engine import Engine
    from protocol import run

    return run(Engine())


def build_parser(tools: bool = True) -> argparse.ArgumentParser:
    """The parser; without `tools`, only what the Hub loop needs (a GUI waits for `wait`, so
    the tool modules are not imported on that path)."""
    from hub_engine.variants import VARIANTS

    p = argparse.ArgumentParser(prog="hub-engine", description=__doc__.splitlines()[0])
    p.add_argument("--log-level", help="stderr log level (default WARNING)")
    p.add_argument("--log-file", help="also log everything (DEBUG) to this file")
    sub = p.add_subparsers(dest="command")
    sub.add_parser("hub", help="run the Hub protocol on stdin/stdout (the default)")
    if not tools:
        return p

    perft = sub.add_parser("perft", help="count leaf positions (duplicate capture paths merged)")
    perft.add_argument("--variant", default="brazilian", choices=sorted(VARIANTS))
    perft.add_argument("--pos", help="Hub position string (33 characters)")
    perft.add_argument("--fen", help="PDN FEN in the variant's own square names")
    perft.add_argument("--depth", type=int, required=True)
    perft.add_argument("--divide", action="store_true", help="first print each root move's count")
    perft.add_argument("--only", action="store_true", help="only the last depth")

    from hub_engine import analyse, match
    from hub_engine.bench import DEFAULT_DEPTH

    bench = sub.add_parser("bench", help="search fixed positions to a fixed depth: nodes and nps")
    bench.add_argument("--depth", type=int, default=DEFAULT_DEPTH)
    bench.add_argument("--threads", type=int, default=1)
    analyse.add_parser(sub)
    match.add_parser(sub)
    return p


def _wants_tools(words: list[str]) -> bool:
    """False only for the Hub loop (no command, or `hub`), so that errors and help stay complete."""
    positional, skip = [], False
    for w in words:
        if skip:
            skip = False
        elif w in ("--log-level", "--log-file"):
            skip = True
        elif w in ("-h", "--help"):
            return True
        elif not w.startswith("-"):
            positional.append(w)
    return positional[:1] not in ([], ["hub"])


def main(argv: list[str] | None = None) -> int:
    args = build_parser(_wants_tools(sys.argv[1:] if argv is None else argv)).parse_args(argv)
    configure_logging(args.log_level, args.log_file)
    command = args.command or "hub"
    handlers = {"hub": cmd_hub, "perft": cmd_perft, "bench": cmd_bench, "analyse": cmd_analyse,
                "match": cmd_match}
    try:
        return handlers[command](args)
    except (ValueError, KeyError) as exc:
        if command == "hub":
            raise
        print(f"hub-engine: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
