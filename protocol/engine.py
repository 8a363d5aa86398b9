"""What the session needs from an engine: the `EngineInterface` and the data it exchanges.

The session drives any object with these methods; `hub_engine` implements them for draughts,
tests implement them with a fake. Nothing here knows a rule of the game.

Threading contract (the session keeps its side of it):
- every method except `stop` and `ponder_hit` is called from the session's main thread, and
  never while `search` is running;
- `search` runs in a worker thread; meanwhile only `stop` and `ponder_hit` are called, from the
  main thread. The session calls them only after the worker has entered `search`, but they can
  still overtake the first lines of `search`, so `search` should reset its stop state first
  thing and keep a ponder-hit that came before it was ready. The session repeats `stop()` every few milliseconds until `search`
  returns, so an early stop is never lost; a repeated (stale) stop may arrive just after
  `search` returned and must therefore be forgotten when the next `search` starts.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from typing import Literal, Protocol

from protocol.commands import GoMode, Level

ParamType = Literal["bool", "int", "real", "string", "enum"]
PARAM_TYPES: tuple[ParamType, ...] = ("bool", "int", "real", "string", "enum")


@dataclass(frozen=True)
class ParamSpec:
    """One engine parameter as announced by `hub`: `param name=N value=V type=T ...`.

    Checked at construction because pydraughts crashes on a value holding `=` and splits
    `values` on blanks: a bad declaration should fail in the engine's tests, not at a GUI.
    """

    name: str
    type: ParamType
    value: str | int | float | bool
    min: int | float | None = None
    max: int | float | None = None
    values: list[str] | None = None

    def __post_init__(self) -> None:
        if self.type not in PARAM_TYPES:
            raise ValueError(f"param {self.name}: unknown type {self.type!r}")
        if self.type == "enum" and not self.values:
            raise ValueError(f"param {self.name}: an enum needs values")
        words = [self.name, *(self.values or [])]
        if any(not word or any(c.isspace() or c in '="' for c in word) for word in words):
            raise ValueError(f"param {self.name}: names and enum values must be plain words")
        if any(c in '="\r\n' for c in value_text(self.value)):
            raise ValueError(f"param {self.name}: the value may not hold '=', quotes or newlines")


@dataclass(frozen=True)
class Limits(Level):
    """Search limits gathered from the `level` lines since the last `pos` or `go`.

    Times are seconds. `time` is the clock left and `inc` the increment, which the engine may
    add before this move (so it may use up to `time + inc`). No limit at all, or `infinite`,
    means: search until `stop`. The fields are those of `Level`: the same names, accumulated,
    plus `issued`: the `time.monotonic()` at which the `go` line was read, so that the engine
    counts its clock from there (the `pos` replay and the thread start-up are the client's
    time too); None means "from the call". It takes no part in comparisons.
    """

    issued: float | None = field(default=None, compare=False)

    def with_level(self, level: Level) -> Limits:
        """These limits plus one more `level` line: what the line says wins, the rest stays."""
        said = {f.name: getattr(level, f.name) for f in fields(Level)
                if f.name != "infinite" and getattr(level, f.name) is not None}
        return replace(self, **said, infinite=self.infinite or level.infinite)

    def is_unlimited(self) -> bool:
        """True when only `stop` ends the search (`infinite`, or nothing that bounds it)."""
        bounds = (self.depth, self.nodes, self.move_time, self.time)
        return self.infinite or all(bound is None for bound in bounds)


@dataclass(frozen=True)
class Info:
    """One search report, printed as an `info` line; a None field is left out of the line.

    `score` is in men from the side to move's view; `time` is seconds; `nps` is nodes per
    second (a plain rate; the line shows it in millions, Scan's unit); `mean_depth` is printed
    with two decimals.
    """

    depth: int | None = None
    mean_depth: float | None = None
    score: float | None = None
    nodes: int | None = None
    time: float | None = None
    nps: float | None = None
    pv: list[str] | None = None
    multipv: int | None = None       # the line's rank (1 = best) when several are reported


@dataclass(frozen=True)
class SearchResult:
    """What a search found; move None means there is no legal move (the game is over)."""

    move: str | None
    ponder: str | None = None


class EngineInterface(Protocol):
    """The engine as the session sees it; see the module docstring for the threading rules."""

    def identity(self) -> dict[str, str]:
        """Keys name, version, author, country (others are printed after them)."""

    def params(self) -> list[ParamSpec]:
        """The parameters announced by `hub`, in order."""

    def set_param(self, name: str, value: str) -> None:
        """Set a parameter; ValueError(message) for a bad value of a known name.

        Unknown names should be accepted silently (lidraughts-bot sends `initial-time`).
        """

    def init(self) -> None:
        """Load what is heavy; may be called again after `set_param`."""

    def new_game(self) -> None:
        """Forget earlier searches (transposition table, history)."""

    def set_position(self, pos: str | None, moves: list[str]) -> None:
        """Position `pos` (None: the variant's initial one) then `moves`.

        ValueError(message) for a bad position or move, e.g. "bad position",
        "illegal move 22-18"; the engine then keeps a well-defined position of its choosing.
        """

    def search(self, limits: Limits, mode: GoMode,
               on_info: Callable[[Info], None]) -> SearchResult:
        """Search the current position and return the best move; blocks until done.

        Runs in the session's worker thread. `on_info` may be called from that thread at any
        time before returning. In `ponder` mode the clock does not run until `ponder_hit`;
        in `analyze` mode no instant move and no book.
        """

    def stop(self) -> None:
        """Make the running `search` return soon (thread-safe)."""

    def ponder_hit(self) -> None:
        """The pondered move was played: the clock of the running search starts now."""


def value_text(value: str | int | float | bool) -> str:
    """A parameter value as Hub writes it: booleans `true`/`false`, numbers in full."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else str(value)
    return str(value)

