"""Command line: `hub-engine [hub]` runs the Hub loop; `perft`, `bench`, `analyse`, `match`,
`tournament` and others are tools.

stdout belongs to the protocol in Hub mode, and stderr stays silent there unless a log level is
asked for: pydraughts (and so lidraughts-bot) merges the engine's stderr into the lines it reads
as protocol. Logs go to a file with --log-file / HUB_ENGINE_LOG_FILE. The tools log warnings to
stderr.
"""
from __future__ import annotations

import argparse
import os
import sys
import threading
import time
import warnings

from loguru import logger

from hub_engine import __version__

LOG_LEVELS = ("TRACE", "DEBUG", "INFO", "SUCCESS", "WARNING", "ERROR", "CRITICAL")
MAX_BENCH_DEPTH = 60
MAX_PERFT_DEPTH = 40


def configure_logging(level: str | None, log_file: str | None, hub_mode: bool) -> None:
    """The log sinks: stderr at `level` (tools: WARNING by default; the Hub loop: none unless a
    level is given), and a log file, if any, that records everything at DEBUG."""
    level = level or os.environ.get("HUB_ENGINE_LOG_LEVEL")
    log_file = log_file or os.environ.get("HUB_ENGINE_LOG_FILE")
    if level is not None and level.upper() not in LOG_LEVELS:
        raise SystemExit(f"hub-engine: error: unknown log level {level!r} "
                         f"(one of {', '.join(LOG_LEVELS)})")
    logger.remove()
    if level is not None or not hub_mode:
        logger.add(sys.stderr, level=(level or "WARNING").upper(),
                   format="{time:HH:mm:ss.SSS} {level} {message}")
    if log_file:
        logger.add(log_file, level="DEBUG", enqueue=True,
                   format="{time:YYYY-MM-DD HH:mm:ss.SSS} {level} {message}")
    if hub_mode:
        _route_stray_output()


def _route_stray_output() -> None:
    """In Hub mode Python's own last-resort printers (a thread's uncaught exception, a warning)
    would write to stderr, which the client reads as protocol: send them to the log instead."""
    def thread_hook(args: threading.ExceptHookArgs) -> None:
        logger.opt(exception=(args.exc_type, args.exc_value, args.exc_traceback)).error(
            "uncaught exception in thread {}", getattr(args.thread, "name", "?"))

    def show_warning(message, category, filename, lineno, file=None, line=None) -> None:
        logger.warning("{}: {} ({}:{})", category.__name__, message, filename, lineno)

    threading.excepthook = thread_hook
    warnings.showwarning = show_warning


# --- argument types ---------------------------------------------------------------------------

def int_in(lo: int, hi: int):
    """An argparse type: an integer from lo to hi, with a message that names the range."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"must be from {lo} to {hi}, got {value}")
        return value
    parse.__name__ = "integer"
    return parse


class HelpFormatter(argparse.HelpFormatter):
    """Adds `(default: X)` to an option's help unless the help already names its default."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if (action.option_strings and "default" not in text and action.default is not None
                and action.default is not False and action.default != argparse.SUPPRESS):
            text += " (default: %(default)s)"
        return text


class Parser(argparse.ArgumentParser):
    """Every (sub)command's parser: the help formatter above."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)


# --- commands ---------------------------------------------------------------------------------

def _position(args: argparse.Namespace):
    from hub_engine.rules.position import Position

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
    from hub_engine.engine import bench

    positions = None
    if args.pdn:
        try:
            positions = bench.game_positions(args.pdn, args.variant, args.every, args.limit)
        except (OSError, ValueError) as e:
            print(f"hub-engine: error: {e}", file=sys.stderr)
            return 2
    bench.main(depth=args.depth, threads=args.threads, eval=args.eval, bb_size=args.bb_size,
               tables_path=args.tables_path, positions=positions)
    return 0


def cmd_hub(args: argparse.Namespace) -> int:
    from hub_engine import lifetime
    from hub_engine.engine import Engine
    from protocol import run

    if lifetime.watch_requested():      # started by `hub-engine gui`: end with it
        lifetime.exit_with_parent()

    return run(Engine())


def build_parser(tools: bool = True) -> argparse.ArgumentParser:
    """The parser; without `tools`, only what the Hub loop needs (a GUI waits for `wait`, so
    the tool modules are not imported on that path)."""
    p = Parser(prog="hub-engine", description="A draughts engine for the 8x8 variants that "
               "speaks the Hub protocol; with no command it runs the Hub loop on stdin/stdout.")
    p.add_argument("--version", action="version", version=f"hub-engine {__version__}")
    p.add_argument("--log-level", type=str.upper, choices=LOG_LEVELS, metavar="LEVEL",
                   help=f"log to stderr at this level ({', '.join(LOG_LEVELS)}; default: "
                        "WARNING for the tools, nothing at all for the Hub loop)")
    p.add_argument("--log-file", metavar="FILE",
                   help="also log everything, every Hub line in and out included, to this file "
                        "(default: none)")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    sub.add_parser("hub", help="run the Hub protocol on stdin/stdout (the default command)")
    if not tools:
        return p

    from hub_engine.analysis import cli as analyse_cli
    from hub_engine.matches import bookcheck, match, tournament
    from hub_engine.engine.bench import DEFAULT_DEPTH
    from hub_engine.report import command as report_command
    from hub_engine.rules.variants import VARIANTS

    perft = sub.add_parser("perft", help="count leaf positions (duplicate capture paths merged)")
    perft.add_argument("--variant", default="brazilian", choices=sorted(VARIANTS),
                       help="rules to count with")
    perft.add_argument("--pos", help="Hub position string (33 characters; default: the start)")
    perft.add_argument("--fen", help="PDN FEN in the variant's own square names")
    perft.add_argument("--depth", type=int_in(1, MAX_PERFT_DEPTH), required=True,
                       help=f"plies to count, 1 to {MAX_PERFT_DEPTH}")
    perft.add_argument("--divide", action="store_true", help="first print each root move's count")
    perft.add_argument("--only", action="store_true", help="print only the last depth")

    bench = sub.add_parser("bench", help="search fixed positions to a fixed depth: nodes and nps")
    bench.add_argument("--depth", type=int_in(1, MAX_BENCH_DEPTH), default=DEFAULT_DEPTH,
                       help=f"search depth, 1 to {MAX_BENCH_DEPTH}")
    cores = os.cpu_count() or 1
    bench.add_argument("--threads", type=int_in(1, cores), default=1,
                       help=f"search threads, 1 to {cores} (the cores of this machine)")
    bench.add_argument("--eval", default="learned", choices=("learned", "hand"),
                       help="evaluation, as the engine's eval parameter (default learned)")
    bench.add_argument("--bb-size", type=int_in(0, 6), default=0,
                       help="probe endgame tables up to this many pieces (default 0: off)")
    bench.add_argument("--tables-path", help="tables directory (with --bb-size)")
    bench.add_argument("--pdn", metavar="FILE",
                       help="search the positions of these games instead of the fixed ones "
                            "(default: the fixed positions)")
    bench.add_argument("--variant", choices=sorted(VARIANTS), default="russian",
                       help="rules of the --pdn games when the file has no GameType tag "
                            "(default russian)")
    bench.add_argument("--every", type=int_in(1, 10000), default=1,
                       help="with --pdn, every N-th position (default 1: all)")
    bench.add_argument("--limit", type=int_in(0, 100000), default=0,
                       help="with --pdn, at most this many positions (default 0: no limit)")
    analyse_cli.add_parser(sub)
    match.add_parser(sub)
    tournament.add_parser(sub)
    report_command.add_parser(sub)
    from hub_engine.learn import cli as learn_cli

    learn_cli.add_parser(sub)
    from hub_engine.tables import cli as tables_cli

    tables_cli.add_parser(sub)
    from hub_engine.book import cli as book_cli

    book_cli.add_parser(sub)
    bookcheck.add_parser(sub)
    from hub_engine.gui import command as gui_command

    gui_command.add_parser(sub)
    return p


def _wants_tools(words: list[str]) -> bool:
    """False only for the Hub loop (no command, or `hub`), so that errors and help stay complete."""
    positional, skip = [], False
    for w in words:
        if skip:
            skip = False
        elif w in ("--log-level", "--log-file"):
            skip = True
        elif w in ("-h", "--help", "--version"):
            return True
        elif not w.startswith("-"):
            positional.append(w)
    return positional[:1] not in ([], ["hub"])


def _closed_pipe() -> int:
    """Stop quietly, as programs in a pipeline do, with the status a shell shows for a program
    that SIGPIPE ended; stdout goes to the null device so the interpreter's last flush is
    silent too."""
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, sys.stdout.fileno())
    os.close(null)
    return 128 + 13


def main(argv: list[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else argv
    args = None
    try:
        args = build_parser(_wants_tools(words)).parse_args(words)
        command = args.command or "hub"
        configure_logging(args.log_level, args.log_file, hub_mode=command == "hub")
        handlers = {"hub": cmd_hub, "perft": cmd_perft, "bench": cmd_bench}
        handler = handlers.get(command) or args.handler
        try:
            status = handler(args)
            sys.stdout.flush()      # a closed pipe shows here, not at the interpreter's exit
            return status
        except (ValueError, KeyError, RuntimeError, OSError) as exc:
            if command == "hub":
                raise
            if isinstance(exc, BrokenPipeError):
                # the reader of stdout has gone (`hub-engine ... | head`): the engine's client
                # reports its own broken pipes as EngineError, so this one is ours
                return _closed_pipe()
            print(f"hub-engine: error: {exc}", file=sys.stderr)
            return 2
    except KeyboardInterrupt:
        # Ctrl-C: leave quietly, as a shell expects, saying how to resume where a command can
        note = getattr(args, "interrupted", None)
        if note:
            print(note, file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
