"""The ``Host`` header check of `arena serve` (against DNS rebinding).

A page of another site cannot read this server's answers, unless its own name is made to point at this
server's address (DNS rebinding): the browser then sends that site's name as the ``Host``. So every request
and every WebSocket must name this server: the address it listens on with its port (``127.0.0.1:PORT``,
``localhost:PORT``, ``[::1]:PORT`` and the host name given to ``--host``), or a name of ``--allowed-host``
(for a server behind a proxy). Anything else gets 421 Misdirected Request (400 when there is no Host at
all), and a WebSocket is refused before its handshake completes (HTTP 403).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from arena.errors import ConfigError

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]

_NAME = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?")
_ANY_ADDRESS = ("0.0.0.0", "::", "")


def _split(host: str) -> tuple[str, int | None] | None:
    """``name``, ``name:port``, ``[v6]`` or ``[v6]:port`` as (lower-case host, port); None when it is none."""
    host = host.strip().lower()
    m = re.fullmatch(r"\[([0-9a-f:.]+)\](?::(\d{1,5}))?", host) or re.fullmatch(r"([^:\[\]]+)(?::(\d{1,5}))?", host)
    if m is None:
        return None
    name, port = m.group(1), m.group(2)
    if not (_is_ip(name) or _NAME.fullmatch(name)):
        return None
    return name.rstrip("."), None if port is None else int(port)


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def parse_allowed(values: list[str]) -> list[tuple[str, int | None]]:
    """``--allowed-host`` values: a host name or address, with a port or without (then any port)."""
    out = []
    for v in values:
        parsed = _split(v)
        if parsed is None or not parsed[0]:
            raise ConfigError(f"--allowed-host: {v[:60]!r} is not a host name or address (e.g. play.example.org "
                              "or play.example.org:8443)")
        out.append(parsed)
    return out


class HostGate:
    """Which ``Host`` headers name this server. The port is known once the server listens (``--port 0``)."""

    def __init__(self, bind_host: str, allowed: list[tuple[str, int | None]]) -> None:
        self.bind_host = bind_host.strip("[]").lower()
        self.allowed = allowed
        self.port: int | None = None  # until set, nothing is let through (fail closed)

    def listening(self, port: int) -> None:
        self.port = port

    def permits(self, header: str | None) -> bool:
        if header is None or self.port is None:
            return False
        parsed = _split(header)
        if parsed is None:
            return False
        name, port = parsed
        for allowed_name, allowed_port in self.allowed:
            if name == allowed_name and (allowed_port is None or port == allowed_port):
                return True
        if (port if port is not None else 80) != self.port:
            return False
        if name in ("127.0.0.1", "localhost", "::1", self.bind_host):
            return True
        # listening on every interface: any address of this machine may be typed; a rebinding needs a name
        return self.bind_host in _ANY_ADDRESS and _is_ip(name)


def check_host(app: Any, gate: HostGate) -> Callable[[Scope, Receive, Send], Awaitable[None]]:
    """The ASGI application ``app`` behind the Host check."""

    async def checked(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await app(scope, receive, send)
            return
        hosts = [v for k, v in scope.get("headers", []) if k == b"host"]
        host = hosts[0].decode("latin-1") if len(hosts) == 1 else None
        if gate.permits(host):
            await app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await receive()  # websocket.connect
            await send({"type": "websocket.close", "code": 1008})  # before accept: HTTP 403
            return
        status = 400 if host is None else 421
        body = b"this server does not answer to that Host\n" if host else b"a Host header is required\n"
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})

    return checked
