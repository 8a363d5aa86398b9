"""A stand-in for the engine in the fast analysis tests: deterministic, instant, picklable.

best = the smallest legal move string, pv the line of smallest moves from there (up to 3 plies);
score from a hash of the position; a played move that is not the best loses (ply % 4) * 0.9 men,
so all three classes (and none) occur.
"""
import os
import time
import zlib

from hub_engine.rules.position import Position


def stub_analyser(task: dict, limits: dict) -> dict:
    delay = float(os.environ.get("HUB_ENGINE_STUB_DELAY", "0"))
    if delay:
        time.sleep(delay)
    pos = Position.from_hub(task["variant"], task["position"])
    moves = sorted(str(m) for m in pos.legal_moves())
    best = moves[0]
    score = round((zlib.crc32(task["position"].encode()) % 400 - 200) / 100, 2)
    played_score = None
    if task["played"] is not None:
        played_score = score if task["played"] == best else round(score - (task["ply"] % 4) * 0.9, 2)
    pv = []
    while len(pv) < 3:
        moves = sorted(pos.legal_moves(), key=str)
        if not moves:
            break
        pv.append(str(moves[0]))
        pos = pos.play(moves[0])
    return {"best": best, "score": score, "pv": pv, "depth": limits.get("depth") or 0,
            "nodes": 100 + task["ply"], "played_score": played_score}


def failing_analyser(task: dict, limits: dict) -> dict:
    """Fails on ply 3 of every game, like an engine error would."""
    if task["ply"] == 3:
        raise RuntimeError("engine exploded")
    return stub_analyser(task, limits)
