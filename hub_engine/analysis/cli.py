"""The `analyse` command line: `hub-engine analyse FILE ...` or `python -m hub_engine.analysis
FILE ...` (wired into hub_engine.cli by `add_parser`)."""
from __future__ import annotations

import argparse
import os
import sys

from hub_engine.analysis.executors import CLUSTER_HINT
from hub_engine.analysis.run import DEFAULT_DEPTH, AnalysisInterrupted, analyse
from hub_engine.analysis.tasks import FORMATS
from hub_engine.engine.params import MAX_MULTIPV
from hub_engine.quality import BLUNDER, INACCURACY, MISTAKE
from hub_engine.rules.variants import VARIANTS


def add_parser(subparsers) -> argparse.ArgumentParser:
    """The `analyse` sub-command: call with the `add_subparsers()` object of the main parser."""
    p = subparsers.add_parser(
        "analyse", help="analyse every position of PDN games or position lists",
        description="Search every position of the input files and write one JSON line per "
                    "position (best move, score, pv; for played moves the loss and a "
                    f"classification: inaccuracy >= {INACCURACY}, mistake >= {MISTAKE}, "
                    f"blunder >= {BLUNDER} men).")
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="PDN files, files of PDN FEN lines or of Hub position strings")
    p.add_argument("--variant", default="brazilian", choices=sorted(VARIANTS),
                   help="variant of games without GameType tag and of position lines "
                        "(default brazilian)")
    limit = p.add_mutually_exclusive_group()
    limit.add_argument("--depth", type=int, help=f"search depth (default {DEFAULT_DEPTH})")
    limit.add_argument("--nodes", type=int, help="nodes per position")
    limit.add_argument("--move-time", type=float, metavar="S", help="seconds per position")
    p.add_argument("--multipv", type=int, default=1, metavar="N",
                   help=f"record the N best moves of each position with their scores and lines "
                        f"(1 to {MAX_MULTIPV}; default 1); a played move outside them is still "
                        f"searched alone")
    p.add_argument("--workers", type=int, help="local worker processes (default: all cores)")
    p.add_argument("--output", "-o",
                   help="JSON Lines output, '-' for stdout (default: FIRST_FILE.analysis.jsonl)")
    p.add_argument("--pdn-output", metavar="FILE", help="also write the games annotated as PDN")
    p.add_argument("--report", metavar="HTML",
                   help="also write the HTML report of all the output's records (as "
                        "`hub-engine report OUTPUT -o HTML` does) once the analysis is done")
    p.add_argument("--no-resume", dest="resume", action="store_false",
                   help="start the output afresh instead of reusing the records already in it")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help=f"Dask scheduler (tcp://host:port) instead of local processes "
                        f"(needs {CLUSTER_HINT})")
    p.add_argument("--format", dest="fmt", choices=FORMATS, default="auto",
                   help="input format (default auto: by extension .pdn/.fen/.hub, else content)")
    p.set_defaults(handler=run)
    return p


def _check_report_path(path: str | None, output: str | None) -> None:
    """`--report` needs an output file to read back, and a directory to write into: said
    before any work is done."""
    if path is None:
        return
    if output == "-":
        raise ValueError("--report needs the records in a file: give --output FILE, not '-'")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ValueError(f"cannot write the report {path}: no directory {folder}")
    if not os.access(folder, os.W_OK):
        raise ValueError(f"cannot write the report {path}: {folder} is not writable")


def write_run_report(output: str, report: str, inputs: list[str]) -> int:
    """The HTML report of a finished run's records (`--report`); 0, or 1 with a warning."""
    from hub_engine.report import write_report
    from hub_engine.report.records import read_files

    records, bad = read_files([output])
    warnings = write_report(records, report, title=os.path.basename(output), pdn_files=inputs)
    for line in [*bad, *warnings]:
        print(f"hub-engine analyse: warning: {line}", file=sys.stderr)
    return 1 if bad or warnings else 0


def run(args: argparse.Namespace) -> int:
    """Run the `analyse` command: 0 when all went well, 1 when some input or search failed,
    2 for a usage or output error, 130 when interrupted."""
    try:
        _check_report_path(args.report, args.output)
        summary = analyse(args.files, variant=args.variant, depth=args.depth, nodes=args.nodes,
                          move_time=args.move_time, multipv=args.multipv,
                          workers=args.workers, output=args.output,
                          pdn_output=args.pdn_output, resume=args.resume,
                          scheduler=args.scheduler, fmt=args.fmt)
    except AnalysisInterrupted as exc:
        s = exc.summary
        print(f"\nhub-engine analyse: interrupted after {s['analysed']} positions; run the same "
              f"command again to resume ({s['output']})", file=sys.stderr)
        return 130
    except BrokenPipeError:
        raise                   # stdout's reader has gone: hub-engine's main stops quietly
    except (ValueError, RuntimeError, OSError) as exc:
        print(f"hub-engine analyse: error: {exc}", file=sys.stderr)
        return 2
    if sys.stderr.isatty():
        print(f"hub-engine analyse: {summary['analysed']} positions analysed, "
              f"{summary['skipped']} already done, {summary['failed']} failed, "
              f"{len(summary['errors'])} input errors, {summary['elapsed']:.1f} s -> "
              f"{summary['output']}", file=sys.stderr)
    code = 1 if summary["errors"] else 0
    if args.report:
        try:
            code = max(code, write_run_report(summary["output"], args.report, args.files))
        except (ValueError, OSError) as exc:
            print(f"hub-engine analyse: error: the report {args.report}: {exc}", file=sys.stderr)
            return 2
    return code


def main(argv: list[str] | None = None) -> int:
    """`python -m hub_engine.analysis FILE ...` (the same as `hub-engine analyse FILE ...`)."""
    parser = argparse.ArgumentParser(prog="hub-engine")
    sub = parser.add_subparsers(dest="command", required=True)
    add_parser(sub)
    return run(parser.parse_args(["analyse", *(sys.argv[1:] if argv is None else argv)]))
