"""The build's work file: an append-only text log of roots and scored positions.

    #hub-engine-book-log 1 {"ruleset": ..., "nodes": ..., "eval": ..., "eval_id": ...}
    R <hub position> <set>/<name>                  a root of the book (start, ballot)
    S <hub position> <score> <depth> <nodes>       a scored position

`score` is the search's score for the side to move in core units (a man = 100; mates and table
results as the core counts them), `depth` the last completed iteration, `nodes` the nodes spent.
Each line is written and flushed as soon as its search returns, so a killed build loses only the
searches in flight; a last line cut short by the kill is dropped when the log is opened again.
The header's settings decide every score: a build with other settings is refused, so that one
book never mixes two kinds of search. The tree (which positions are expanded, their values) is
not stored: it follows from the scored positions (a position is expanded when all its children
are scored).
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from hub_engine.datafiles import write_atomically

MAGIC = "#hub-engine-book-log"
FORMAT = 1


class LogError(ValueError):
    """A work log that cannot be read or belongs to other settings."""


@dataclass
class LogContents:
    settings: dict
    roots: list[tuple[str, str]] = field(default_factory=list)          # (hub, label)
    scored: dict[str, tuple[int, int, int]] = field(default_factory=dict)  # hub -> (score, depth, nodes)


def read_log(path: Path) -> LogContents | None:
    """The log's contents (None when there is no log); an unfinished last line is ignored."""
    path = Path(path)
    if not path.exists():
        return None
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise LogError(f"{path}: cannot read the book log ({exc})") from None
    lines = text.split("\n")
    lines.pop()                     # the part after the last newline: empty, or a cut line
    if not lines or not lines[0].startswith(MAGIC + " "):
        raise LogError(f"{path}: not a book build log")
    try:
        version, settings = lines[0][len(MAGIC) + 1:].split(" ", 1)
        settings = json.loads(settings)
    except ValueError:
        raise LogError(f"{path}: damaged book log header") from None
    if version != str(FORMAT):
        raise LogError(f"{path}: book log format {version}, this engine writes {FORMAT}")
    out = LogContents(settings)
    for number, line in enumerate(lines[1:], 2):
        parts = line.split(" ", 2 if line.startswith("R ") else 4)
        try:
            if parts[0] == "R":
                out.roots.append((parts[1], parts[2]))
            elif parts[0] == "S":
                out.scored[parts[1]] = (int(parts[2]), int(parts[3]), int(parts[4]))
            else:
                raise ValueError
        except (ValueError, IndexError):
            raise LogError(f"{path}:{number}: damaged book log line {line[:60]!r}") from None
    return out


def header_line(settings: dict) -> str:
    return f"{MAGIC} {FORMAT} {json.dumps(settings, sort_keys=True)}\n"


def root_line(hub: str, label: str) -> str:
    return f"R {hub} {label}\n"


def scored_line(hub: str, score: int, depth: int, nodes: int) -> str:
    return f"S {hub} {score} {depth} {nodes}\n"


def write_log(path: Path, settings: dict, roots: list[tuple[str, str]],
               scored: dict[str, tuple[int, int, int]]) -> None:
    """Write a whole log at once (hub_engine.book.unpack), atomically: a temporary file, then
    a rename, so a killed write leaves no half log to resume from."""
    lines = [header_line(settings)]
    lines += [root_line(hub, label) for hub, label in roots]
    lines += [scored_line(hub, s, d, n) for hub, (s, d, n) in scored.items()]
    write_atomically(Path(path), "".join(lines).encode("utf-8"))


class WorkLog:
    """Appends to a log; opening it checks (or writes) the settings header and cuts a last
    line the previous run left unfinished."""

    def __init__(self, path: Path, settings: dict) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        old = read_log(self.path)
        if old is not None and old.settings != settings:
            diff = sorted(k for k in set(old.settings) | set(settings)
                          if old.settings.get(k) != settings.get(k))
            raise LogError(f"{self.path} was built with other settings ({', '.join(diff)}: "
                           f"{', '.join(f'{k}={old.settings.get(k)}' for k in diff)}); "
                           "give the same settings, or another --dir to start a new book")
        self.contents = old or LogContents(settings)
        if old is None:
            with open(self.path, "w", encoding="utf-8") as f:
                f.write(header_line(settings))
        else:
            self._cut_unfinished()
        self._f = open(self.path, "a", encoding="utf-8")
        self._unsynced = 0

    def _cut_unfinished(self) -> None:
        with open(self.path, "rb+") as f:
            data = f.read()
            end = data.rfind(b"\n") + 1
            if end != len(data):
                f.truncate(end)

    def root(self, hub: str, label: str) -> None:
        self._write(root_line(hub, label))

    def scored(self, hub: str, score: int, depth: int, nodes: int) -> None:
        self._write(scored_line(hub, score, depth, nodes))

    def _write(self, line: str) -> None:
        self._f.write(line)
        self._f.flush()
        self._unsynced += 1
        if self._unsynced >= 200:
            os.fsync(self._f.fileno())
            self._unsynced = 0

    def close(self) -> None:
        if not self._f.closed:
            self._f.flush()
            os.fsync(self._f.fileno())
            self._f.close()
