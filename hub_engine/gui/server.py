"""The board's web server: the page and its assets, uploads, and one WebSocket per tab.

Routes (after the access token, see hub_engine.gui.security):
    GET  /                 the page (board geometry and settings inside it)
    GET  /static/NAME      its scripts and styles (from the package; nothing from the network)
    POST /api/upload       a PDN or analysis file as the request body (?kind=pdn|analysis&name=)
    WS   /ws               the tab: rules questions, searches, records (JSON messages)

Each WebSocket is a tab with an engine process of its own (hub_engine.gui.engines); at most
`max_tabs` are open at once, and one more is told so and closed.
"""
from __future__ import annotations

import asyncio
import json
import secrets
from collections import OrderedDict
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from importlib import resources

from loguru import logger
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from hub_engine import __version__
from hub_engine.gui import records
from hub_engine.gui.engines import MODES, EngineConfig, Search, TabEngine, check_level
from hub_engine.gui.records import MAX_UPLOAD, RecordsError, Upload
from hub_engine.gui.rules import (RequestError, accepts_draw, game_request, position_of,
                                  state_json, variant_of)
from hub_engine.gui.security import Guard, GuardMiddleware
from hub_engine.report.boards import geometries
from hub_engine.rules.variants import VARIANTS
from protocol.client import EngineError

STATIC = {                       # name -> (package, file): every file the page may load
    "gui.js": ("hub_engine.gui", "static/gui.js"),
    "tree.js": ("hub_engine.gui", "static/tree.js"),
    "net.js": ("hub_engine.gui", "static/net.js"),
    "panels.js": ("hub_engine.gui", "static/panels.js"),
    "gui.css": ("hub_engine.gui", "static/gui.css"),
    "board.js": ("hub_engine.report", "templates/board.js"),
    "board.css": ("hub_engine.report", "templates/board.css"),
}
TYPES = {"js": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8"}
KEPT_UPLOADS = 8                  # PDN collections kept for their tabs to choose games from
DRAW_LOOK = "move-time=0.3"      # the engine's look at a position before it answers a draw offer
IDLE_CHECK = 30.0                # seconds between idle checks (less when the idle time is short)


def asset(package: str, name: str) -> str:
    return resources.files(package).joinpath(name).read_text("utf-8")


@dataclass
class Board:
    """The server's state: settings, open tabs, uploaded collections, loaded endgame tables."""

    config: EngineConfig
    guard: Guard
    max_tabs: int = 4
    tabs: set = field(default_factory=set)
    engines: set = field(default_factory=set)      # tab engines not yet ended
    uploads: OrderedDict = field(default_factory=OrderedDict)
    tables: dict = field(default_factory=dict)

    def meta(self) -> dict:
        return {"version": __version__, "variants": geometries(set(VARIANTS)),
                "order": list(VARIANTS), "max_tabs": self.max_tabs,
                "idle_minutes": self.config.idle / 60, "max_upload": MAX_UPLOAD}

    def keep(self, upload: Upload) -> str:
        key = secrets.token_urlsafe(8)
        self.uploads[key] = upload
        while len(self.uploads) > KEPT_UPLOADS:
            self.uploads.popitem(last=False)
        return key

    def table_text(self, game) -> str | None:
        """What the endgame tables say about a game's position, None when they do not know."""
        from hub_engine.tables import open_tables, ruleset_of

        v = game.variant
        try:
            rs = ruleset_of(v)
        except ValueError:
            return None
        if rs not in self.tables:
            self.tables[rs] = open_tables(v)
        t = self.tables[rs]
        pos = game.position
        if sum(len(p) for p in pos.board.pieces()) > t.complete_pieces():
            return None
        r = t.probe(pos, game.counters)
        if r is None:
            return None
        mover = pos.side_name
        other = "black" if mover == "white" else "white"
        words = {"win": f"{mover.capitalize()} wins", "loss": f"{other.capitalize()} wins",
                 "draw": "draw"}
        text = f"Endgame table: {words[r.value]}"
        if r.ruled == "draw" and r.value != "draw":
            text += " without the move-count rules; with them a draw"
        if r.distance and r.value != "draw" and r.ruled != "draw":
            text += f" ({r.distance} plies to the next capture)"
        return text


class Tab:
    """One open page: its WebSocket, its engine, its messages."""

    def __init__(self, ws: WebSocket, board: Board) -> None:
        self.ws = ws
        self.board = board
        self.out: asyncio.Queue[dict | None] = asyncio.Queue()
        self.engine = TabEngine(board.config, self.notify)
        board.engines.add(self.engine)
        self.tasks: set[asyncio.Task] = set()

    def notify(self, message: dict) -> None:
        self.out.put_nowait(message)

    def spawn(self, coro, mid=None) -> None:
        """Run coro beside the message loop; a request error in it is told to the page."""
        async def guarded() -> None:
            try:
                await coro
            except (RequestError, RecordsError, EngineError) as exc:
                self.notify({"type": "error", "id": mid, "message": str(exc)})

        task = asyncio.create_task(guarded())
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _sender(self) -> None:
        while True:
            msg = await self.out.get()
            if msg is None:
                return
            try:
                await self.ws.send_text(json.dumps(msg, ensure_ascii=False,
                                                   separators=(",", ":")))
            except (WebSocketDisconnect, RuntimeError, OSError):
                return             # the tab is gone; run() ends the rest

    async def _idle(self) -> None:
        every = min(IDLE_CHECK, max(0.2, self.board.config.idle / 4))
        while True:
            await asyncio.sleep(every)
            await self.engine.idle_check()

    async def _start_engine(self) -> None:
        try:
            async with self.engine.lock:
                await self.engine.ensure_started()
        except EngineError:
            pass                   # the page has been told

    async def run(self) -> None:
        sender = asyncio.create_task(self._sender())
        self.spawn(self._idle())
        self.notify({"type": "hello", "tabs": len(self.board.tabs),
                     "max_tabs": self.board.max_tabs})
        self.spawn(self._start_engine())
        try:
            while True:
                message = await self.ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
                self.engine.touch()
                try:
                    msg = json.loads(message.get("text") or "")
                except ValueError:
                    msg = None
                if not isinstance(msg, dict):
                    self.notify({"type": "error", "id": None,
                                 "message": "a message is a JSON object"})
                    continue
                try:
                    await self.handle(msg)
                except (RequestError, RecordsError) as exc:
                    self.notify({"type": "error", "id": msg.get("id"), "message": str(exc)})
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            self.board.tabs.discard(self)          # the place is free at once
            for task in list(self.tasks):
                task.cancel()
            self.out.put_nowait(None)
            sender.cancel()
            await self.engine.close()
            self.board.engines.discard(self.engine)

    # -- messages --------------------------------------------------------------------------
    async def handle(self, msg: dict) -> None:
        kind = msg.get("type")
        mid = msg.get("id")
        if mid is not None and (isinstance(mid, bool) or not isinstance(mid, int)):
            raise RequestError("id: an integer is expected")
        if kind == "state":
            game = game_request(msg).game()
            self.notify(dict(state_json(game), type="state", id=mid))
        elif kind == "go":
            self.go(msg, mid)
        elif kind == "stop":
            self.engine.stop(mid)
        elif kind == "draw":
            self.draw(msg, mid)
        elif kind == "position":
            v = variant_of(msg.get("variant"))
            pos = position_of(v, msg.get("text"))
            game = game_request({"variant": v.name, "start": pos.hub()}).game()
            self.notify(dict(state_json(game), type="position", id=mid, start=pos.hub()))
        elif kind == "pdn_game":
            upload = self.board.uploads.get(msg.get("upload"))
            if upload is None:
                raise RequestError("that file is no longer open here: open it again")
            self.notify(dict(upload.game(msg.get("number")), type="game", id=mid))
        elif kind == "pdn_save":
            self.notify({"type": "pdn", "id": mid, "text": records.write_pdn(msg)})
        elif kind == "wake":
            self.engine.wake()
        else:
            raise RequestError(f"unknown message type {str(kind)[:30]!r}")

    def go(self, msg: dict, mid) -> None:
        if mid is None:
            raise RequestError("a search needs an id")
        mode = msg.get("mode")
        if mode not in MODES:
            raise RequestError(f"mode: one of {', '.join(MODES)}")
        req = game_request(msg)
        params = {"variant": req.variant.name}
        if mode == "analyze":
            params["multipv"] = str(_int(msg, "multipv", 1, 5, 1))
        else:
            params["multipv"] = "1"
            params["skill"] = str(_int(msg, "skill", 1, 20, 20))
            params["ponder"] = "true" if msg.get("ponder") is True else "false"
        level = check_level(mode, msg.get("level"))
        ponder_id = msg.get("ponder_id")
        if mode == "think" and isinstance(ponder_id, int) and \
                self.engine.ponder_hit(ponder_id, mid):
            return
        search = Search(mid, mode, req, level, params)
        self.spawn(self.engine.go(search), mid)
        if mode == "analyze":
            self.spawn(self.table(search), mid)

    async def table(self, search: Search) -> None:
        try:
            text = await asyncio.to_thread(self.board.table_text, search.request.game())
            # (a game of its own: the search's may be played on when its reply comes)
        except Exception as exc:        # tables are a bonus: never break the analysis
            logger.warning("endgame table probe failed: {}", exc)
            return
        if text:
            self.notify({"type": "table", "id": search.id, "text": text})

    def draw(self, msg: dict, mid) -> None:
        """A draw offer: the engine looks at the position, then accepts or declines."""
        if mid is None:
            raise RequestError("a draw offer needs an id")
        req = game_request(msg)
        engine_side = msg.get("engine_side")
        if engine_side not in ("white", "black"):
            raise RequestError("engine_side: white or black")
        _int(msg, "skill", 1, 20, 20)
        params = {"variant": req.variant.name, "multipv": "1"}
        # `analyze` with a time limit: never an instant reply without a score (think answers a
        # single legal move at once), and full strength whatever the game's skill
        search = Search(mid, "analyze", req, DRAW_LOOK, params)

        async def answer() -> None:
            score = await self.engine.evaluate(search)
            if score is not None and search.position.side_name != engine_side:
                score = -score
            plies = len(req.moves)
            self.notify({"type": "draw", "id": mid, "accept": accepts_draw(score, plies),
                         "score": score, "plies": plies})

        self.spawn(answer(), mid)



def _int(msg: dict, name: str, lo: int, hi: int, default: int) -> int:
    value = msg.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise RequestError(f"{name}: a whole number from {lo} to {hi}")
    return value


# --- HTTP --------------------------------------------------------------------------------------

async def page(request: Request) -> Response:
    board: Board = request.app.state.board
    meta = json.dumps(board.meta(), separators=(",", ":")).replace("<", "\\u003c")
    text = asset("hub_engine.gui", "static/index.html").replace("@META@", meta).replace(
        "@VERSION@", __version__)
    return Response(text, media_type="text/html; charset=utf-8")


async def static(request: Request) -> Response:
    name = request.path_params["name"]
    if name not in STATIC:
        return Response("not found\n", status_code=404, media_type="text/plain")
    package, path = STATIC[name]
    return Response(asset(package, path), media_type=TYPES[name.rsplit(".", 1)[1]])


async def upload(request: Request) -> Response:
    """A file as the request body: 413 over MAX_UPLOAD bytes, 400 when it does not parse."""
    board: Board = request.app.state.board
    name = (request.query_params.get("name") or "upload")[:200]
    limit_mb = MAX_UPLOAD // (1024 * 1024)
    too_big = JSONResponse({"error": f"{name} is larger than {limit_mb} MB: files up to "
                                     f"{limit_mb} MB can be opened"}, status_code=413)
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > MAX_UPLOAD:
        return too_big
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_UPLOAD:
            return too_big
        chunks.append(chunk)
    data = b"".join(chunks)
    kind = request.query_params.get("kind") or "pdn"
    try:
        if kind == "analysis":
            result = await asyncio.to_thread(records.read_analysis, data, name)
            return JSONResponse(dict(result, kind="analysis"))
        if kind != "pdn":
            raise RecordsError(f"unknown kind {kind[:20]!r} (pdn or analysis)")
        try:
            variant = variant_of(request.query_params.get("variant") or "brazilian")
        except RequestError as exc:
            raise RecordsError(str(exc)) from None
        up = await asyncio.to_thread(records.read_upload, data, name, variant)
    except RecordsError as exc:
        return JSONResponse({"error": str(exc)}, status_code=400)
    return JSONResponse({"kind": "pdn", "upload": board.keep(up), "name": name,
                         "variant": variant.name, "games": up.listing()})


async def websocket(ws: WebSocket) -> None:
    board: Board = ws.app.state.board
    await ws.accept()
    if len(board.tabs) >= board.max_tabs:
        await ws.send_text(json.dumps({
            "type": "refused", "message": f"{len(board.tabs)} tabs are open, the most this server "
            f"allows (--max-tabs {board.max_tabs}): close one and reload this page"}))
        await ws.close(code=4003)
        return
    tab = Tab(ws, board)
    board.tabs.add(tab)
    try:
        await tab.run()
    finally:
        board.tabs.discard(tab)


def create_app(config: EngineConfig, guard: Guard, max_tabs: int = 4) -> GuardMiddleware:
    """The whole application, behind its guard."""
    board = Board(config, guard, max_tabs)

    @asynccontextmanager
    async def lifespan(app):
        yield
        await asyncio.gather(*(e.close() for e in list(board.engines)), return_exceptions=True)

    app = Starlette(routes=[Route("/", page), Route("/static/{name}", static),
                            Route("/api/upload", upload, methods=["POST"]),
                            WebSocketRoute("/ws", websocket)], lifespan=lifespan)
    app.state.board = board
    return GuardMiddleware(app, guard)
