"""`hub-engine tables build|probe|info`: build tables, probe a position, list what is built."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from hub_engine.tables.slices import MAX_PIECES, RULESETS, ruleset_of


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register `tables` and its subcommands on hub-engine's subparsers."""
    from hub_engine.rules.variants import VARIANTS

    p = subparsers.add_parser("tables", help="endgame tables: build, probe, info",
                              description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="tables_command", required=True, metavar="STEP")
    b = sub.add_parser("build", help="build the tables of a variant's rules (resumable)")
    b.add_argument("--variant", required=True, choices=sorted(VARIANTS),
                   help="rule-set to build (spanish: the portuguese tables)")
    b.add_argument("--pieces", type=int, default=MAX_PIECES,
                   help=f"largest piece count (2..{MAX_PIECES}, default {MAX_PIECES})")
    b.add_argument("--dir", help="tables directory (default $HUB_ENGINE_TABLES or the user data dir)")
    b.add_argument("--workers", type=int, help="worker processes (default: one per core)")
    b.add_argument("--keep-work", action="store_true",
                   help="keep the 6-piece work files (needed only by a later, larger build)")
    b.add_argument("--no-progress", action="store_true", help="no progress bar")
    pr = sub.add_parser("probe", help="win, draw or loss of a position for the side to move")
    pr.add_argument("--variant", required=True, choices=sorted(VARIANTS),
                    help="rules of the position")
    pr.add_argument("--pos", required=True, help="Hub position string or PDN FEN")
    pr.add_argument("--dir", help="tables directory (default $HUB_ENGINE_TABLES or the user "
                                  "data dir)")
    i = sub.add_parser("info", help="list built tables: slices, sizes, checksums, build figures")
    i.add_argument("--variant", choices=sorted(VARIANTS), help="one variant's rule-set (default all)")
    i.add_argument("--dir", help="tables directory (default $HUB_ENGINE_TABLES or the user "
                                 "data dir)")
    i.add_argument("--slices", action="store_true", help="one line per slice file")
    b.set_defaults(handler=cmd_build, interrupted="hub-engine tables: interrupted; the slices "
                   "built are kept; the same command resumes")
    pr.set_defaults(handler=cmd_probe)
    i.set_defaults(handler=cmd_info)
    return p


def cmd_build(args: argparse.Namespace) -> int:
    from hub_engine.tables.build import build
    from hub_engine.tables.store import tables_dir

    ruleset = ruleset_of(args.variant)
    root = tables_dir(args.dir)
    if not 2 <= args.pieces <= MAX_PIECES:
        raise ValueError(f"--pieces must be between 2 and {MAX_PIECES}")
    if args.workers is not None and args.workers < 1:
        raise ValueError("--workers must be at least 1")
    print(f"building {ruleset} tables up to {args.pieces} pieces in {root}", file=sys.stderr)
    rep = build(ruleset, args.pieces, root, workers=args.workers, progress=not args.no_progress,
                keep_work=args.keep_work)
    size = sum(r.stored_bytes + r.dtc_bytes for r in rep.built)
    print(f"ruleset={ruleset} pieces={args.pieces} built={len(rep.built)} kept={rep.kept} "
          f"bytes={size} time={rep.seconds:.1f} peak_rss_mb={rep.peak_rss_mb:.0f}", flush=True)
    return 0


def cmd_probe(args: argparse.Namespace) -> int:
    from hub_engine.rules.position import Position
    from hub_engine.tables.probe import open_tables

    pos = Position.parse(args.variant, args.pos)
    t = open_tables(args.variant, args.dir)
    for err in t.errors:
        print(f"hub-engine: warning: {err}", file=sys.stderr)
    res = t.probe(pos)
    if res is None:
        raise ValueError(f"no table holds this position ({sum(map(len, pos.board.pieces()))} "
                         f"pieces; build them with `hub-engine tables build --variant "
                         f"{args.variant}`)")
    line = res.value
    if res.distance is not None:
        line += f" distance={res.distance}"
    if res.ruled is not None and res.ruled != res.value:
        line += f" rules={res.ruled}"
    print(line, flush=True)
    return 0


def cmd_info(args: argparse.Namespace) -> int:
    from hub_engine.tables import fileformat as ff
    from hub_engine.tables.probe import search_roots
    from hub_engine.tables.slices import Material

    rulesets = [ruleset_of(args.variant)] if args.variant else list(RULESETS)
    for root in search_roots(args.dir):
        for rs in rulesets:
            folder = Path(root) / rs
            files = sorted(folder.glob("*/*.tb")) + sorted(folder.glob("*/*.tb.xz"))
            files = [f for f in files if f.parent.name in ("wld", "dtc")]
            if not files:
                continue
            total = {"wld": 0, "dtc": 0}
            pieces = {"wld": 0, "dtc": 0}
            bad = 0
            for f in files:
                kind = f.parent.name
                name = f.name.split(".")[0]
                try:
                    m = Material.parse(name)
                    tf = _read(f, rs, kind, m)
                except (ff.TableFileError, ValueError) as exc:
                    bad += 1
                    print(f"  damaged: {exc}")
                    continue
                total[kind] += f.stat().st_size
                pieces[kind] = max(pieces[kind], m.pieces)
                if args.slices:
                    h = tf.header
                    print(f"  {rs} {kind} {m.name} positions={h.size} wins={h.wins} "
                          f"draws={h.draws} losses={h.losses} captures={h.captures} "
                          f"bytes={f.stat().st_size} crc32={h.payload_crc:08x}")
            print(f"{rs} {root}: win/draw/loss up to {pieces['wld']} pieces {total['wld']} bytes, "
                  f"distance up to {pieces['dtc']} pieces {total['dtc']} bytes"
                  + (f", {bad} damaged" if bad else ""))
            log = folder / "build.json"
            if log.exists():
                for b in json.loads(log.read_text()):
                    print(f"  build pieces={b['pieces']} seconds={b['seconds']} "
                          f"peak_rss_mb={b['peak_rss_mb']} slices={len(b['built'])} "
                          f"finished={b['finished']}")
    return 0


def _read(path: Path, ruleset: str, kind: str, m):
    from hub_engine.tables import fileformat as ff
    from hub_engine.tables.store import fingerprints

    k = ff.KIND_WLD if kind == "wld" else ff.KIND_DTC
    return ff.read_table(path, kind=k, ruleset=ruleset, material=m,
                         fingerprint=fingerprints(ruleset)[k], size=m.size)
