"""`hub-engine report ANALYSIS.jsonl... -o report.html`: the command line of the report."""
from __future__ import annotations

import argparse
import os
import sys

DESCRIPTION = ("Turn the JSON Lines of `hub-engine analyse` into one self-contained HTML page: per "
               "game the players and result, an evaluation graph, the board at every move, the "
               "engine's best line, the loss of each move and its inaccuracies, mistakes and "
               "blunders; a summary per player across all games.")


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register `report` on the main parser's subparsers; run() is its handler."""
    p = subparsers.add_parser("report", help="an HTML report of analysis records",
                              description=DESCRIPTION)
    p.add_argument("files", nargs="+", metavar="ANALYSIS",
                   help="JSON Lines written by `hub-engine analyse`")
    p.add_argument("--output", "-o", metavar="HTML",
                   help="the report file (default: the first ANALYSIS with .html for .jsonl)")
    p.add_argument("--pdn", action="append", default=[], metavar="FILE",
                   help="a PDN file to read players and results from, for records whose game "
                        "file has this name or base name (repeatable; default: the files the "
                        "records name, as named or next to ANALYSIS)")
    p.add_argument("--title", help="the page's title (default: the ANALYSIS file names)")
    p.set_defaults(handler=run)
    return p


def default_output(first: str) -> str:
    root, ext = os.path.splitext(first)
    return f"{root if ext.lower() in ('.jsonl', '.json', '.ndjson') else first}.html"


def _error(message: str) -> int:
    print(f"hub-engine report: error: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    """0 when every line was shown, 1 when some lines or game files could not be read, 2 when no
    report was written."""
    from hub_engine.report import write_report
    from hub_engine.report.records import read_files

    try:
        records, errors = read_files(args.files)
    except OSError as exc:
        return _error(f"cannot read {exc.filename}: {exc.strerror}")
    for message in errors:
        print(f"hub-engine report: {message} (line skipped)", file=sys.stderr)
    if not records:
        return _error(f"no analysis records in {', '.join(args.files)}")
    out = args.output or default_output(args.files[0])
    title = args.title or ", ".join(os.path.basename(f) for f in args.files)
    dirs = list(dict.fromkeys(os.path.dirname(os.path.abspath(f)) for f in args.files))
    try:
        warnings = write_report(records, out, title=title, search_dirs=dirs, pdn_files=args.pdn)
    except OSError as exc:
        return _error(f"cannot write {out}: {exc.strerror or exc}")
    for message in warnings:
        print(f"hub-engine report: {message}", file=sys.stderr)
    return 1 if errors or warnings else 0
