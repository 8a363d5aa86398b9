"""Running the board's application with uvicorn on a socket already bound (its port printed)."""
from __future__ import annotations

import socket

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


def serve(sock: socket.socket, engine: EngineConfig, guard: Guard, max_tabs: int,
          debug: bool = False) -> int:
    """Serve until Ctrl-C (or SIGTERM); every tab's engine is ended on the way out."""
    app = create_app(engine, guard, max_tabs)
    server = uvicorn.Server(config(app, debug))
    server.run(sockets=[sock])
    return 0 if server.started else 2
