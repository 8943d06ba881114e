"""Slow and greedy clients against a real sidecar (one server process, a 2-second header deadline,
a cap of 20 connections): headers sent a byte at a time are cut off, connections past the cap are
answered 503 in the problem shape, and an ordinary client is served throughout."""

from __future__ import annotations

import contextlib
import socket
import time
import uuid
from collections.abc import Iterator

import httpx
import orjson
import pytest

from support import Service, start_service

pytestmark = [pytest.mark.kafka, pytest.mark.integration]
HEADER_SECONDS, MAX_CONNECTIONS = 2.0, 20


@pytest.fixture(scope="module")
def service(kafka_bootstrap: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    svc = start_service(
        kafka_bootstrap,
        redis_url,
        tmp_path_factory.mktemp("slow"),
        f"slow-{uuid.uuid4().hex[:6]}",
        sidecar_workers=1,
        sidecar_header_timeout=HEADER_SECONDS,
        sidecar_max_connections=MAX_CONNECTIONS,
    )
    yield svc
    svc.stack.stop()


def address(service: Service) -> tuple[str, int]:
    host, port = service.url.removeprefix("http://").split(":")
    return host, int(port)


def closed_by_server(conn: socket.socket) -> bool:
    try:
        return conn.recv(1024) == b""
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        return False


def test_headers_sent_a_byte_at_a_time_are_cut_off(service: Service) -> None:
    slow = [socket.create_connection(address(service), timeout=0.05) for _ in range(15)]
    request = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 200
    started = time.monotonic()
    for n in range(0, 40):  # a byte from each every 0.1 s, never the end of the headers
        for conn in slow:
            with contextlib.suppress(OSError):  # the server may have closed it already
                conn.sendall(request[n : n + 1])
        time.sleep(0.1)
    with httpx.Client(base_url=service.url, timeout=5) as h:
        assert h.get("/healthz").status_code == 200, "an ordinary client is served meanwhile"
    for conn in slow:
        conn.settimeout(
            HEADER_SECONDS + 3 - (time.monotonic() - started)
            if time.monotonic() - started < HEADER_SECONDS + 3
            else 0.5
        )
    still_open = [conn for conn in slow if not closed_by_server(conn)]
    assert not still_open, f"{len(still_open)} of {len(slow)} slow connections still open"
    for conn in slow:
        conn.close()


def test_a_connection_past_the_cap_gets_503_in_the_problem_shape(service: Service) -> None:
    held = [socket.create_connection(address(service), timeout=5) for _ in range(MAX_CONNECTIONS)]
    try:
        time.sleep(0.2)
        with socket.create_connection(address(service), timeout=5) as extra:
            extra.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            answer = b""
            while chunk := extra.recv(4096):
                answer += chunk
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 503"), answer
        assert orjson.loads(body) == {
            "reason": "too_many_connections",
            "detail": "this server process is full",
            "field": None,
        }
    finally:
        for conn in held:
            conn.close()
    time.sleep(0.2)
    with httpx.Client(base_url=service.url, timeout=5) as h:
        assert h.get("/healthz").status_code == 200, "served again once the connections went"
