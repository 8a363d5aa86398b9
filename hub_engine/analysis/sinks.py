"""The run's output files: the JSON Lines records and the annotated PDN.

Both are opened and checked before any input is read (a missing directory or a full disk shows
at once), and every later failure is an OutputError that names the file. The annotated PDN is
written game by game as each game's positions are done, in input order, into a temporary file
moved into place at the end of the run (an interrupted run leaves none).
"""
from __future__ import annotations

import json
import os
import stat
import sys
from collections import deque
from dataclasses import dataclass, field
from typing import IO, Any

from hub_engine.analysis.annotate import source_pdn
from hub_engine.analysis.records import Done, ResumeError, describe, read_done
from hub_engine.analysis.tasks import Source, source_id


class OutputError(RuntimeError):
    """An output file cannot be written; the message names it."""


def open_for_writing(path: str, mode: str, what: str) -> IO[str]:
    """Open an output file, or OutputError naming it and what is wrong; a regular file (or a
    device such as /dev/full) is tried with one byte, taken back, so that a full disk shows now."""
    try:
        f = open(path, mode, encoding="utf-8")
    except OSError as exc:
        parent = os.path.dirname(os.path.abspath(path))
        why = exc.strerror or str(exc)
        if isinstance(exc, FileNotFoundError) and not os.path.isdir(parent):
            why = f"the directory {parent} does not exist"
        raise OutputError(f"cannot write {what} {path}: {why}") from None
    try:
        st = os.fstat(f.fileno())
        if stat.S_ISREG(st.st_mode) or (stat.S_ISCHR(st.st_mode) and not f.isatty()):
            f.write("\n")
            f.flush()
            if stat.S_ISREG(st.st_mode):
                f.truncate(st.st_size)
                f.seek(st.st_size)
    except OSError as exc:
        try:
            f.close()              # closes the file even though the probe byte cannot go out
        except OSError:
            pass
        raise OutputError(f"cannot write {what} {path}: {exc.strerror or exc}") from None
    return f


class _OutFile:
    """An output file whose every failure is an OutputError naming it."""

    what = "the output"
    name: str | None = None
    f: IO[str]
    close_it = False

    def _fail(self, exc: OSError) -> OutputError:
        return OutputError(f"cannot write {self.what} {self.name or '-'}: {exc.strerror or exc}")

    def _put(self, text: str) -> None:
        try:
            self.f.write(text)
            self.f.flush()
        except OSError as exc:
            if isinstance(exc, BrokenPipeError) and self.f is sys.stdout:
                raise           # stdout's reader has gone (`| head`): hub-engine stops quietly
            raise self._fail(exc) from None

    def _close(self) -> None:
        if self.close_it:
            self.close_it = False
            try:
                self.f.close()
            except OSError as exc:
                raise self._fail(exc) from None


class Sink(_OutFile):
    """The JSON Lines output, opened and checked before any input is read."""

    def __init__(self, output: Any, resume: bool, keep_records: bool, settings: str):
        self.name: str | None = None
        self.close_it = False
        self.done = Done()
        if hasattr(output, "write"):
            self.f = output
            return
        if os.fspath(output) == "-":
            self.f = sys.stdout
            return
        self.name = os.fspath(output)
        if os.path.isdir(self.name):
            raise OutputError(f"cannot write the output {self.name}: it is a directory")
        if resume:
            try:
                self.done = read_done(self.name, keep_records)
            except OSError as exc:
                raise OutputError(f"cannot read the output {self.name} to resume it: "
                                  f"{exc.strerror or exc}") from None
            other = [s for s in self.done.settings if s != settings]
            if other:
                n = sum(self.done.settings[s] for s in other)
                raise ResumeError(
                    f"{self.name} holds {n} records computed with other settings "
                    f"({describe(other[0])}); this run asks for {describe(settings)}. "
                    "Start the file afresh with --no-resume, or write to another --output")
        self.f = open_for_writing(self.name, "a" if resume else "w", "the output")
        self.close_it = True

    def write(self, rec: dict) -> None:
        self._put(json.dumps(rec, separators=(", ", ": ")) + "\n")

    def close(self) -> None:
        self._close()

    def drop_stale(self, stale: set[tuple[str, int]]) -> None:
        """Remove the lines of an earlier run that this run has replaced (its new lines follow)."""
        if not stale or self.name is None or not os.path.isfile(self.name):
            return
        tmp = f"{self.name}.tmp"
        offset = 0
        with open(self.name, "rb") as src, open(tmp, "wb") as dst:
            for raw in src:
                old = offset < self.done.size
                offset += len(raw)
                if old:
                    try:
                        rec = json.loads(raw)
                        if (rec["game"], int(rec["ply"])) in stale:
                            continue
                    except (ValueError, KeyError, TypeError):
                        pass
                dst.write(raw)
        os.replace(tmp, self.name)


@dataclass
class _Open:
    """A game of the annotated PDN waiting for its positions' records."""

    src: Source
    records: dict[int, dict] = field(default_factory=dict)
    pending: set[int] = field(default_factory=set)
    read: bool = False           # all its tasks are made


class Annotator(_OutFile):
    """Writes the annotated PDN in input order, each game once its positions are done; into
    a temporary file moved into place by `finish` (a regular file), or straight into a stream."""

    what = "the annotated PDN"

    def __init__(self, target: Any):
        self.name: str | None = None
        self.tmp: str | None = None
        self.close_it = False
        if hasattr(target, "write"):
            self.f = target
        else:
            self.name = os.fspath(target)
            direct = os.path.exists(self.name) and not os.path.isfile(self.name)   # a device
            self.tmp = None if direct else f"{self.name}.tmp"
            self.f = open_for_writing(self.tmp or self.name, "w", "the annotated PDN")
            self.close_it = True
        self.queue: deque[_Open] = deque()
        self.by_id: dict[str, _Open] = {}

    def open(self, src: Source) -> _Open:
        entry = _Open(src)
        self.queue.append(entry)
        self.by_id[source_id(src)] = entry
        return entry

    def read(self, entry: _Open) -> None:
        entry.read = True
        self.flush()

    def result(self, task: dict, rec: dict | None) -> None:
        entry = self.by_id.get(task["game"])
        if entry is not None:
            entry.pending.discard(task["ply"])
            if rec is not None:
                entry.records[task["ply"]] = rec
            self.flush()

    def flush(self) -> None:
        while self.queue and self.queue[0].read and not self.queue[0].pending:
            entry = self.queue.popleft()
            del self.by_id[source_id(entry.src)]
            text = source_pdn(entry.src, entry.records)
            if text:
                self._put(text)

    def finish(self) -> None:
        self.flush()
        self._close()
        if self.tmp is not None:
            os.replace(self.tmp, self.name)

    def abandon(self) -> None:
        """An interrupted run writes no annotated PDN."""
        try:
            self._close()
        except OutputError:
            pass
        if self.tmp is not None and os.path.exists(self.tmp):
            os.remove(self.tmp)
