"""The Hub session: read commands, keep the session state, drive an engine, write replies.

Three threads: a reader puts stdin lines in a queue so that `ping` and `stop` are read while a
search runs; the main thread executes commands one at a time; a worker thread runs each search
and prints its `info` lines and its `done`. Output goes through one lock and is flushed per
line. Whatever goes wrong with one input line becomes one `error` line and the loop goes on.
"""

from __future__ import annotations

import queue
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import IO, Any

from loguru import logger

from protocol.commands import (Command, Go, GoMode, Hub, Init, Level, NewGame, Ping, PonderHit,
                               Pos, Quit, SetParam, Stop, parse_command)
from protocol.engine import EngineInterface, Info, Limits, SearchResult
from protocol.errors import ProtocolError, clip_echoes, shorten
from protocol.replies import format_done, format_error, format_id, format_info, format_param

NUDGE_SECONDS = 0.01
"""How often `stop()` is repeated until the search returns (an early stop can be overtaken)."""

EXIT_GRACE_SECONDS = 0.1
"""How long quit/EOF waits for a stopped search before leaving it to die with the process."""

_EOF = object()


class _Search:
    """One `go`: its worker thread and the flags the main loop and the worker share."""

    def __init__(self, mode: GoMode) -> None:
        self.mode = mode
        self.entered = threading.Event()
        self.finished = threading.Event()
        self.active = True  # False once `done` is written: later infos are dropped
        self.stop_requested = False
        self.thread: threading.Thread | None = None

    def running(self) -> bool:
        return not self.finished.is_set()


class Session:
    """State of one Hub conversation; `run` below is the usual way to use it."""

    def __init__(self, engine: EngineInterface, out: IO[str]) -> None:
        self._engine = engine
        self._out = out
        self._out_lock = threading.Lock()
        self._closed = False
        self._out_broken = False
        self._limits = Limits()
        self._search: _Search | None = None
        self._inbox: queue.Queue[Any] = queue.Queue()
        self._leaving = threading.Event()  # set by the reader on `quit` or end of input
        self._read_failed = False

    # -- the loop ----------------------------------------------------------------------

    def run(self, inp: IO[Any]) -> int:
        """Serve until `quit` or end of input; the exit code (0, or 1 if stdin failed)."""
        reader = threading.Thread(target=self._read, args=(inp,), name="hub-reader", daemon=True)
        reader.start()
        try:
            while True:
                item = self._next_input()
                if item is _EOF:
                    logger.debug("end of input")
                    return 1 if self._read_failed else 0
                if not self._handle(*item):
                    return 0
        finally:
            self._close()

    def _read(self, inp: IO[Any]) -> None:
        """Reader thread: (arrival time, line) pairs into the inbox, then _EOF. Bytes are decoded
        leniently. The arrival time is when the client's clock for a `go` started, as near as
        the engine can know it: lines sent in one burst are read together, before `pos` is
        replayed."""
        source = getattr(inp, "buffer", inp)
        try:
            while True:
                raw = source.readline()
                if not raw:
                    break
                arrived = time.monotonic()
                text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
                if text.split(None, 1)[:1] == ["quit"]:
                    self._leaving.set()
                self._inbox.put((arrived, text))
        except (OSError, ValueError) as exc:
            logger.warning("reading stdin failed: {}", exc)
            self._read_failed = True
        finally:
            self._leaving.set()
            self._inbox.put(_EOF)

    def _next_input(self) -> Any:
        """The next (arrival time, line), or _EOF; while a requested stop is pending, repeat
        `stop()` as we wait."""
        while True:
            search = self._search
            nudging = search is not None and search.stop_requested and search.running()
            try:
                return self._inbox.get(timeout=NUDGE_SECONDS if nudging else None)
            except queue.Empty:
                self._engine_stop()

    def _handle(self, arrived: float, text: str) -> bool:
        """Execute one input line read at `arrived`; False means leave (`quit`)."""
        logger.debug("in:  {}", shorten(text.rstrip("\r\n"), 500))
        try:
            command = parse_command(text)
        except ProtocolError as exc:
            logger.warning("rejected input: {}", exc.message)
            self._send(format_error(exc.message))
            return True
        if command is None:
            return True
        if isinstance(command, Quit):
            return False
        if self._search is not None and not self._search.running():
            self._reap()
        if self._search is not None:
            if self._during_search(command):
                return True
            if not self._end_search():
                return False
        self._execute(command, arrived)
        return True

    # -- commands ----------------------------------------------------------------------

    def _during_search(self, command: Command) -> bool:
        """Handle the commands a search expects; False for any other (which ends it)."""
        search = self._search
        assert search is not None
        if isinstance(command, Ping):
            self._send("pong")
        elif isinstance(command, Stop):
            search.stop_requested = True
            self._engine_stop()
        elif isinstance(command, PonderHit):
            if search.mode == "ponder":
                self._call("ponder-hit", self._engine.ponder_hit)
            else:
                logger.debug("ponder-hit during a {} search ignored", search.mode)
        else:
            return False
        return True

    def _execute(self, command: Command, arrived: float) -> None:
        """Run a command (read at `arrived`) with no search in progress."""
        engine = self._engine
        if isinstance(command, Hub):
            self._hub()
        elif isinstance(command, SetParam):
            self._call("set-param", engine.set_param, command.name, command.value)
        elif isinstance(command, Init):
            # `ready` even after an error, as `hub` always ends with `wait`: clients such as
            # pydraughts wait for it and would hang otherwise
            self._call("init", engine.init)
            self._send("ready")
        elif isinstance(command, NewGame):
            self._call("new-game", engine.new_game)
        elif isinstance(command, Pos):
            self._limits = Limits()
            pos = None if command.start else command.pos
            self._call("pos", engine.set_position, pos, list(command.moves))
        elif isinstance(command, Level):
            self._limits = self._limits.with_level(command)
        elif isinstance(command, Go):
            limits, self._limits = replace(self._limits, issued=arrived), Limits()
            self._start_search(limits, command.mode)
        elif isinstance(command, Ping):
            self._send("pong")
        elif isinstance(command, (Stop, PonderHit)):
            logger.debug("{} with no search running ignored", type(command).__name__)

    def _hub(self) -> None:
        """`id`, one `param` per parameter, `wait` — `wait` even if the engine fails, so that
        a client waiting for it is not left hanging."""
        try:
            lines = [format_id(self._engine.identity())]
            lines += [format_param(spec) for spec in self._engine.params()]
        except Exception as exc:  # noqa: BLE001 - any engine failure becomes an error line
            self._report("hub", exc)
        else:
            for line in lines:
                self._send(line)
        self._send("wait")

    def _call(self, what: str, method: Callable[..., Any], *args: Any) -> bool:
        """Call the engine; an exception becomes an `error` line. True when it succeeded."""
        try:
            method(*args)
        except Exception as exc:  # noqa: BLE001 - any engine failure becomes an error line
            self._report(what, exc)
            return False
        return True

    def _report(self, what: str, exc: Exception) -> None:
        """One `error` line for an engine exception; the traceback only at DEBUG, because
        pydraughts reads stderr too and must not see lines that look like commands."""
        if isinstance(exc, ValueError):
            message = clip_echoes(str(exc) or f"{what}: bad value")
            logger.warning("{} rejected: {}", what, message)
        else:
            message = clip_echoes(f"{what} failed: {type(exc).__name__}: {exc}")
            logger.error("engine {}", message)
        logger.opt(exception=exc).debug("{} traceback", what)
        self._send(format_error(message))

    # -- searching ---------------------------------------------------------------------

    def _start_search(self, limits: Limits, mode: GoMode) -> None:
        search = _Search(mode)
        search.thread = threading.Thread(target=self._work, args=(search, limits),
                                         name="hub-search", daemon=True)
        self._search = search
        logger.debug("search {} with {}", mode, limits)
        search.thread.start()
        # stop/ponder-hit are passed on only once the worker is inside search().
        search.entered.wait(5.0)

    def _work(self, search: _Search, limits: Limits) -> None:
        """Worker thread: run one search, then write `done` (after an `error` if need be)."""
        lines: list[str] = []
        search.entered.set()
        try:
            result = self._engine.search(limits, search.mode, lambda info: self._info(search, info))
            move = getattr(result, "move", None)
            if move is None:
                lines = [format_error("no legal move"), format_done(SearchResult(None))]
            else:
                lines = [format_done(SearchResult(move, getattr(result, "ponder", None)))]
        except Exception as exc:  # noqa: BLE001 - the client must still get its done
            self._report("search", exc)
            lines = [format_done(SearchResult(None))]
        finally:
            with self._out_lock:
                search.active = False
                for line in lines:
                    self._write(line)
            search.finished.set()

    def _info(self, search: _Search, info: Info) -> None:
        """The `on_info` callback: one `info` line, unless the search already said `done`."""
        try:
            line = format_info(info)
        except Exception as exc:  # noqa: BLE001 - a bad report must not kill the search
            logger.warning("unprintable info {}: {}", info, exc)
            return
        with self._out_lock:
            if search.active:
                self._write(line)

    def _end_search(self) -> bool:
        """Stop the running search and wait for its `done`; False if quit/EOF came first."""
        search = self._search
        assert search is not None
        search.stop_requested = True
        self._engine_stop()
        while not search.finished.wait(NUDGE_SECONDS):
            if self._leaving.is_set():
                return False
            self._engine_stop()
        self._reap()
        return True

    def _reap(self) -> None:
        """Forget a finished search."""
        search = self._search
        if search is not None and search.thread is not None:
            search.thread.join()
        self._search = None

    def _engine_stop(self) -> None:
        try:
            self._engine.stop()
        except Exception as exc:  # noqa: BLE001 - nothing useful to tell the GUI
            logger.opt(exception=exc).debug("engine.stop() failed")

    def _close(self) -> None:
        """Leaving: no more output; stop a running search and give it a moment to end."""
        with self._out_lock:
            self._closed = True
        search = self._search
        if search is not None and search.running():
            self._engine_stop()
            if search.thread is not None:
                search.thread.join(EXIT_GRACE_SECONDS)

    # -- output ------------------------------------------------------------------------

    def _send(self, line: str) -> None:
        with self._out_lock:
            self._write(line)

    def _write(self, line: str) -> None:
        """Write one line and flush; the caller holds the output lock."""
        if self._closed or self._out_broken:
            return
        logger.debug("out: {}", shorten(line, 500))
        try:
            try:
                self._out.write(line + "\n")
            except UnicodeEncodeError:
                self._out.write(line.encode("ascii", "replace").decode("ascii") + "\n")
            self._out.flush()
        except (OSError, ValueError) as exc:
            self._out_broken = True
            logger.warning("stdout is gone ({}); further output dropped", exc)


def run(engine: EngineInterface, inp: IO[Any] | None = None, out: IO[str] | None = None) -> int:
    """Speak Hub on `inp`/`out` (default: stdin/stdout) until `quit` or end of input.

    Returns the exit code: 0, or 1 when reading stdin failed. Prints nothing before the first
    command. A stream with a `.buffer` (like sys.stdin) is read as bytes and decoded as UTF-8
    with replacement, so stray bytes become an `error` line rather than a dead reader.
    """
    return Session(engine, out if out is not None else sys.stdout).run(
        inp if inp is not None else sys.stdin)
