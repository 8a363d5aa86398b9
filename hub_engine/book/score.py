"""The search that scores one book position: iterative deepening in the core Searcher to a fixed
node budget, on a cleared transposition table, with the endgame tables on.

A fixed node budget (not a time) makes a score depend on the position and the settings alone,
not on the machine's load or on which worker ran it: a book can be rebuilt or extended
anywhere with the same result. The last iteration is usually cut by the budget; its result
counts only when it has found another best move (its first move was searched in full),
as the engine does in play.
"""
from __future__ import annotations

import threading
import time
import zlib

from hub_engine.core import INF

MAX_DEPTH = 99
TT_LOG2 = 20               # 16 MiB per worker; cleared before each position
_LOCAL = threading.local() # one searcher per (rule-set, evaluation) and thread (Dask threads)


def eval_id(ruleset: str, kind: str) -> str:
    """A checksum of the evaluation's data (hand-set values and learned weights): it decides
    the scores, so a build log records it and refuses to mix two."""
    from hub_engine.learn.weights import DATA_DIR, shipped_path

    crc = 0
    paths = [DATA_DIR / "eval.json"]
    if kind == "learned":
        paths.append(shipped_path(ruleset))
    elif kind != "hand":
        paths.append(kind)
    for path in paths:
        try:
            with open(path, "rb") as f:
                crc = zlib.crc32(f.read(), crc)
        except OSError:
            crc = zlib.crc32(b"missing", crc)
    return f"{crc:08x}"


def _searcher(ruleset: str, kind: str):
    cache = _LOCAL.__dict__.setdefault("searchers", {})
    key = (ruleset, kind)
    if key not in cache:
        from hub_engine.core import Searcher, TransTable
        from hub_engine.learn.weights import evaluation
        from hub_engine.rules.variants import get_variant
        from hub_engine.tables.play import EngineTables

        variant = get_variant(ruleset)
        s = Searcher(variant.core_rules, TransTable(TT_LOG2), evaluation(ruleset, kind))
        EngineTables().attach([s], variant)
        cache[key] = s
    return cache[key]


def search_score(searcher, board, nodes: int) -> tuple[int, int, int]:
    """(score for the side to move in core units, last completed depth, nodes used)."""
    searcher.tt.clear()
    searcher.clear_heuristics()
    counters = board.initial_counters()
    used = depth_done = 0
    score, best = 0, None
    for depth in range(1, MAX_DEPTH + 1):
        left = max(1, nodes - used) if depth > 1 else 0
        s, pv, n, completed, _mean, _sel = searcher.iterate(board, depth, -INF, INF, [],
                                                             counters, 0.0, left)
        used += n
        if completed:
            score, depth_done = s, depth
            best = pv[0] if pv else None
        elif pv and best is not None and pv[0] != best:
            score = s
        if not completed or used >= nodes or not pv:
            break
    return score, depth_done, used


def run_job(task: dict, limits: dict, scorer=None) -> dict:
    """Worker entry point (hub_engine.executors): the scorer's answer (default score_task), or
    {"error": message}; never raises."""
    try:
        return (scorer or score_task)(task, limits)
    except Exception as exc:          # reported to the builder, which stops with it
        return {"error": f"{type(exc).__name__}: {exc}"}


def score_task(task: dict, limits: dict) -> dict:
    """Score task["position"] with this worker's searcher."""
    from hub_engine.rules.position import Position

    searcher = _searcher(limits["ruleset"], limits["eval"])
    board = Position.from_hub(limits["ruleset"], task["position"]).board
    cpu = time.thread_time()
    score, depth, used = search_score(searcher, board, limits["nodes"])
    return {"score": score, "depth": depth, "nodes": used, "cpu": time.thread_time() - cpu}
