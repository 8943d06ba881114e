"""One error contract on a real sidecar: every error, the framework's own included, is the problem
shape `{reason, detail, field}`; types are strict; a time without its zone is refused; a
correction the worker would dead-letter is refused at the door; a cursor past 64 bits is the
caller's error, not a 500. Nothing is produced for any of them."""

from __future__ import annotations

import socket
from typing import Any

import httpx
import pytest

from support import Service

pytestmark = [pytest.mark.kafka, pytest.mark.integration]


def is_problem(answer: httpx.Response, status: int, reason: str) -> dict[str, Any]:
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"].startswith("application/json")
    body: dict[str, Any] = answer.json()
    assert set(body) == {"reason", "detail", "field"}, body
    assert body["reason"] == reason, body
    return body


def test_the_frameworks_own_errors_have_the_problem_shape(service: Service, tenant: str) -> None:
    with service.http(service.key(tenant)) as h:
        is_problem(h.get("/v1/nowhere"), 404, "not_found")
        wrong = h.put("/v1/turns", json={})
        is_problem(wrong, 405, "method_not_allowed")
        assert "POST" in wrong.headers["allow"]
        for path in ("/v1/turns", "/v1/ops", "/v1/users/u1/memories/r1/correct"):
            sent = h.post(path, content=b'{"user": "u1", "text": ', headers={"content-type": "application/json"})
            assert sent.status_code in (400, 422) and sent.json()["reason"] == "invalid_json", (path, sent.text)
            deep = b"[" * 10_000 + b"]" * 10_000
            nested = h.post(path, content=deep, headers={"content-type": "application/json"})
            assert 400 <= nested.status_code < 500 and set(nested.json()) == {"reason", "detail", "field"}, path


def test_a_405_allows_every_method_of_its_path(service: Service, tenant: str) -> None:
    with service.http(service.key(tenant)) as h:
        for path, methods in (
            ("/v1/users/u1/memories/r1", {"GET", "DELETE"}),  # two routes share the path
            ("/v1/users/u1", {"DELETE"}),
            ("/v1/context", {"POST"}),  # the front door's
        ):
            for method in ("OPTIONS", "PATCH"):
                answer = h.request(method, path)
                is_problem(answer, 405, "method_not_allowed")
                assert set(answer.headers["allow"].split(", ")) == methods, (method, path, answer.headers)


def test_types_are_strict_and_times_carry_their_zone(service: Service, tenant: str) -> None:
    with service.http(service.key(tenant)) as h:
        for loose in ({"explain": 0}, {"explain": "yes"}, {"max_items": "8"}, {"max_chars": 500.5}):
            answer = h.post("/v1/context", json={"user": "u1", "query": "x", **loose})
            assert answer.status_code == 422 and set(answer.json()) == {"reason", "detail", "field"}, loose
        naive = h.post("/v1/context", json={"user": "u1", "query": "x", "at": "2026-01-01T10:00:00"})
        body = is_problem(naive, 422, "invalid_field")
        assert body["field"] == "at" and "zone" in body["detail"]
        for zoned in ("2026-01-01T10:00:00Z", "2026-01-01T10:00:00+02:00", "2026-01-01T10:00:00.5-05:00"):
            assert h.post("/v1/context", json={"user": "u1", "query": "x", "at": zoned}).status_code == 200, zoned
        for loose in (
            "2026-01-01T10:00:00.5-0500",
            "2026-01-01 10:00:00Z",
            "2026-01-01T10:00Z",
            " 2026-01-01T10:00:00Z",
        ):
            body = is_problem(h.post("/v1/context", json={"user": "u1", "at": loose}), 422, "invalid_field")
            assert body["field"] == "at" and "RFC 3339" in body["detail"], loose
        far = h.post("/v1/context", json={"user": "u1", "at": "2300-01-01T00:00:00Z"})
        is_problem(far, 422, "time_out_of_range")
        assert h.post("/v1/context", json={"user": "u1", "max_items": 8.0}).status_code == 200, "8.0 is the integer 8"
        before = service.ends()
        turn = h.post("/v1/turns", json={"user": "u1", "text": "hi", "at": "2026-01-01 10:00"})
        is_problem(turn, 422, "invalid_field")
        assert service.ends() == before, "nothing produced"


def test_a_correction_the_worker_would_refuse_is_refused_at_the_door(service: Service, tenant: str) -> None:
    with service.http(service.key(tenant)) as h:
        before = service.ends()
        for value in (None, "", "   "):
            is_problem(h.post("/v1/users/u1/memories/r1/correct", json={"value": value}), 422, "missing_field")
            command = {"command": {"op": "correct", "user": "u1", "record_id": "r1", "value": value}}
            is_problem(h.post("/v1/ops", json=command), 422, "missing_field")
        assert service.ends() == before, "nothing produced"


def test_a_cursor_past_64_bits_is_the_callers_error(service: Service, tenant: str) -> None:
    with service.http(service.key(tenant)) as h:
        h.post("/v1/ops?wait=20", json={"record": {"user": "u1", "attribute": "profile.diet", "value": "vegan"}})
        too_big = h.get("/v1/users/u1/memories", params={"cursor": str(2**64)})
        assert too_big.status_code == 422 and too_big.json()["field"] == "cursor"
        # any cursor in range is one Redis takes (a made-up one starts a scan over, or ends it)
        unknown = h.get("/v1/users/u1/memories", params={"cursor": str(2**64 - 1)})
        assert unknown.status_code == 200, unknown.text
        assert h.get("/healthz").status_code == 200, "the connection and the server are fine after it"


def raw(service: Service, request: bytes) -> str:
    host, port = service.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as conn:
        conn.sendall(request)
        got = b""
        while chunk := conn.recv(65536):  # to the server's close: the body may come in a packet of its own
            got += chunk
        return got.decode(errors="replace")


def test_http_1_1_needs_a_host(service: Service) -> None:
    answer = raw(service, b"GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n")
    assert answer.startswith("HTTP/1.1 400") and '"missing_host"' in answer, answer
    assert raw(service, b"GET /healthz HTTP/1.0\r\n\r\n").startswith("HTTP/1.1 200"), "HTTP/1.0 has no Host"
    host = service.url.removeprefix("http://").encode()
    ok = raw(service, b"GET /healthz HTTP/1.1\r\nHost: " + host + b"\r\nConnection: close\r\n\r\n")
    assert ok.startswith("HTTP/1.1 200")


def test_a_body_must_be_json(service: Service, tenant: str) -> None:
    turn = b'{"user": "u1", "text": "I live in Lisbon."}'
    query = b'{"user": "u1", "query": "where do I live?"}'
    with service.http(service.key(tenant)) as h:
        before = service.ends()
        for kind in ("text/plain", "application/x-www-form-urlencoded", None):
            headers = {"content-type": kind} if kind else {}
            is_problem(h.post("/v1/turns", content=turn, headers=headers), 415, "unsupported_media_type")
            is_problem(h.post("/v1/context", content=query, headers=headers), 415, "unsupported_media_type")
        assert service.ends() == before, "nothing produced"
        for kind in ("application/json; charset=utf-8", "Application/JSON", "application/merge-patch+json"):
            assert h.post("/v1/context", content=query, headers={"content-type": kind}).status_code == 200, kind
        no_body = h.post("/v1/users/u1/memories/r1/confirm")
        assert no_body.json()["reason"] == "target_not_found", "no body, no type needed: refused for its record"
