"""The state file of a match or a tournament: every finished game, so a killed run resumes.

A JSON Lines file: a header with the kind ("match" or "tournament"), a format version and the
settings every result depends on, then one line per finished game with its key and its record.
Opening an existing file reads its games back after checking that the settings are the same,
and cuts off an unfinished last line (a kill in the middle of a write); that game is played
again. Each line is flushed and synced as it is written.
"""
from __future__ import annotations

import json
import os
import signal
import threading
from contextlib import contextmanager
from typing import IO, Iterator

from hub_engine.matches.games import GameRecord

STATE_VERSION = 1


class StateFileError(Exception):
    """The state file cannot be used: unreadable, of another kind, or of other settings."""


class StateFile:
    """The finished games, kept in memory and (with a path) appended to the file."""

    def __init__(self, path: str | None, kind: str, settings: dict):
        self.path = path
        self.kind = kind
        self.settings = json.loads(json.dumps(settings))      # as JSON gives it back
        self.records: dict[str, GameRecord] = {}
        self.file: IO[str] | None = None
        if path is None:
            return
        try:
            if os.path.exists(path) and os.path.getsize(path) > 0:
                self._load(path)
                self.file = open(path, "a", encoding="utf-8")
            else:
                self.file = open(path, "w", encoding="utf-8")
                self._write({"type": kind, "version": STATE_VERSION, "settings": self.settings})
        except OSError as exc:
            raise StateFileError(f"cannot use the state file {path}: {exc}") from None

    def _load(self, path: str) -> None:
        with open(path, "rb") as f:
            data = f.read()
        complete = data[:data.rfind(b"\n") + 1]
        if len(complete) < len(data):
            with open(path, "r+b") as f:
                f.truncate(len(complete))
        try:
            lines = complete.decode("utf-8").splitlines()
            head = json.loads(lines[0]) if lines else {}
        except (UnicodeDecodeError, json.JSONDecodeError):
            lines, head = [], {}
        if not isinstance(head, dict) or head.get("type") != self.kind \
                or head.get("version") != STATE_VERSION:
            raise StateFileError(f"{path} is not a {self.kind} state file (version "
                                 f"{STATE_VERSION}); give another --state file")
        if head.get("settings") != self.settings:
            old = head.get("settings") or {}
            diff = sorted(k for k in set(old) | set(self.settings)
                          if old.get(k) != self.settings.get(k))
            raise StateFileError(f"{path} holds a {self.kind} with other settings ("
                                 f"{', '.join(diff)} differ); run it with its own options, or "
                                 "give another --state file")
        for line in lines[1:]:
            try:
                entry = json.loads(line)
                rec = GameRecord.from_dict(entry["game"])
                key = entry["key"]
            except (json.JSONDecodeError, KeyError, TypeError, ValueError):
                continue                 # a damaged line: that game is played again
            self.records.setdefault(key, rec)

    def _write(self, entry: dict) -> None:
        self.file.write(json.dumps(entry) + "\n")
        self.file.flush()
        os.fsync(self.file.fileno())

    def add(self, key: str, rec: GameRecord) -> None:
        """Hold the game in `records` and write it; a Ctrl-C waits until both are done, so
        what the run reports at its end is what the file holds."""
        with _interrupt_held():
            self.records[key] = rec
            if self.file is not None:
                try:
                    self._write({"type": "game", "key": key, "game": rec.to_dict()})
                except OSError as exc:
                    raise StateFileError(f"cannot write the state file {self.path}: "
                                         f"{exc}") from None

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
            self.file = None


@contextmanager
def _interrupt_held() -> Iterator[None]:
    """Hold a Ctrl-C (SIGINT) that comes inside the block until its end (main thread only:
    the only one Python runs signal handlers in). A sync to disk takes milliseconds, long
    enough for a Ctrl-C to land between a game's write and its record otherwise."""
    previous = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or previous is None:
        yield                                   # None: a handler set outside Python
        return
    held: list[int] = []
    signal.signal(signal.SIGINT, lambda signum, frame: held.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if held:                                # delivered again, to whatever was there before
            signal.raise_signal(signal.SIGINT)


def interrupted_line(done: int, total: int, path: str | None) -> str:
    """What a match or a tournament stopped by Ctrl-C prints: how far it got and how to go on."""
    return (f"interrupted after {done} of {total} games"
            + (f"; run the same command again to play the rest (state: {path})" if path else ""))
