"""Who may talk to the board: a local server is reachable from every page the browser opens.

Three checks on every HTTP request and WebSocket, before anything else runs:
- the access token, a random string that only the command's output (and the page it opened)
  knows, is the first path segment (`/TOKEN/...`), so that the page's own relative links carry
  it and nothing else needs it (no cookie, which other sites' pages on the same host would share);
- the Host header names the address the server serves (a DNS-rebinding page reaches the server
  under its own host name, which fails this);
- a WebSocket's Origin, and an Origin sent with any other request, is the server's own.
A refused request gets 403 with the reason; a refused WebSocket is closed before its handshake,
which the server answers with 403.
"""
from __future__ import annotations

import ipaddress
import secrets
from dataclasses import dataclass
from typing import Iterable

TOKEN_BYTES = 24

HEADERS = [                    # sent with every page and asset
    (b"content-security-policy",
     b"default-src 'self'; connect-src 'self'; img-src 'self' data: blob:; object-src 'none'; "
     b"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"cache-control", b"no-store"),
]


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def is_loopback(host: str) -> bool:
    """Whether a --host value is a loopback address (or `localhost`)."""
    name = host.strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def url_host(host: str) -> str:
    """A host as it is written in a URL (IPv6 addresses in brackets)."""
    name = host.strip("[]")
    try:
        if ipaddress.ip_address(name).version == 6:
            return f"[{name}]"
    except ValueError:
        pass
    return name


def browser_host(host: str) -> str:
    """The host a local browser opens for a server bound to `host` (any-address: loopback)."""
    name = host.strip("[]")
    if name in ("", "0.0.0.0"):
        return "127.0.0.1"
    if name == "::":
        return "[::1]"
    return url_host(name)


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name.strip("[]"))
        return True
    except ValueError:
        return False


@dataclass(frozen=True)
class Guard:
    """The token and the Host names the server answers to."""

    token: str
    port: int
    names: frozenset[str]            # host names without the port
    any_ip: bool = False             # also any IP address literal (a server on all interfaces)

    @classmethod
    def for_host(cls, host: str, port: int, token: str | None = None,
                 extra: Iterable[str] = ()) -> "Guard":
        """The guard of a server bound to host:port: its own name, and for a loopback or
        any-address server the loopback names too. An IP literal cannot be rebound, so a server
        on all interfaces also answers to its addresses."""
        name = url_host(host).lower()
        names = {name, *(n.lower() for n in extra)}
        wildcard = host.strip("[]") in ("", "0.0.0.0", "::")
        if is_loopback(host) or wildcard:
            names |= {"localhost", "127.0.0.1", "[::1]"}
        return cls(token or new_token(), port, frozenset(names), any_ip=wildcard)

    @property
    def prefix(self) -> str:
        return f"/{self.token}"

    def host_ok(self, host: str | None) -> bool:
        if not host:
            return False
        host = host.lower()
        if host.startswith("["):                       # [v6]:port
            name, _, rest = host.partition("]")
            name += "]"
            port = rest[1:] if rest.startswith(":") else ("80" if not rest else "")
        else:
            name, sep, port = host.partition(":")
            if not sep:
                port = "80"
        if port != str(self.port):
            return False
        return name in self.names or (self.any_ip and _is_ip(name))

    def origin_ok(self, origin: str | None, host: str | None) -> bool:
        """The Origin of the server's own pages: http:// and the Host it was reached by."""
        return bool(origin) and bool(host) and self.host_ok(host) and \
            origin.lower() == f"http://{host.lower()}"

    def token_ok(self, path: str) -> bool:
        first = path.split("/", 2)[1] if path.startswith("/") else ""
        return secrets.compare_digest(first.encode(), self.token.encode())


class GuardMiddleware:
    """ASGI middleware: the checks above, then the path without its token for the app."""

    def __init__(self, app, guard: Guard) -> None:
        self.app = app
        self.guard = guard

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        host, origin = headers.get("host"), headers.get("origin")
        g = self.guard
        path = scope.get("path", "")
        why = None
        if not g.host_ok(host):
            why = "unknown Host"
        elif not g.token_ok(path):
            why = "wrong or missing access token"
        elif scope["type"] == "websocket" and not g.origin_ok(origin, host):
            why = "foreign Origin"
        elif scope["type"] == "http" and origin is not None and origin != "null" and \
                not g.origin_ok(origin, host):
            why = "foreign Origin"
        elif scope["type"] == "http" and origin == "null" and scope.get("method") != "GET":
            why = "foreign Origin"
        if why is not None:
            await _refuse(scope, receive, send, why)
            return
        rest = path[len(g.prefix):]
        if scope["type"] == "http" and rest == "":
            await _redirect(send, g.prefix + "/")
            return
        scope = dict(scope, path=rest, raw_path=rest.encode(), root_path="")
        await self.app(scope, receive, _with_headers(send))


def _with_headers(send):
    async def wrapped(message) -> None:
        if message["type"] == "http.response.start":
            have = {k.lower() for k, _v in message.get("headers", [])}
            message = dict(message, headers=list(message.get("headers", [])) +
                           [(k, v) for k, v in HEADERS if k not in have])
        await send(message)
    return wrapped


async def _refuse(scope, receive, send, why: str) -> None:
    if scope["type"] == "websocket":
        await receive()                                   # websocket.connect
        await send({"type": "websocket.close", "code": 1008, "reason": why})
        return
    body = f"403 forbidden: {why}\n".encode()
    await send({"type": "http.response.start", "status": 403,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(body)).encode())] + HEADERS})
    await send({"type": "http.response.body", "body": body})


async def _redirect(send, location: str) -> None:
    await send({"type": "http.response.start", "status": 307,
                "headers": [(b"location", location.encode()), (b"content-length", b"0")] + HEADERS})
    await send({"type": "http.response.body", "body": b""})
