"""Analysis records (the JSON Lines of `hub-engine analyse`) read, checked and put in order.

A record is one analysed position: see hub_engine.analysis.records for its fields. The report groups them
into collections: a game (records of one `FILE#N`, by ply) or a part of a position list (records
of `FILE:LINE`, by line, at most LINES_PER_PAGE a part). Records arrive in the order the analysis
finished them; everything here is sorted, so the same records give the same report whatever
their order. When the same position appears twice (two files joined), the later record wins.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import IO, Iterable

from hub_engine.quality import CLASSES
from hub_engine.rules.position import Position
from hub_engine.report.tags import split_game_id
from hub_engine.rules.variants import VARIANTS

LINES_PER_PAGE = 200          # positions of a position list shown on one page of the report
_POSITION_RE = re.compile(r"[WB][wbWBe]{32}")


class RecordError(ValueError):
    """A record that cannot be shown; the message says which field is wrong."""


@dataclass
class Collection:
    """One page of the report: a game, or up to LINES_PER_PAGE positions of a position list."""

    key: tuple                    # sort key: (file, kind, number)
    kind: str                     # "game" or "positions"
    file: str
    number: int                   # game number in its file, or first line of the part
    variant: str
    records: list[dict] = field(default_factory=list)

    @property
    def id(self) -> str:
        return f"{self.file}#{self.number}" if self.kind == "game" else f"{self.file}:{self.number}"


def _number(value, name: str, optional: bool = True) -> float | None:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise RecordError(f"{name} is {value!r}, not a number")
    return value


def check_record(rec) -> dict:
    """The record with its fields checked (RecordError otherwise); missing optional fields None.

    A record's `outcome` is its position's ("loss": no legal move); its `result`, if any, is the
    game's (the PDN Result tag). Records written before `outcome` had its name said
    `result: "loss"`: that is read as the outcome, not as a game result.
    """
    if not isinstance(rec, dict):
        raise RecordError("not a JSON object")
    if rec.get("outcome") is None and rec.get("result") == "loss":
        rec = {k: v for k, v in rec.items() if k != "result"}
        rec["outcome"] = "loss"
    for name in ("game", "variant", "position"):
        if not isinstance(rec.get(name), str):
            raise RecordError(f"no {name} (string) in the record")
    if rec["variant"] not in VARIANTS:
        raise RecordError(f"unknown variant {rec['variant']!r}")
    if not _POSITION_RE.fullmatch(rec["position"]):
        raise RecordError(f"bad position {rec['position']!r} (33 characters: W or B, then "
                          "w b W B e for the 32 squares)")
    ply = rec.get("ply")
    if isinstance(ply, bool) or not isinstance(ply, int) or ply < 0:
        raise RecordError(f"ply is {ply!r}, not a whole number >= 0")
    for name in ("score", "played_score", "loss", "nodes", "depth"):
        _number(rec.get(name), name)
    for name in ("played", "best", "label", "side"):
        if rec.get(name) is not None and not isinstance(rec[name], str):
            raise RecordError(f"{name} is {rec[name]!r}, not a string")
    pv = rec.get("pv")
    if pv is not None and (not isinstance(pv, list) or not all(isinstance(m, str) for m in pv)):
        raise RecordError("pv is not a list of move strings")
    if rec.get("class") is not None and rec["class"] not in CLASSES:
        raise RecordError(f"class is {rec['class']!r}, not one of {', '.join(CLASSES)}")
    return rec


def read_jsonl(stream: IO[str], name: str) -> tuple[list[dict], list[str]]:
    """The records of a JSON Lines stream and an error message per line that is not one."""
    records, errors = [], []
    for i, line in enumerate(stream, start=1):
        if not line.strip():
            continue
        try:
            records.append(check_record(json.loads(line)))
        except json.JSONDecodeError as exc:
            errors.append(f"{name} line {i}: not JSON ({exc.msg})")
        except RecordError as exc:
            errors.append(f"{name} line {i}: {exc}")
    return records, errors


def read_files(paths: Iterable[str | os.PathLike]) -> tuple[list[dict], list[str]]:
    """All records of the files in order (OSError for a file that cannot be read)."""
    records, errors = [], []
    for path in paths:
        name = os.fspath(path)
        with open(name, encoding="utf-8", errors="replace") as f:
            r, e = read_jsonl(f, name)
        records += r
        errors += e
    return records, errors


def _after(rec: dict) -> dict | None:
    """A node for the position after a record's played move (when nothing analysed it)."""
    try:
        pos = Position.from_hub(rec["variant"], rec["position"]).play(rec["played"])
    except ValueError:
        return None
    return {"game": rec["game"], "ply": rec["ply"] + 1, "variant": rec["variant"],
            "position": pos.hub(), "side": pos.side_name, "played": None, "best": None,
            "score": None, "pv": [], "computed": True}


def collections(records: Iterable[dict]) -> list[Collection]:
    """The records grouped into the report's pages, sorted; games get their final position."""
    latest: dict[tuple[str, int], dict] = {}
    for rec in records:
        latest[(rec["game"], rec["ply"])] = rec
    games: dict[str, Collection] = {}
    lines: dict[str, list[tuple[int, dict]]] = {}
    for (gid, _ply), rec in latest.items():
        parsed = split_game_id(gid)
        if parsed is not None and parsed[0] == "lines":
            lines.setdefault(parsed[1], []).append((parsed[2], rec))
            continue
        c = games.get(gid)
        if c is None:
            file, number = (parsed[1], parsed[2]) if parsed else (gid, 0)
            c = games[gid] = Collection((file, 0, number), "game", file, number, rec["variant"])
        c.records.append(rec)
    out = list(games.values())
    for c in out:
        c.records.sort(key=lambda r: r["ply"])
        filled = []
        for i, rec in enumerate(c.records):
            filled.append(rec)
            nxt = c.records[i + 1]["ply"] if i + 1 < len(c.records) else None
            if rec.get("played") and nxt != rec["ply"] + 1:
                after = _after(rec)
                if after is not None:
                    filled.append(after)
        c.records = filled
    for file, items in lines.items():
        items.sort(key=lambda item: item[0])
        for start in range(0, len(items), LINES_PER_PAGE):
            part = items[start:start + LINES_PER_PAGE]
            c = Collection((file, 1, part[0][0]), "positions", file, part[0][0], part[0][1]["variant"])
            for line, rec in part:
                c.records.append(dict(rec, line=line))
            out.append(c)
    out.sort(key=lambda c: c.key)
    return out
