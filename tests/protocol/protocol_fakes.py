"""A fake engine and an in-memory harness for testing the Hub session without draughts.

The fake engine's search deepens one ply every few milliseconds, reports an `info` each time,
and ends on `stop` or on a depth/nodes/move-time limit, like a real one but with no rules.
"""

from __future__ import annotations

import os
import queue
import re
import threading
import time
from collections.abc import Callable

from protocol import GoMode, Info, Limits, ParamSpec, SearchResult, run

NO_MOVES = "Weeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"  # nothing on the board: no legal move
_MOVE = re.compile(r"\d+(?:-\d+|(?:x\d+)+)")


class FakeEngine:
    """Implements EngineInterface; records what the session asked of it."""

    def __init__(self, step: float = 0.004) -> None:
        self.step = step
        self.threads = 1
        self.position: tuple[str | None, list[str]] = (None, [])
        self.searches: list[tuple[Limits, GoMode]] = []
        self.calls: list[str] = []
        self.fail_init = False
        self.search_error: Exception | None = None
        self.stops = 0
        self.hits = 0
        self._stop = threading.Event()
        self._hit = threading.Event()

    def identity(self) -> dict[str, str]:
        return {"name": "Fake Engine", "version": "1.0", "author": "The Test Suite",
                "country": "Netherlands"}

    def params(self) -> list[ParamSpec]:
        return [
            ParamSpec("variant", "enum", "brazilian", values=["brazilian", "russian", "english"]),
            ParamSpec("threads", "int", self.threads, min=1, max=64),
            ParamSpec("ponder", "bool", False),
            ParamSpec("margin", "real", 0.5, min=0.0, max=2.0),
            ParamSpec("book-file", "string", ""),
        ]

    def set_param(self, name: str, value: str) -> None:
        self.calls.append(f"set-param {name} {value}")
        if name == "explode":
            raise RuntimeError("kaboom")
        if name == "threads":
            if not value.isdigit() or not 1 <= int(value) <= 64:
                raise ValueError(f'threads: "{value}" is not an integer in 1..64')
            self.threads = int(value)

    def init(self) -> None:
        self.calls.append("init")
        if self.fail_init:
            raise RuntimeError("tables missing")

    def new_game(self) -> None:
        self.calls.append("new-game")

    def set_position(self, pos: str | None, moves: list[str]) -> None:
        self.calls.append(f"pos {pos} {' '.join(moves)}".rstrip())
        if pos is not None and (len(pos) != 33 or pos[0] not in "WB"):
            raise ValueError("bad position")
        for move in moves:
            if move == "crash":
                raise RuntimeError("engine bug")
            if not _MOVE.fullmatch(move):
                raise ValueError(f"illegal move {move}")
        self.position = (pos, moves)

    def search(self, limits: Limits, mode: GoMode,
               on_info: Callable[[Info], None]) -> SearchResult:
        self._stop.clear()
        self._hit.clear()
        self.searches.append((limits, mode))
        if self.search_error is not None:
            raise self.search_error
        start = time.monotonic()
        clock = None if mode == "ponder" else start
        depth = 0
        while not self._stop.is_set():
            if clock is None and self._hit.is_set():
                clock = time.monotonic()
            depth += 1
            nodes = depth * 1000
            elapsed = max(time.monotonic() - start, 1e-6)
            on_info(Info(depth=depth, mean_depth=depth + 0.25, score=0.35, nodes=nodes,
                         time=elapsed, nps=nodes / elapsed, pv=["32-28", "19-23"]))
            if clock is not None and mode != "analyze" and self._limit_reached(
                    limits, depth, nodes, time.monotonic() - clock):
                break
            self._stop.wait(self.step)
        if self.position[0] == NO_MOVES:
            return SearchResult(None)
        return SearchResult("32-28", "19-23")

    @staticmethod
    def _limit_reached(limits: Limits, depth: int, nodes: int, used: float) -> bool:
        if limits.infinite:
            return False
        budget = None if limits.time is None else (limits.time + (limits.inc or 0.0)) / 20
        return ((limits.depth is not None and depth >= limits.depth)
                or (limits.nodes is not None and nodes >= limits.nodes)
                or (limits.move_time is not None and used >= limits.move_time)
                or (budget is not None and used >= budget))

    def stop(self) -> None:
        self.stops += 1
        self._stop.set()

    def ponder_hit(self) -> None:
        self.hits += 1
        self._hit.set()


class _LineSink:
    """A stdout stand-in: every complete line written goes into a queue."""

    def __init__(self) -> None:
        self.lines: queue.Queue[str] = queue.Queue()
        self.written: list[str] = []
        self._partial = ""
        self.flushes = 0

    def write(self, text: str) -> int:
        *complete, self._partial = (self._partial + text).split("\n")
        for line in complete:
            self.written.append(line)
            self.lines.put(line)
        return len(text)

    def flush(self) -> None:
        self.flushes += 1


class Harness:
    """Runs `protocol.run` in a thread, fed through a real OS pipe, output in memory."""

    def __init__(self, engine: FakeEngine | None = None) -> None:
        self.engine = engine or FakeEngine()
        read_fd, write_fd = os.pipe()
        self._stdin = os.fdopen(read_fd, "r", encoding="utf-8")
        self._writer = os.fdopen(write_fd, "wb")
        self.out = _LineSink()
        self.infos: list[str] = []
        self.exit_code: int | None = None
        self._thread = threading.Thread(target=self._serve, name="test-session", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        self.exit_code = run(self.engine, self._stdin, self.out)

    def send(self, *lines: str) -> None:
        for line in lines:
            self.send_raw((line + "\n").encode())

    def send_raw(self, data: bytes) -> None:
        self._writer.write(data)
        self._writer.flush()

    def next_line(self, timeout: float = 5.0) -> str:
        try:
            return self.out.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no output within {timeout} s") from None

    def next_reply(self, timeout: float = 5.0) -> str:
        """The next line that is not an `info` (infos are kept in self.infos)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.out.lines.get(timeout=max(deadline - time.monotonic(), 0))
            except queue.Empty:
                raise AssertionError(f"no reply within {timeout} s") from None
            if line.startswith("info "):
                self.infos.append(line)
            else:
                return line

    def expect(self, word: str, timeout: float = 5.0) -> str:
        """The next non-info line must be command `word`; it is returned."""
        line = self.next_reply(timeout)
        assert line.split(" ", 1)[0] == word, f"expected {word!r}, got {line!r}"
        return line

    def wait_info(self, timeout: float = 5.0) -> str:
        """Wait for an `info` line (proof that a search is under way)."""
        line = self.next_line(timeout)
        assert line.startswith("info "), f"expected an info line, got {line!r}"
        return line

    def assert_quiet(self, seconds: float = 0.2) -> None:
        """No non-info line comes within `seconds`."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self.out.lines.get(timeout=left)
            except queue.Empty:
                return
            assert line.startswith("info "), f"unexpected output {line!r}"

    def finish(self, timeout: float = 5.0) -> int | None:
        """Wait for the session to end by itself; its exit code."""
        self._thread.join(timeout)
        assert not self._thread.is_alive(), "the session did not exit"
        return self.exit_code

    def close(self, timeout: float = 5.0) -> int | None:
        """End of input; the session's exit code."""
        if not self._writer.closed:
            try:
                self._writer.close()
            except OSError:
                pass
        return self.finish(timeout)
