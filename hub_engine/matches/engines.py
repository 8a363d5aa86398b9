"""One engine of a match or tournament: a Hub client plus the runner's handshake and `go` exchange.

The runner speaks Hub over raw pipes: `hub` / `wait`, `set-param`, `init` / `ready`, `new-game`,
and per move `pos pos=<initial position> moves="<all moves>"`, one `level` line, `go think`, then
it reads until `done`. A move's time runs from the `pos` line to `done`. The score of the last
`info` line before `done` is kept for score adjudication and, with its depth, for the move's
comment in the games' PDN; its nodes and time for the engines' search figures (nodes per second
in the games).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import IO

from protocol.client import EngineError, HubClient
from protocol.errors import ProtocolError
from protocol.tokens import parse_line

HANDSHAKE_TIMEOUT = 20.0    # seconds for `hub` -> `wait` and `init` -> `ready`


@dataclass
class Reply:
    """An engine's answer to `go think`."""

    move: str
    seconds: float               # from the `pos` line to `done`
    score: float | None          # the last `info ... score=S` before `done` (mover's view, men)
    nodes: int = 0               # `nodes=` of the last `info` line that has it (0: none, a book
    search_seconds: float = 0.0  # or forced move) and its `time=`, the engine's own count
    depth: int | None = None     # `depth=` of the last `info` line that has it

    def comment(self) -> str:
        """The move's PDN comment, as cutechess writes one: score in men from the mover's view,
        `/depth`, and the seconds the move took (`+0.35/14 0.472s`); what the engine did not
        say is left out."""
        parts = []
        if self.score is not None and math.isfinite(self.score):
            parts.append(f"{self.score:+.2f}" + ("" if self.depth is None else f"/{self.depth}"))
        parts.append(f"{self.seconds:.3f}s")
        return " ".join(parts)


_COMMENT_SCORE = re.compile(r"\s*([+-]?\d+(?:\.\d+)?)/(\d+)\b")


def comment_score(text: str | None) -> tuple[float, int] | None:
    """The score (men, the mover's view) and depth a move's comment gives, as Reply.comment
    writes them (`+0.35/14 0.472s`); None for a comment without them (book or forced moves)."""
    m = _COMMENT_SCORE.match(text or "")
    return (float(m.group(1)), int(m.group(2))) if m else None


def parse_params(items: list[str] | None, what: str = "match") -> list[tuple[str, str]]:
    """`name=value` strings as (name, value) pairs; SystemExit naming the command otherwise."""
    out = []
    for item in items or []:
        if "=" not in item:
            raise SystemExit(f"{what}: error: bad parameter {item!r} (name=value)")
        name, value = item.split("=", 1)
        out.append((name.strip(), value.strip()))
    return out


class MatchEngine:
    """A Hub engine driven by the runner; started lazily and restarted after a failure."""

    def __init__(self, command: str, name: str, variant: str, params: list[tuple[str, str]],
                 stderr: IO[str] | None = None, handshake_timeout: float = HANDSHAKE_TIMEOUT):
        self.command = command
        self.name = name
        self.variant = variant
        self.params = params
        self.handshake_timeout = handshake_timeout
        self.client = HubClient(command, stderr_copy=stderr)
        self.id_name = name
        self.starts = 0
        self.retired = False            # set by retire(): never start again

    def start(self) -> None:
        """Spawn and handshake: hub/wait, variant (when declared), set-params, init/ready."""
        self.starts += 1
        client = self.client.start()
        if self.retired:                # retired while spawning: its kill may have come first
            self.client.kill()
            raise EngineError("stopped by the runner")
        client.send("hub")
        declared_variant = False
        for line in client.until("wait", self.handshake_timeout):
            words = line.text.split()
            if words[:1] == ["id"]:
                for w in words[1:]:
                    if w.startswith("name="):
                        self.id_name = w[5:].strip('"')
            if words[:1] == ["param"] and "name=variant" in words:
                declared_variant = True
        if declared_variant:
            client.send(f"set-param name=variant value={self.variant}")
        for name, value in self.params:
            client.send(f"set-param name={name} value={value}")
        client.send("init")
        client.until("ready", self.handshake_timeout)

    def alive(self) -> bool:
        return self.client.alive()

    def ensure_started(self) -> None:
        if self.retired:
            raise EngineError("stopped by the runner")
        if not self.alive():
            self.client.kill()
            try:
                self.start()
            except EngineError:
                self.client.kill()
                raise

    def kill(self) -> None:
        self.client.kill()

    def retire(self) -> None:
        """Kill the process and refuse to start again, so a game under way (or one about to
        begin on another thread) ends at once instead of restarting the engine."""
        self.retired = True
        self.client.kill()

    def quit(self) -> None:
        self.client.quit(2.0)

    def new_game(self) -> None:
        self.client.send("new-game")

    def go(self, start_pos: str, moves: list[str], level: str, timeout: float) -> Reply:
        """Send pos/level/go think and wait for `done`; EngineTimeout after `timeout` seconds,
        EngineError when the engine is dead or answers without a move."""
        self.client.drain()             # stale output (e.g. info lines after a late done)
        if not self.client.alive():
            raise EngineError(f"the engine {self.client.describe_exit()}")
        # the clock runs from the `pos` line: replaying the game is part of the engine's move
        t0 = self.client.send(f'pos pos={start_pos} moves="{" ".join(moves)}"', f"level {level}",
                              "go think")
        lines = self.client.until("done", timeout)
        done = lines[-1]
        move = None
        for word in done.text.split()[1:]:
            if word.startswith("move="):
                move = word[5:].strip('"')
        if not move:
            raise EngineError(f"no move in '{done.text}'")
        score, nodes, search_seconds, depth = None, 0, 0.0, None
        for stamped in lines[:-1]:
            try:
                info = parse_line(stamped.text)
            except ProtocolError:
                continue
            if info is None or info.command != "info":
                continue
            if info.has_value("score"):
                score = info.number("score")
            d = info.number("depth", int)
            if d is not None and d >= 0:
                depth = d
            n = info.number("nodes")
            if n is not None and n >= 0:
                nodes, search_seconds = int(n), max(0.0, info.number("time") or 0.0)
        return Reply(move, done.at - t0, score, nodes, search_seconds, depth)
