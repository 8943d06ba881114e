"""The HTTP protocol the sidecar's server processes speak: uvicorn's httptools protocol with a
deadline on request headers and a cap on connections. A connection whose request headers are not
complete within the deadline is closed, so a client sending its headers a byte at a time cannot
hold a connection (uvicorn's keep-alive timeout covers only connections that send nothing). A
connection past the cap is answered 503 in the API's problem shape and closed."""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol


def _busy_answer() -> bytes:
    body = orjson.dumps({"reason": "too_many_connections", "detail": "this server process is full", "field": None})
    head = (
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 1\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    return head.encode() + body


BUSY = _busy_answer()


class SidecarProtocol(HttpToolsProtocol):
    header_seconds = 10.0
    max_connections = 1000

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None
        self._over_cap = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        # past the cap: answered once its request's headers are in (closing before reading them
        # would reset the connection under the client, who would never see why)
        self._over_cap = len(self.connections) > self.max_connections
        self._arm()  # the first request's headers

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self._deadline is None:
            self._arm()  # a later request on a kept-alive connection

    def on_headers_complete(self) -> None:
        self._disarm()
        if self._over_cap:
            self.transport.write(BUSY)
            self.transport.close()
            return
        super().on_headers_complete()

    def on_body(self, body: bytes) -> None:
        if not self._over_cap:
            super().on_body(body)

    def on_message_complete(self) -> None:
        if not self._over_cap:
            super().on_message_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.header_seconds, self._expired)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expired(self) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            self.transport.close()


def protocol_class(header_seconds: float, max_connections: int) -> type[SidecarProtocol]:
    """The protocol class with its limits (uvicorn makes one protocol object per connection)."""
    limits = {"header_seconds": header_seconds, "max_connections": max_connections}
    return type("SidecarProtocol", (SidecarProtocol,), limits)
