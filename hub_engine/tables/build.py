"""Build the tables of one rule-set: `hub-engine tables build --variant V [--pieces N] [--dir D]`.

Slice pairs are solved by the compiled generator (tb_gen.pxi) in worker processes, one pair per
task, as soon as every slice it reads is finished; two workers keep both cores busy. Each finished
slice is written at once (atomically), so a killed build goes on where it stopped: slices whose
files are complete and valid are kept, the rest is redone. The generator reads earlier slices from
full 2-bit files in work/ (the stored tables leave capture positions out); those of 6 pieces are
deleted when the build is complete, smaller ones are kept for the next, larger build.
"""
from __future__ import annotations

import json
import multiprocessing
import os
import resource
import sys
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from hub_engine.core import CoreTables, tb_solve
from hub_engine.datafiles import write_atomically
from hub_engine.lifetime import exit_with_parent
from hub_engine.tables import fileformat as ff
from hub_engine.tables.slices import (DTC_MAX_PIECES, MAX_PIECES, Material, dependencies, pairs,
                                      ruleset_variant)
from hub_engine.tables.store import fingerprints, read_slice, slice_path

KEEP_WORK_PIECES = 5     # work files of at most this many pieces stay after a build


@dataclass
class SliceReport:
    material: Material
    size: int
    wins: int
    draws: int
    losses: int
    captures: int
    invalid: int
    stored_bytes: int
    dtc_bytes: int
    seconds: float
    max_dist: int = 0


@dataclass
class BuildReport:
    ruleset: str
    pieces: int
    built: list[SliceReport] = field(default_factory=list)
    kept: int = 0
    seconds: float = 0.0
    peak_rss_mb: float = 0.0


def _valid(root: Path, ruleset: str, kind: int, m: Material) -> bool:
    try:
        read_slice(root, ruleset, kind, m)
        return True
    except ff.TableFileError:
        return False


# --- worker side -----------------------------------------------------------------------------

_CACHE: dict[tuple, object] = {}


def _deps_for(root: Path, ruleset: str, pair: tuple[Material, ...], dtc: bool) -> CoreTables:
    """A CoreTables of the pair's dependencies (work files, or distance tables with dtc: the
    captures of kings lead only to kings)."""
    tables = CoreTables()
    n = pair[0].pieces
    wanted = {m for m in dependencies(pair) if not dtc or m.kings_only or not pair[0].kings_only}
    for key in [k for k in _CACHE if k[0] != ruleset or (k[2].pieces >= n and k[2] not in wanted)]:
        del _CACHE[key]                       # same-size promotion targets of other pairs
    kind = ff.KIND_DTC if dtc else ff.KIND_RAW
    for m in wanted:
        key = (ruleset, kind, m)
        if key not in _CACHE:
            _CACHE[key] = read_slice(root, ruleset, kind, m).data
        if dtc:
            tables.add_dtc(tuple(m), _CACHE[key])
        else:
            tables.add_raw(tuple(m), _CACHE[key])
    return tables


def build_pair(root: Path, ruleset: str, pair: tuple[Material, ...], dtc_max: int) -> list[SliceReport]:
    """Solve one pair and write its files (worker process)."""
    t0 = time.perf_counter()
    rules = ruleset_variant(ruleset).core_rules
    fps = fingerprints(ruleset)
    results = tb_solve(rules, tuple(pair[0]), _deps_for(root, ruleset, pair, False))
    dtc_results = {}
    if pair[0].has_dtc(dtc_max):
        for res in tb_solve(rules, tuple(pair[0]), _deps_for(root, ruleset, pair, True), dtc=True):
            dtc_results[Material(*res["material"])] = res
    seconds = time.perf_counter() - t0
    reports = []
    for res in results:
        m = Material(*res["material"])
        counts = dict(wins=res["wins"], draws=res["draws"], losses=res["losses"],
                      captures=res["captures"])
        dtc_bytes = 0
        if m in dtc_results:
            d = dtc_results[m]
            ff.write_table(slice_path(root, ruleset, "dtc", m),
                           ff.Header(ff.KIND_DTC, ruleset, m, fps[ff.KIND_DTC], m.size, 0,
                                     len(d["dtc"]), d["wins"], d["draws"], d["losses"],
                                     d["captures"], 0), b"", d["dtc"])
            dtc_bytes = len(d["dtc"])
        ff.write_table(slice_path(root, ruleset, "work", m),
                       ff.Header(ff.KIND_RAW, ruleset, m, fps[ff.KIND_RAW], m.size, 0,
                                 len(res["raw"]), **counts, payload_crc=0), b"", res["raw"])
        # the stored table last: its presence marks the slice finished
        ff.write_table(slice_path(root, ruleset, "wld", m),
                       ff.Header(ff.KIND_WLD, ruleset, m, fps[ff.KIND_WLD], m.size, 0,
                                 len(res["data"]), **counts, payload_crc=0),
                       res["blocks"], res["data"])
        reports.append(SliceReport(m, m.size, res["wins"], res["draws"], res["losses"],
                                   res["captures"], res["invalid"],
                                   len(res["blocks"]) + len(res["data"]), dtc_bytes,
                                   seconds / len(results), res.get("max_dist", 0)))
    return reports


# --- driver ----------------------------------------------------------------------------------

def _pair_done(root: Path, ruleset: str, pair: tuple[Material, ...], dtc_max: int) -> bool:
    for m in pair:
        if not _valid(root, ruleset, ff.KIND_WLD, m):
            return False
        if m.has_dtc(dtc_max) and not _valid(root, ruleset, ff.KIND_DTC, m):
            return False
    return True


def plan(root: Path, ruleset: str, pieces: int, dtc_max: int = DTC_MAX_PIECES):
    """(pairs to build, pairs already finished): a finished pair whose work file a pair to build
    needs, and that is gone, is built again."""
    all_pairs = pairs(pieces)
    done = {p for p in all_pairs if _pair_done(root, ruleset, p, dtc_max)}
    while True:
        todo = [p for p in all_pairs if p not in done]
        needed = set().union(*(dependencies(p) for p in todo)) if todo else set()
        redo = {p for p in done if any(m in needed and not _valid(root, ruleset, ff.KIND_RAW, m)
                                       for m in p)}
        if not redo:
            return todo, [p for p in all_pairs if p in done]
        done -= redo


def _context():
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def build(ruleset: str, pieces: int, root: Path, workers: int | None = None,
          progress: bool = True, keep_work: bool = False, dtc_max: int = DTC_MAX_PIECES,
          log: Callable[[str], None] = lambda s: print(s, file=sys.stderr)) -> BuildReport:
    """Build (or finish) every slice of ruleset up to `pieces` pieces under root."""
    ruleset_variant(ruleset)
    if not 2 <= pieces <= MAX_PIECES:
        raise ValueError(f"--pieces must be between 2 and {MAX_PIECES}")
    root = Path(root)
    t0 = time.perf_counter()
    todo, finished = plan(root, ruleset, pieces, dtc_max)
    report = BuildReport(ruleset, pieces, kept=sum(len(p) for p in finished))
    workers = max(1, workers or os.cpu_count() or 1)
    total = sum(m.size for p in todo for m in p)
    bar = None
    if progress and todo:
        from tqdm import tqdm

        bar = tqdm(total=total, unit="pos", unit_scale=True, desc=f"{ruleset} {pieces}",
                   disable=None, file=sys.stderr, smoothing=0.0)
    done = {m for p in finished for m in p}
    pending = list(todo)
    running: dict[Future, tuple[Material, ...]] = {}
    try:
        with ProcessPoolExecutor(max_workers=workers, mp_context=_context(),
                                 initializer=exit_with_parent) as pool:
            while pending or running:
                for p in [p for p in pending if dependencies(p) <= done][:max(0, workers * 2 - len(running))]:
                    pending.remove(p)
                    running[pool.submit(build_pair, root, ruleset, p, dtc_max)] = p
                if not running:
                    raise RuntimeError("slice dependencies cannot be met (internal error)")
                finished_now, _ = wait(running, return_when=FIRST_COMPLETED)
                for fut in finished_now:
                    p = running.pop(fut)
                    reports = fut.result()
                    report.built.extend(reports)
                    done.update(p)
                    if bar is not None:
                        bar.update(sum(m.size for m in p))
                        bar.set_postfix_str("+".join(m.name for m in p))
    finally:
        if bar is not None:
            bar.close()
    if not keep_work:
        for m in {m for p in pairs(pieces) for m in p if m.pieces > KEEP_WORK_PIECES}:
            slice_path(root, ruleset, "work", m).unlink(missing_ok=True)
    report.seconds = time.perf_counter() - t0
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    report.peak_rss_mb = max(own, kids) / 1024.0
    _record(root, report)
    return report


def _record(root: Path, report: BuildReport) -> None:
    """Append the build's figures to <ruleset>/build.json (read by `tables info`)."""
    path = root / report.ruleset / "build.json"
    try:
        history = json.loads(path.read_text())
    except (OSError, ValueError):
        history = []
    history.append({
        "pieces": report.pieces, "seconds": round(report.seconds, 1),
        "peak_rss_mb": round(report.peak_rss_mb, 1), "kept_slices": report.kept,
        "built": [{"slice": r.material.name, "positions": r.size, "wins": r.wins,
                   "draws": r.draws, "losses": r.losses, "captures": r.captures,
                   "bytes": r.stored_bytes, "dtc_bytes": r.dtc_bytes,
                   "seconds": round(r.seconds, 2)} for r in report.built],
        "finished": time.strftime("%Y-%m-%d %H:%M:%S"),
    })
    write_atomically(path, json.dumps(history, indent=1).encode())
