"""One engine process per tab, spoken to over the Hub protocol from the event loop.

The process is the project's one Hub client (protocol.client.HubClient); its reader thread hands
every stdout line to the loop (`listener`), where one task per process routes it: `info` and
`done` to the running search, handshake replies to whoever waits for them, `error` to the page.

A tab's engine is started when the tab opens, set up for each search (variant, lines, skill,
ponder: `set-param` and `init` only when something changed), and:
- stopped after `idle` seconds without a message from the page and without a search for a move
  in a game (an analysis or a ponder search left running counts as idle); started again when
  the page comes back (`wake`) or needs it;
- restarted when it dies unexpectedly, the page told both times, and the interrupted search
  started again; after MAX_CRASHES crashes within CRASH_WINDOW seconds it is given up;
- made to die with the server: PR_SET_PDEATHSIG on Linux (hub_engine.lifetime), and on every
  system the end of its stdin, at which a Hub engine exits.
"""
from __future__ import annotations

import asyncio
import os
import subprocess
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Callable

from loguru import logger

from hub_engine import lifetime
from hub_engine.gui.rules import GameRequest, RequestError, line_json, move_json, state_json
from protocol.client import EngineError, HubClient, StampedLine, first_word
from protocol.errors import ProtocolError
from protocol.tokens import format_value, parse_line

HANDSHAKE_TIMEOUT = 60.0     # seconds for `hub` -> `wait` and `init` -> `ready` (tables load)
STOP_TIMEOUT = 5.0           # seconds for `done` after `stop` before the engine is killed
QUIT_TIMEOUT = 2.0           # seconds for the process to exit after `quit`
MAX_CRASHES = 3              # crashes within CRASH_WINDOW seconds before giving up
CRASH_WINDOW = 60.0
MODES = ("think", "ponder", "analyze")
PAGE_PARAMS = ("variant", "multipv", "skill", "ponder")    # set by the page, per search


@dataclass(frozen=True)
class EngineConfig:
    """The engine command and its parameters: from the command line only."""

    command: tuple[str, ...]
    params: tuple[tuple[str, str], ...] = ()
    idle: float = 15 * 60.0          # seconds


@dataclass
class Search:
    """One `go` of a tab: what was asked, and its state."""

    id: int
    mode: str
    request: GameRequest
    level: str | None
    params: dict[str, str]
    internal: bool = False           # a search the page did not ask for (a draw offer's look)
    sent_at: float = 0.0
    hit_at: float | None = None      # ponder-hit: the clock starts
    finished: bool = False
    superseded: bool = False         # replaced by a newer request: its `done` is not shown
    score: float | None = None       # the best line's last score (side to move's view)
    done: asyncio.Future = field(default_factory=lambda: asyncio.get_running_loop().create_future())

    def __post_init__(self) -> None:
        self.game = self.request.game()          # played on by the reply once it comes
        self.position = self.game.position
        self.half = self.request.half


class EngineProcess:
    """A Hub engine child whose stdout lines arrive in an asyncio queue."""

    def __init__(self, config: EngineConfig) -> None:
        loop = asyncio.get_running_loop()
        self.lines: asyncio.Queue[StampedLine | None] = asyncio.Queue()

        def listener(line: StampedLine | None) -> None:
            try:
                loop.call_soon_threadsafe(self.lines.put_nowait, line)
            except RuntimeError:      # the loop is closed: the server is going away
                pass

        env = dict(os.environ, **{lifetime.WATCH_ENV: "1"})
        self.client = HubClient(list(config.command), env=env, listener=listener,
                                preexec_fn=lifetime.parent_death_signal())
        self.quitting = False

    def start(self) -> None:
        """Spawn the process; call from the event loop's thread (see hub_engine.lifetime)."""
        self.client.start()

    @property
    def pid(self) -> int | None:
        return self.client.proc.pid if self.client.proc is not None else None

    def send(self, *lines: str) -> None:
        self.client.send(*lines)

    def reap(self) -> None:
        """After its output ended: wait a moment for the exit code, then close the pipes."""
        proc = self.client.proc
        if proc is not None:
            try:
                proc.wait(1.0)
            except subprocess.TimeoutExpired:
                pass
        self.client.kill()

    def _end(self) -> None:
        c = self.client
        try:
            c.send("quit")
        except EngineError:
            pass
        try:                 # the end of input too: an engine behind a wrapper gets it so
            c.proc.stdin.close()
        except (OSError, ValueError, AttributeError):
            pass
        try:
            c.proc.wait(QUIT_TIMEOUT)
        except (subprocess.TimeoutExpired, AttributeError):
            pass
        c.kill()

    async def end(self) -> None:
        """`quit` and end of input, then kill if it lingers; off the loop (it waits)."""
        self.quitting = True
        await asyncio.to_thread(self._end)


class _Waiter:
    """Lines up to one whose first word is `word`, for a handshake step."""

    def __init__(self, word: str) -> None:
        self.word = word
        self.lines: list[str] = []
        self.future: asyncio.Future = asyncio.get_running_loop().create_future()


class TabEngine:
    """The engine of one tab. `notify(message)` sends a message to the tab's page."""

    def __init__(self, config: EngineConfig, notify: Callable[[dict], None]) -> None:
        self.config = config
        self.notify = notify
        self.proc: EngineProcess | None = None
        self.state = "stopped"             # stopped | starting | ready | idle | failed
        self.identity: dict[str, str] = {}
        self.declared: dict[str, dict] = {}
        self.sent: dict[str, str] = {}     # page parameters as the engine has them now
        self.search: Search | None = None
        self.lock = asyncio.Lock()
        self.latest = 0                    # the newest search id the page asked for
        self.cancelled: set[int] = set()
        self.crashes: deque[float] = deque()
        self.last_active = time.monotonic()
        self.closed = False
        self._waiter: _Waiter | None = None
        self._tasks: set[asyncio.Task] = set()

    # -- process ---------------------------------------------------------------------------
    def _spawn_task(self, coro) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def ensure_started(self, restarted: bool = False) -> None:
        """A running, handshaken engine (call with the lock held); EngineError if it cannot be."""
        if self.proc is not None and self.state == "ready":
            return
        if self.closed:
            raise EngineError("the tab is closed")
        if self.state == "failed":
            raise EngineError("the engine failed too often; reload the page to try again")
        self.state = "starting"
        self.notify({"type": "engine", "state": "starting"})
        proc = EngineProcess(self.config)
        try:
            proc.start()
        except EngineError as exc:
            self.state = "failed"
            self.notify({"type": "engine", "state": "failed", "message": str(exc)})
            raise
        self.proc = proc
        self.sent = {}
        self._spawn_task(self._read(proc))
        try:
            lines = await self._expect(proc, "wait", ["hub"])
            self._read_identity(lines)
            params = [f"set-param name={n} value={format_value(v)}" for n, v in self.config.params]
            await self._expect(proc, "ready", params + ["init"])
        except (EngineError, asyncio.TimeoutError) as exc:
            why = str(exc) or "no answer in time"
            await self._drop(proc)
            self.state = "failed" if restarted else "stopped"
            self.notify({"type": "engine", "state": "failed",
                         "message": f"the engine did not start: {why}"})
            raise EngineError(why) from None
        self.state = "ready"
        self.notify({"type": "engine", "state": "ready", "restarted": restarted,
                     "name": self.identity.get("name", "engine"),
                     "version": self.identity.get("version", ""), "pid": proc.pid})

    def _read_identity(self, lines: list[str]) -> None:
        self.identity, self.declared = {}, {}
        for text in lines:
            try:
                line = parse_line(text)
            except ProtocolError:
                continue
            if line is None:
                continue
            args = {n: v for n, v in line.args if v is not None}
            if line.command == "id":
                self.identity = args
            elif line.command == "param" and "name" in args:
                self.declared[args["name"]] = args

    async def _expect(self, proc: EngineProcess, word: str, send: list[str]) -> list[str]:
        waiter = _Waiter(word)
        self._waiter = waiter
        try:
            proc.send(*send)
            return await asyncio.wait_for(waiter.future, HANDSHAKE_TIMEOUT)
        finally:
            if self._waiter is waiter:
                self._waiter = None

    async def _drop(self, proc: EngineProcess) -> None:
        """End a process this tab no longer wants."""
        if self.proc is proc:
            self.proc = None
        await proc.end()

    async def _read(self, proc: EngineProcess) -> None:
        """Route every line of one process until its output ends."""
        while True:
            line = await proc.lines.get()
            if line is None:
                break
            try:
                self._route(line)
            except Exception as exc:          # a line no rule foresaw must not end the tab
                logger.opt(exception=exc).warning("engine line {!r} not understood", line.text)
        await self._ended(proc)

    def _route(self, line: StampedLine) -> None:
        word = first_word(line.text)
        s = self.search
        if word == "info" and s is not None and not s.finished:
            self._info(s, line.text)
        elif word == "done" and s is not None and not s.finished:
            self._done(s, line)
        elif word == "error":
            try:
                parsed = parse_line(line.text)
                message = parsed.value("message") if parsed else None
            except ProtocolError:
                message = None
            self.notify({"type": "engine", "state": "message",
                         "message": f"the engine said: {message or line.text}"})
        w = self._waiter
        if w is not None and not w.future.done():
            w.lines.append(line.text)
            if word == w.word:
                w.future.set_result(w.lines)

    async def _ended(self, proc: EngineProcess) -> None:
        """The process's output ended: expected (quit, idle, close) or a crash."""
        await asyncio.to_thread(proc.reap)
        w = self._waiter
        if w is not None and not w.future.done():
            w.future.set_exception(EngineError(f"the engine exited: it {proc.client.describe_exit()}"))
        if self.proc is not proc:
            return                              # an old process, already replaced or dropped
        self.proc = None
        s = self.search
        interrupted = s if s is not None and not s.finished and not s.superseded else None
        if s is not None and not s.finished:
            s.finished = True
            if not s.done.done():
                s.done.set_result(None)
        if proc.quitting or self.closed:
            if self.state != "idle":
                self.state = "stopped"
            return
        now = time.monotonic()
        self.crashes.append(now)
        while self.crashes and now - self.crashes[0] > CRASH_WINDOW:
            self.crashes.popleft()
        why = proc.client.describe_exit()
        if len(self.crashes) >= MAX_CRASHES:
            self.state = "failed"
            self.notify({"type": "engine", "state": "failed",
                         "message": f"the engine stopped unexpectedly {len(self.crashes)} times "
                                    f"within a minute (it {why}); reload the page to try again"})
            return
        self.state = "stopped"
        self.notify({"type": "engine", "state": "crashed",
                     "message": f"the engine stopped unexpectedly (it {why}); restarting it"})
        self._spawn_task(self._restart(interrupted))

    async def _restart(self, interrupted: Search | None) -> None:
        try:
            async with self.lock:
                await self.ensure_started(restarted=True)
                if interrupted is not None and self.latest == interrupted.id and not self.closed:
                    await self._configure(interrupted.params)
                    await self._begin(Search(interrupted.id, interrupted.mode,
                                             interrupted.request, interrupted.level,
                                             interrupted.params, interrupted.internal))
        except EngineError:
            pass                     # the page has been told

    # -- searches --------------------------------------------------------------------------
    async def go(self, search: Search) -> None:
        """Start a search for the page (a newer request or a `stop` may overtake it)."""
        self.latest = max(self.latest, search.id)
        async with self.lock:
            if search.id != self.latest or search.id in self.cancelled:
                search.finished = True
                search.done.set_result(None)
                return
            await self._finish_current()
            try:
                await self.ensure_started()
                await self._configure(search.params)
            except EngineError as exc:
                search.finished = True
                search.done.set_result(None)
                self.notify({"type": "error", "id": search.id, "message": str(exc)})
                return
            await self._begin(search)

    async def _begin(self, search: Search) -> None:
        if not search.position.legal_moves():
            search.finished = True
            if not search.done.done():
                search.done.set_result(None)
            self.notify({"type": "error", "id": search.id,
                         "message": "the game is over: there is no move to search"})
            return
        req = search.request
        lines = [f"pos pos={req.start.hub()} moves={format_value(' '.join(req.moves))}"
                 if req.moves else f"pos pos={req.start.hub()}"]
        if search.level:
            lines.append(f"level {search.level}")
        lines.append(f"go {search.mode}")
        self.search = search
        search.sent_at = self.proc.client.send(*lines)

    async def _finish_current(self) -> None:
        """Stop the running search (its result is not wanted) and wait for its `done`."""
        s = self.search
        if s is None or s.finished:
            return
        s.superseded = True
        try:
            self.proc.send("stop")
            await asyncio.wait_for(asyncio.shield(s.done), STOP_TIMEOUT)
        except (EngineError, asyncio.TimeoutError, AttributeError):
            proc = self.proc
            if proc is not None:
                await self._drop(proc)
            s.finished = True
            if not s.done.done():
                s.done.set_result(None)

    async def _configure(self, params: dict[str, str]) -> None:
        """Send the page's parameters that changed (those the engine declares), then `init`."""
        variant = params.get("variant")
        spec = self.declared.get("variant")
        if variant and spec is not None and spec.get("values") and \
                variant not in spec["values"].split():
            raise EngineError(f"this engine does not play {variant} "
                              f"(it plays {spec['values']})")
        changed = [(n, v) for n, v in params.items()
                   if n in self.declared and self.sent.get(n) != v]
        if not changed:
            return
        lines = [f"set-param name={n} value={format_value(v)}" for n, v in changed]
        try:
            await self._expect(self.proc, "ready", lines + ["init"])
        except asyncio.TimeoutError:
            raise EngineError("the engine did not answer `init` in time") from None
        self.sent.update(changed)

    def stop(self, search_id: int | None) -> None:
        """Stop the page's search `search_id` (or whatever runs); it answers with `done`."""
        if search_id is not None:
            if len(self.cancelled) > 1000:
                self.cancelled = {i for i in self.cancelled if i > self.latest - 100}
            self.cancelled.add(search_id)
        s = self.search
        if s is not None and not s.finished and (search_id is None or s.id == search_id):
            try:
                self.proc.send("stop")
            except (EngineError, AttributeError):
                pass

    def ponder_hit(self, ponder_id: int, search_id: int) -> bool:
        """The user played the move the engine ponders on (search `ponder_id`): its clock
        starts now, and the search goes on as the page's search `search_id`. False when that
        search is no longer running (the page then asks for a new one)."""
        s = self.search
        if s is None or s.finished or s.id != ponder_id or s.mode != "ponder":
            return False
        try:
            s.hit_at = self.proc.client.send("ponder-hit")
        except (EngineError, AttributeError):
            return False
        s.mode = "think"
        s.id = search_id
        self.latest = max(self.latest, search_id)
        return True

    def _info(self, s: Search, text: str) -> None:
        line = parse_line(text)
        if line is None:
            return
        score = line.number("score")
        k = line.number("multipv", int) or 1
        if k == 1 and score is not None:
            s.score = score
        if s.internal:
            return
        pv = (line.value("pv") or "").split()
        self.notify({"type": "info", "id": s.id, "mode": s.mode, "depth": line.number("depth", int),
                     "score": score, "nodes": line.number("nodes", int), "nps": line.number("nps"),
                     "time": line.number("time"), "multipv": k,
                     "pv": line_json(s.position, pv, s.half)})

    def _done(self, s: Search, line: StampedLine) -> None:
        s.finished = True
        if not s.done.done():
            s.done.set_result(line.text)
        if s.superseded or s.internal:
            return
        parsed = parse_line(line.text)
        move_text = parsed.value("move") if parsed else None
        ponder = parsed.value("ponder") if parsed else None
        msg = {"type": "done", "id": s.id, "mode": s.mode, "move": None, "ponder": None,
               "engine_ms": round(1000 * (line.at - (s.hit_at or s.sent_at)), 1)}
        if move_text:
            try:
                move = s.position.parse_move(move_text)
            except ValueError:
                msg["error"] = f"the engine played {move_text}, which is not legal here"
            else:
                msg["move"] = move_json(s.position, move)
                if s.mode == "analyze":          # the page wants the end, not the move
                    self.notify(msg)
                    return
                game = s.game
                game.play(move)
                msg["state"] = state_json(game)
                if ponder:
                    try:
                        game.position.parse_move(ponder)
                        msg["ponder"] = ponder
                    except ValueError:
                        pass
        self.notify(msg)

    async def evaluate(self, search: Search) -> float | None:
        """The engine's score of a position after a short search (side to move's view)."""
        search.internal = True
        await self.go(search)
        await search.done
        return search.score

    # -- lifetime --------------------------------------------------------------------------
    def touch(self) -> None:
        self.last_active = time.monotonic()

    def wake(self) -> None:
        """The page is back: start the engine again if it was stopped for being idle."""
        self.touch()
        if self.state == "idle":
            self._spawn_task(self._wake())

    async def _wake(self) -> None:
        try:
            async with self.lock:
                await self.ensure_started(restarted=True)
        except EngineError:
            pass

    def busy(self) -> bool:
        """A search for a move in a game runs (the user waits for it): never idle then."""
        s = self.search
        return s is not None and not s.finished and s.mode == "think"

    async def idle_check(self) -> None:
        """Stop the engine when the page has been quiet for `idle` seconds."""
        if self.proc is None or self.busy():
            return
        if time.monotonic() - self.last_active < self.config.idle:
            return
        async with self.lock:
            proc = self.proc
            if proc is None or self.busy():
                return
            s = self.search
            if s is not None and not s.finished:
                self.stop(s.id)
                try:
                    await asyncio.wait_for(asyncio.shield(s.done), STOP_TIMEOUT)
                except asyncio.TimeoutError:
                    pass
            self.state = "idle"
            await self._drop(proc)
        minutes = self.config.idle / 60
        self.notify({"type": "engine", "state": "idle",
                     "message": f"the engine was stopped after {minutes:g} minutes without use; "
                                f"it starts again when it is needed"})

    async def close(self) -> None:
        """The tab is gone: end the engine now."""
        self.closed = True
        proc = self.proc
        self.proc = None
        for task in list(self._tasks):
            if task is not asyncio.current_task():
                task.cancel()
        if proc is not None:
            await proc.end()


def check_level(mode: str, level) -> str | None:
    """The `level` line's arguments for a page's time control (None: no limit)."""
    if mode == "analyze":
        return None
    if not isinstance(level, dict):
        raise RequestError("a time control is needed")

    def seconds(name: str, lo: float, hi: float) -> float:
        value = level.get(name)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not lo <= value <= hi:
            raise RequestError(f"{name.replace('_', ' ')} must be a number from {lo:g} to {hi:g}")
        return float(value)

    if "move_time" in level:
        return f"move-time={seconds('move_time', 0.01, 3600):.3f}"
    clock = seconds("time", 0, 36000)
    inc = seconds("inc", 0, 600) if "inc" in level else 0.0
    return f"time={clock:.3f} inc={inc:.3f}"
