"""Reading the inputs into tasks: one task per position to search.

Inputs are PDN files (games in any supported variant, picked per game by its GameType tag, the
`variant` argument being the default), files of PDN FEN lines, or files of Hub position strings
(one a line; `#` starts a comment line); see `hub_engine.rules.pdn` for what is read. The files
are read as a stream: a game becomes tasks as soon as it is read, so memory stays flat and the
first results come at once whatever the size of the input.

(game id, ply) is a task's key. A game id is `FILE#N` for the N-th game of a PDN file and
`FILE:L` for line L of a FEN / Hub file, FILE as given.
"""
from __future__ import annotations

import os
from typing import Callable, Iterator

from hub_engine.rules import pdn
from hub_engine.rules.pdn import ByteCount, LinePosition, PdnError, PdnGame
from hub_engine.rules.position import Position
from hub_engine.rules.variants import Variant

FORMATS = ("auto", "pdn", "fen", "hub")

Source = PdnGame | LinePosition


def game_id(file: str, number: int, kind: str = "pdn") -> str:
    return f"{file}#{number}" if kind == "pdn" else f"{file}:{number}"


def source_id(src: Source) -> str:
    if isinstance(src, PdnGame):
        return game_id(src.file, src.number)
    return game_id(src.file, src.line, src.kind)


def _task(kind: str, file: str, number: int, ply: int, label: str | None, pos: Position,
          played: str | None, start: str, history: list[str]) -> dict:
    """A position to search; `game`, `ply` are its key, `file`, `number` locate it for errors."""
    return {"kind": kind, "file": file, "number": number, "game": game_id(file, number, kind),
            "ply": ply, "label": label, "variant": pos.variant.name,
            "position": pos.hub(), "fen": pos.fen(), "side": pos.side_name, "played": played,
            "start": start, "history": history, "over": not pos.legal_moves()}


def source_tasks(src: Source) -> Iterator[dict]:
    """The tasks of one game or position line, in ply order (none when it is unreadable)."""
    if isinstance(src, LinePosition):
        if src.position is not None:
            yield _task(src.kind, src.file, src.line, 0, None, src.position, None,
                        src.position.hub(), [])
        return
    if src.start is None:
        return
    start = src.start.hub()
    history: list[str] = []
    for ply, pos, move in src.positions():
        played = move.hub() if move is not None else None
        label = src.moves[ply].label if ply < len(src.moves) else None
        yield _task("pdn", src.file, src.number, ply, label, pos, played, start, list(history))
        if played is not None:
            history.append(played)


class Reader:
    """The input files as a stream of games and position lines, in input order; errors go to
    `on_error` as they are met. `fraction()` says how much of the input has been read."""

    def __init__(self, paths: list[str], variant: Variant, fmt: str,
                 on_error: Callable[[PdnError], None]):
        if fmt not in FORMATS:
            raise ValueError(f"unknown format {fmt!r} ({', '.join(FORMATS)})")
        self.paths = list(dict.fromkeys(paths))      # a file given twice is read once
        self.variant, self.fmt, self.on_error = variant, fmt, on_error
        self.bytes = ByteCount()
        self.total = sum(_size(p) for p in self.paths)
        self.games = 0
        self.complete: set[str] = set()              # files read to their end

    def fraction(self) -> float:
        return min(1.0, self.bytes.n / self.total) if self.total else 1.0

    def sources(self) -> Iterator[Source]:
        for name in self.paths:
            try:
                kind = pdn.detect_format(name) if self.fmt == "auto" else self.fmt
                lines = pdn.file_lines(name, self.bytes)
                if kind == "pdn":
                    items: Iterator[Source] = pdn.iter_pdn(lines, name, self.variant)
                else:
                    items = pdn.iter_position_lines(lines, name, self.variant, kind)
                for src in items:
                    if isinstance(src, PdnGame):
                        self.games += 1
                        for err in src.errors:
                            self.on_error(err)
                    elif src.error is not None:
                        self.on_error(src.error)
                    yield src
                self.complete.add(name)
            except OSError as exc:
                self.on_error(PdnError(name, None, None, f"cannot read: {exc.strerror or exc}"))


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0
