"""Searching one task: what runs in a worker (this process, a pool's process or a Dask worker).

Each task is searched with the same limits (depth, nodes or move time) on a fresh transposition
table, so at a fixed depth or node count the result does not depend on which worker ran it or in
what order. A position with no legal move is not searched: the side to move has lost.

The played move's score: when it is the best move (or, with multipv, one of the lines), that
line's score; otherwise the position after it is searched with the same limits (one ply less
when a depth is given, so the move is seen to the same depth as in the first search) and its
score negated (a win's ply count moved by one).
"""
from __future__ import annotations

import threading
import time
from typing import Any, Callable

from hub_engine.rules.position import Position

ANALYSIS_TT_LOG2 = 20       # transposition table per worker Engine (cleared for every position)
WIN = 100.0                 # scores at or above WIN - 50 are won games (100 - plies/100)

Analyser = Callable[[dict, dict], dict]

_LOCAL = threading.local()     # engines per thread: a Dask worker may run tasks on several threads


def negate_score(score: float) -> float:
    """A child position's score seen from the parent's mover: negated, a win one ply further."""
    s = -score
    if abs(s) >= WIN - 50:
        s = s - 0.01 if s > 0 else s + 0.01
    return round(s, 2) + 0.0        # + 0.0: no "-0.0" in the output


def _engine(variant: str):
    """This process's (thread's) Engine for a variant, created once."""
    engines = _LOCAL.__dict__.setdefault("engines", {})
    e = engines.get(variant)
    if e is None:
        from hub_engine.engine import Engine

        e = Engine()
        e.set_param("variant", variant)
        e.set_param("threads", "1")
        e.set_param("tt-size", str(ANALYSIS_TT_LOG2))
        e.init()
        engines[variant] = e
    return e


def _search(e, start: str, history: list[str], limits: dict) -> tuple[Any, list]:
    """The engine's answer and its last full set of lines, best first: the last `info` with
    one line; with multipv, the deepest iteration that reported every line (a time-limited
    search may end in an iteration that reported only its best line)."""
    from protocol import Limits

    e.set_position(start, history)
    infos: list = []
    timer = None
    if limits.get("move_time"):
        timer = threading.Timer(limits["move_time"], e.stop)    # a safety net for the limit
        timer.daemon = True
        timer.start()
    try:
        result = e.search(Limits(depth=limits.get("depth"), nodes=limits.get("nodes"),
                                 move_time=limits.get("move_time")), "analyze", infos.append)
    finally:
        if timer is not None:
            timer.cancel()
    if not infos:
        return result, []
    if e.settings.multipv == 1:
        return result, infos[-1:]
    groups: dict[int, list] = {}
    for info in infos:
        groups.setdefault(info.depth, []).append(info)
    width = max(len(g) for g in groups.values())
    full = [g for g in groups.values() if len(g) == width][-1]
    return result, sorted(full[-width:], key=lambda i: i.multipv or 1)


def engine_analyser(task: dict, limits: dict) -> dict:
    """Search one task with this process's Engine: best move, score, pv (with multipv, the N
    best lines), and the played move's score."""
    e = _engine(task["variant"])
    e.set_param("multipv", str(limits.get("multipv") or 1))
    e.new_game()
    result, lines = _search(e, task["start"], task["history"], limits)
    info = lines[0] if lines else None
    out = {"best": info.pv[0] if info and info.pv else result.move,
           "score": round(info.score, 2) if info and info.score is not None else None,
           "pv": list(info.pv or []) if info else [],
           "depth": info.depth if info else 0,
           "nodes": info.nodes if info else 0,
           "played_score": None,
           "table": e.settings.tables.table_result(e.game)}
    if e.settings.multipv > 1:
        out["multipv"] = [{"move": i.pv[0], "score": round(i.score, 2), "pv": list(i.pv)}
                          for i in lines if i.pv and i.score is not None]
    played = task.get("played")
    if played is None or out["score"] is None:
        return out
    known = {line["move"]: line["score"] for line in out.get("multipv", [])}
    known[out["best"]] = out["score"]
    if played in known:
        out["played_score"] = known[played]
        return out
    child = Position.from_hub(task["variant"], task["position"]).play(played)
    if not child.legal_moves():
        out["played_score"] = round(WIN - 0.01, 2)      # the played move wins at once
        return out
    child_limits = dict(limits)
    if child_limits.get("depth"):
        child_limits["depth"] = max(1, child_limits["depth"] - 1)
    e.set_param("multipv", "1")                        # the played move alone
    _r, clines = _search(e, task["start"], task["history"] + [played], child_limits)
    if clines and clines[0].score is not None:
        out["played_score"] = negate_score(clines[0].score)
    return out


LOST = {"best": None, "score": -WIN, "pv": [], "depth": 0, "nodes": 0, "played_score": None,
        "outcome": "loss"}


def run_task(task: dict, limits: dict, analyser: Analyser | None = None) -> dict:
    """Worker entry point: the analyser's answer, or {"error": message}; never raises. A
    position with no legal move is lost for the side to move: no search."""
    if task.get("over"):
        return dict(LOST, time=0.0)
    t0 = time.perf_counter()
    try:
        res = (analyser or engine_analyser)(task, limits)
    except Exception as exc:          # reported per task; the run goes on
        return {"error": f"{type(exc).__name__}: {exc}"}
    res = dict(res)
    res["time"] = round(time.perf_counter() - t0, 3)
    return res
