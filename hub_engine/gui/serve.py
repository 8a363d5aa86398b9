"""Running the board's application with uvicorn on a socket already bound."""
from __future__ import annotations

import socket
from collections.abc import Callable

import uvicorn

from hub_engine.gui.engines import EngineConfig
from hub_engine.gui.security import Guard
from hub_engine.gui.server import create_app

WS_MAX_SIZE = 1024 * 1024       # bytes of one WebSocket message (files go by HTTP upload)


def config(sock_app, debug: bool = False) -> uvicorn.Config:
    """uvicorn's settings, every implementation named (no guessing at import time, and the
    one-file build knows what to bundle): asyncio, h11, wsproto; quiet unless debugging."""
    return uvicorn.Config(sock_app, loop="asyncio", http="h11", ws="wsproto", lifespan="on",
                          log_level="info" if debug else "warning", access_log=debug,
                          ws_max_size=WS_MAX_SIZE, ws_ping_interval=None,
                          timeout_graceful_shutdown=3, h11_max_incomplete_event_size=65536,
                          limit_concurrency=64, server_header=False, date_header=False)


class _Server(uvicorn.Server):
    """uvicorn's server that says when it serves: the address is printed only once Ctrl-C
    is uvicorn's to handle, so a Ctrl-C right after the address always ends the server."""

    def __init__(self, cfg: uvicorn.Config, on_ready: Callable[[], None]) -> None:
        super().__init__(cfg)
        self.on_ready = on_ready

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if self.started and not self.should_exit:
            self.on_ready()


def serve(sock: socket.socket, engine: EngineConfig, guard: Guard, max_tabs: int,
          on_ready: Callable[[], None], debug: bool = False) -> int:
    """Serve until Ctrl-C (or SIGTERM), calling on_ready once requests are answered; every
    tab's engine is ended on the way out."""
    app = create_app(engine, guard, max_tabs)
    server = _Server(config(app, debug), on_ready)
    server.run(sockets=[sock])
    return 0 if server.started else 2
