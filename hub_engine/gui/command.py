"""`hub-engine gui`: the command line of the board in the browser (docs/gui.md)."""
from __future__ import annotations

import argparse
import shlex
import shutil
import sys

DESCRIPTION = ("A board in the browser to play and analyse every variant with the engine: a local "
               "web server that prints its address (with its access token) as the first line on "
               "stdout and opens the default browser there. Ctrl-C ends it and every engine it "
               "started.")
DEFAULT_MAX_TABS = 4
DEFAULT_IDLE_MINUTES = 15.0


def _param(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    name = name.strip()
    if not sep or not name or any(c.isspace() for c in name) or "\n" in value:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    return name, value.strip()


def _positive(kind):
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be more than 0, got {text}")
        return value
    parse.__name__ = "number"
    return parse


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, got {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is from 0 to 65535, got {value}")
    return value


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register `gui` on the main parser's subparsers; run() is its handler."""
    p = subparsers.add_parser("gui", help="a board in the browser: play and analyse with the "
                              "engine", description=DESCRIPTION)
    p.add_argument("--port", type=_port, default=0,
                   help="the port to serve on (default: a free port)")
    p.add_argument("--host", default="127.0.0.1",
                   help="the address to serve on; anything but a loopback address lets other "
                        "machines reach the board, and a warning says so")
    p.add_argument("--engine", metavar="CMD",
                   help="the engine to start for each tab, a command line (any 8x8 Hub engine; "
                        "default: this program itself)")
    p.add_argument("--engine-param", action="append", type=_param, metavar="NAME=VALUE",
                   help="a parameter sent to each engine as set-param before init (repeatable)")
    p.add_argument("--max-tabs", type=_positive(int), default=DEFAULT_MAX_TABS, metavar="N",
                   help="browser tabs open at once, each with its engine process")
    p.add_argument("--idle-minutes", type=_positive(float), default=DEFAULT_IDLE_MINUTES,
                   metavar="MINUTES",
                   help="stop a tab's engine after this many minutes without use (it starts "
                        "again when needed)")
    p.add_argument("--no-browser", action="store_true", help="do not open a browser")
    p.set_defaults(handler=run)
    return p


def run(args: argparse.Namespace) -> int:
    import os
    import socket

    from hub_engine.gui.security import Guard, browser_host, is_loopback
    from hub_engine.program import self_command

    own = self_command()
    command = shlex.split(args.engine) if args.engine else own
    if not command:
        print("hub-engine gui: error: --engine is empty", file=sys.stderr)
        return 2
    if shutil.which(command[0]) is None:
        print(f"hub-engine gui: error: engine command not found or not executable: "
              f"{command[0]}", file=sys.stderr)
        return 2
    if not is_loopback(args.host):
        print(f"hub-engine gui: warning: --host {args.host} is not a loopback address: other "
              "machines that reach this one can open the board with its address and token, "
              "and make it start engines; the connection is not encrypted", file=sys.stderr)
    try:
        family = socket.AF_INET6 if ":" in args.host.strip("[]") else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((args.host.strip("[]"), args.port))
        sock.listen(128)
    except OSError as exc:
        print(f"hub-engine gui: error: cannot serve on {args.host} port {args.port}: "
              f"{exc.strerror or exc}", file=sys.stderr)
        return 2
    port = sock.getsockname()[1]
    guard = Guard.for_host(args.host, port)
    url = f"http://{browser_host(args.host)}:{port}{guard.prefix}/"
    if getattr(sys, "frozen", False):
        _watch_launcher()
    from hub_engine.gui.engines import EngineConfig
    from hub_engine.gui.serve import serve

    config = EngineConfig(tuple(command), tuple(args.engine_param or ()), args.idle_minutes * 60)

    def ready() -> None:
        print(url, flush=True)
        if not args.no_browser:
            _open_browser(url)

    return serve(sock, config, guard, args.max_tabs, ready,
                 os.environ.get("HUB_ENGINE_GUI_DEBUG") == "1")


def _watch_launcher() -> None:
    """The one-file build runs this process under a small launcher that unpacks it: end with
    the launcher, so that killing it (even with SIGKILL) ends the server and its engines."""
    from hub_engine import lifetime

    lifetime.exit_with_parent()


def _open_browser(url: str) -> None:
    import threading
    import webbrowser

    threading.Thread(target=webbrowser.open, args=(url,), name="browser", daemon=True).start()
