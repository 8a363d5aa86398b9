"""Typed GUI -> engine commands and `parse_command`, which turns one input line into one.

Unknown arguments are ignored (Scan's own `wolf=`, `handicap=`, `ply=` appear in the wild);
an unknown command or a value that cannot be read raises `ProtocolError` naming the culprit.
Numbers are ASCII digits only (Python's `\\d` and `int()` also take other scripts' digits), and a
number too large to mean anything is clamped to `NUMBER_LIMIT` instead of overflowing later.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from protocol.errors import ProtocolError, shorten
from protocol.tokens import Line, parse_line

GoMode = Literal["think", "ponder", "analyze"]
GO_MODES: tuple[GoMode, ...] = ("think", "ponder", "analyze")

NUMBER_LIMIT = 10**18
"""Numbers beyond +/- this are read as +/- this: more than any search can use, and it fits the
64-bit integers of the compiled core (a 4,301-digit integer would even make `int()` fail)."""

_INT = re.compile(r"[+-]?[0-9]+")
_REAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


@dataclass(frozen=True)
class Hub:
    """`hub`: identify, list parameters, then `wait`."""


@dataclass(frozen=True)
class SetParam:
    """`set-param name=N value=V`: the value stays a string; the engine interprets it."""

    name: str
    value: str


@dataclass(frozen=True)
class Init:
    """`init`: load what is heavy, then `ready`."""


@dataclass(frozen=True)
class NewGame:
    """`new-game`: forget earlier searches."""


@dataclass(frozen=True)
class Pos:
    """`pos [pos=P] [moves="m1 m2"] [start]`; pos None means the variant's initial position."""

    pos: str | None = None
    moves: list[str] = field(default_factory=list)
    start: bool = False


@dataclass(frozen=True)
class Level:
    """`level ...`: the limits named on one line; None means "not said on this line"."""

    depth: int | None = None
    nodes: int | None = None
    move_time: float | None = None
    time: float | None = None
    inc: float | None = None
    moves: int | None = None
    infinite: bool = False


@dataclass(frozen=True)
class Go:
    """`go [think|ponder|analyze]`; a bare `go` thinks."""

    mode: GoMode = "think"


@dataclass(frozen=True)
class Ping:
    """`ping`: answer `pong`, even during a search."""


@dataclass(frozen=True)
class PonderHit:
    """`ponder-hit`: the pondered move was played; the clock runs from now."""


@dataclass(frozen=True)
class Stop:
    """`stop`: end the search quickly and print `done`."""


@dataclass(frozen=True)
class Quit:
    """`quit`: exit at once."""


Command = Hub | SetParam | Init | NewGame | Pos | Level | Go | Ping | PonderHit | Stop | Quit


def _clamp(value: float) -> float:
    """`value` within +/- NUMBER_LIMIT (infinity included)."""
    return max(-NUMBER_LIMIT, min(NUMBER_LIMIT, value))


def _int_arg(line: Line, name: str) -> int | None:
    """An integer argument; `12.0` and `1e6` are accepted since some clients format every
    number as a real. Clamped to +/- NUMBER_LIMIT."""
    text = line.value(name)
    if text is None:
        return None
    if _INT.fullmatch(text):
        sign = -1 if text.startswith("-") else 1
        digits = text.lstrip("+-").lstrip("0") or "0"
        if len(digits) > len(str(NUMBER_LIMIT)):   # int() refuses over 4,300 digits
            return sign * NUMBER_LIMIT
        return int(_clamp(sign * int(digits)))
    if _REAL.fullmatch(text):
        value = float(_clamp(float(text)))
        if value.is_integer():
            return int(value)
    raise ProtocolError(f"{line.command} {name}: expected an integer, got '{shorten(text)}'")


def _real_arg(line: Line, name: str) -> float | None:
    """A number of seconds, integer or real (`time=29`, `time=9.5`); may be negative.
    Clamped to +/- NUMBER_LIMIT (`time=1e400` is a number, though not a finite float)."""
    text = line.value(name)
    if text is None:
        return None
    if _REAL.fullmatch(text):
        return float(_clamp(float(text)))
    raise ProtocolError(f"{line.command} {name}: expected a number, got '{shorten(text)}'")


def _set_param(line: Line) -> SetParam:
    name = line.value("name")
    value = line.value("value")
    if not name:
        raise ProtocolError("set-param needs name=...")
    if value is None:
        raise ProtocolError(f"set-param {shorten(name)} needs value=...")
    return SetParam(name, value)


def _pos(line: Line) -> Pos:
    moves = line.value("moves")
    return Pos(pos=line.value("pos"), moves=moves.split() if moves else [],
               start=line.has_flag("start"))


def _level(line: Line) -> Level:
    return Level(
        depth=_int_arg(line, "depth"),
        nodes=_int_arg(line, "nodes"),
        move_time=_real_arg(line, "move-time"),
        time=_real_arg(line, "time"),
        inc=_real_arg(line, "inc"),
        moves=_int_arg(line, "moves"),
        infinite=line.has_flag("infinite"),
    )


def _go(line: Line) -> Go:
    modes = [flag for flag in line.flags() if flag in GO_MODES]
    return Go(modes[-1]) if modes else Go()


_PARSERS: dict[str, Callable[[Line], Command]] = {
    "hub": lambda line: Hub(),
    "set-param": _set_param,
    "init": lambda line: Init(),
    "new-game": lambda line: NewGame(),
    "pos": _pos,
    "level": _level,
    "go": _go,
    "ping": lambda line: Ping(),
    "ponder-hit": lambda line: PonderHit(),
    "stop": lambda line: Stop(),
    "quit": lambda line: Quit(),
}


def parse_command(text: str) -> Command | None:
    """One input line -> its command; None for a blank line; ProtocolError when unreadable."""
    line = parse_line(text)
    if line is None:
        return None
    parser = _PARSERS.get(line.command)
    if parser is None:
        raise ProtocolError(f"unknown command {shorten(line.command)}")
    return parser(line)

