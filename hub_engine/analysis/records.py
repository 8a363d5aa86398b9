"""Records, their settings, and resume: what the output file holds and how a run reuses it.

The output is JSON Lines, one record per position, written and flushed as soon as the position
is done (so in the order positions finish, not the input order):

    game      str    game id (FILE#N, FILE:L; see tasks.py)
    ply       int    half-moves from the game's start position (0 for position lists)
    label     str?   the record's move label (`12.` / `12...`) for the move played here
    variant   str    variant name
    position  str    Hub position string (33 characters)
    fen       str    PDN FEN in the variant's game-record squares
    side      str    side to move, "white" or "black"
    played    str?   the move the game played here, Hub string in the variant's numbers
    best      str?   the engine's best move (Hub string); null when there is no legal move
    score     float  the best move's score, men, side to move's view (wins: 100 - plies/100)
    pv        [str]  principal variation (Hub strings)
    depth     int    depth of the last reported iteration
    nodes     int    nodes searched for this position (the best-move search)
    played_score float?  the played move's score, mover's view
    loss      float? score - played_score (never below 0), men
    class     str?   "inaccuracy", "mistake", "blunder", or null (hub_engine.quality)
    outcome   str?   the position's own outcome: "loss" when the side to move has no legal move
                     (not searched: best null, score -100, pv empty), else null. Not the
                     game's result (the PDN Result tag); records written before it had this
                     name call it `result`, and are read as if they said `outcome`.
    table     str?   win / draw / loss when the endgame tables hold the position exactly
    book      bool   the opening book holds the position with all its moves (the engine would
                     play it from the book; the analysis searches it all the same)
    multipv   [dict] with multipv N > 1 only: the N best moves, best first, each
                     {"move", "score", "pv"} (the first is `best`, `score`, `pv`)
    limits    dict   the search limits: {"depth": ..., "nodes": ..., "move_time": ...} (and
                     "multipv" when above 1)
    engine    str    the program and evaluation that computed it (`hub-engine 0.1.0 eval 1a2b3c4d`)
    time      float  seconds spent on the position (both searches)

The two searches of a played move can disagree by a few hundredths in its favour (search noise):
the loss is then 0, never negative.

Resume: when the output file exists, its records are reused, and only those: a record counts for
a position when its key, variant, position and played move are the position's, and the run
refuses (ResumeError, before reading any input) when the file holds records computed with other
settings, since mixing them would make the file say two things. An unfinished last line (no
newline, as a killed run leaves it) is cut off and done again; lines that are not JSON are
ignored.
"""
from __future__ import annotations

import json
import os
import zlib
from dataclasses import dataclass, field
from typing import Any

from hub_engine import __version__
from hub_engine.learn.weights import DATA_DIR, shipped_path
from hub_engine.quality import classify
from hub_engine.rules.variants import VARIANTS

class ResumeError(ValueError):
    """The output file holds records computed with other settings."""


def engine_id() -> str:
    """What computed a record: the program's version and one checksum of its evaluation data
    (the two things besides the limits that change results): the hand evaluation's eval.json and
    every variant's learned weight file as the engine reads it (the package's, or those of
    $HUB_ENGINE_WEIGHTS_DIR), so that a run resumed with other weights does not reuse records."""
    files = [DATA_DIR / "eval.json"]
    files += sorted({shipped_path(v) for v in VARIANTS})
    crc = 0
    for path in files:
        try:
            crc = zlib.crc32(path.read_bytes(), crc)
        except OSError:
            crc = zlib.crc32(f"missing {path.name}".encode(), crc)
    return f"hub-engine {__version__} eval {crc:08x}"


def make_record(task: dict, res: dict, limits: dict, engine: str) -> dict:
    """The output line for a task and its search result."""
    score, played_score = res.get("score"), res.get("played_score")
    loss = None
    if task.get("played") is not None and score is not None and played_score is not None:
        loss = round(max(0.0, score - played_score), 2)
    return {"game": task["game"], "ply": task["ply"], "label": task.get("label"),
            "variant": task["variant"], "position": task["position"], "fen": task["fen"],
            "side": task["side"], "played": task.get("played"), "best": res.get("best"),
            "score": score, "pv": list(res.get("pv") or []), "depth": int(res.get("depth") or 0),
            "nodes": int(res.get("nodes") or 0), "played_score": played_score, "loss": loss,
            "class": classify(loss), "outcome": res.get("outcome"), "table": res.get("table"),
            "book": bool(res.get("book")),
            **({"multipv": res["multipv"]} if res.get("multipv") else {}),
            "limits": dict(limits), "engine": engine, "time": float(res.get("time") or 0.0)}


def upgrade(rec: dict) -> dict:
    """A record as this version writes it: `result: "loss"` of older records is `outcome`."""
    if rec.get("outcome") is None and rec.get("result") == "loss":
        rec = {k: v for k, v in rec.items() if k != "result"}
        rec["outcome"] = "loss"
    return rec


def fingerprint(rec: dict) -> tuple:
    """What a record must share with a task to stand for it on resume (besides its key)."""
    return (rec.get("variant"), rec.get("position"), rec.get("played"))


def settings_key(limits: Any, engine: Any) -> str:
    """The settings of a record as one comparable string."""
    return json.dumps({"limits": limits, "engine": engine}, sort_keys=True)


def describe(settings: str) -> str:
    """A settings_key in words, for messages."""
    s = json.loads(settings)
    limits = s.get("limits")
    if not isinstance(limits, dict):
        return "unknown settings (written by an older hub-engine)"
    said = ", ".join(f"{k.replace('_', '-')} {v}" for k, v in limits.items() if v is not None)
    return f"{said or 'no limit'}, {s.get('engine')}"


@dataclass
class Done:
    """What an output file already holds: the fingerprint of each key's last record, the
    settings they were computed with, and (when asked for) the records themselves."""

    keys: dict[tuple[str, int], tuple] = field(default_factory=dict)   # -> (fingerprint, class)
    settings: dict[str, int] = field(default_factory=dict)      # settings_key -> count
    records: dict[tuple[str, int], dict] | None = None
    size: int = 0                                               # bytes of complete lines


def read_done(path: str, keep_records: bool = False) -> Done:
    """Records already in an output file; an unfinished last line is cut off the file."""
    done = Done(records={} if keep_records else None)
    if not os.path.isfile(path):          # nothing yet, or a device or pipe: nothing to resume
        return done
    end = 0
    with open(path, "rb") as f:
        for raw in f:
            if not raw.endswith(b"\n"):
                break                            # an unfinished line: cut below
            end += len(raw)
            if not raw.strip():
                continue
            try:
                rec = json.loads(raw)
                key = (rec["game"], int(rec["ply"]))
            except (ValueError, KeyError, TypeError):
                continue
            done.keys[key] = (fingerprint(rec), rec.get("class"))
            s = settings_key(rec.get("limits"), rec.get("engine"))
            done.settings[s] = done.settings.get(s, 0) + 1
            if done.records is not None:
                done.records[key] = upgrade(rec)
    if end < os.path.getsize(path):
        with open(path, "r+b") as f:
            f.truncate(end)
    done.size = end
    return done
