"""The client's own logic, on an in-process transport (the service itself is tested over a real
socket in tests/integration/sidecar): retries, their ids, errors, timeouts."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from slotstream.client import AsyncClient, Client, SidecarRequestError

ACCEPTED = {"accepted": [{"id": "x", "topic": "t", "partition": 0, "offset": 1}], "complete": False}


def scripted(*answers: httpx.Response | type[Exception]) -> tuple[list[httpx.Request], httpx.MockTransport]:
    seen: list[httpx.Request] = []
    queue = list(answers)

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        answer = queue.pop(0)
        if isinstance(answer, type):
            raise answer("boom", request=request)
        return answer

    return seen, httpx.MockTransport(handle)


def busy(retry_after: str | None = None) -> httpx.Response:
    headers = {"Retry-After": retry_after} if retry_after else {}
    return httpx.Response(503, json={"reason": "redis_unavailable", "detail": "", "field": None}, headers=headers)


def test_a_retried_write_sends_the_same_ids_every_time() -> None:
    seen, transport = scripted(busy(), httpx.ConnectError, busy(), httpx.Response(202, json=ACCEPTED))
    with Client("http://sidecar", "k", backoff=0.001, transport=transport) as client:
        client.send_ops([{"record": {"user": "u"}}], wait=2)
    bodies = [json.loads(r.content) for r in seen]
    assert len(bodies) == 4 and len({b["ops"][0]["op_id"] for b in bodies}) == 1
    assert all(r.url.params["wait"] == "2" for r in seen)
    assert seen[0].headers["authorization"] == "Bearer k"

    seen, transport = scripted(busy(), httpx.Response(202, json=ACCEPTED))
    with Client("http://sidecar", "k", backoff=0.001, transport=transport) as client:
        client.send_turns([{"user": "u", "text": "hi"}])
    assert len({json.loads(r.content)["turns"][0]["turn_id"] for r in seen}) == 1 and len(seen) == 2


def test_retry_after_is_honoured_and_retries_end() -> None:
    seen, transport = scripted(*[busy("0")] * 3)
    client = Client("http://sidecar", "k", retries=2, backoff=0.001, transport=transport)
    with client, pytest.raises(SidecarRequestError) as err:
        client.memory("u", "r1")
    assert len(seen) == 3 and err.value.status == 503 and err.value.reason == "redis_unavailable"


def test_other_errors_are_not_retried_and_carry_reason_and_field() -> None:
    problem = {"reason": "value_out_of_range", "detail": "at most 200", "field": "limit"}
    seen, transport = scripted(httpx.Response(422, json=problem))
    with Client("http://sidecar", "k", transport=transport) as client, pytest.raises(SidecarRequestError) as err:
        client.memories("u", limit=1000)
    assert len(seen) == 1 and (err.value.status, err.value.reason, err.value.field) == (
        422,
        "value_out_of_range",
        "limit",
    )


def test_a_transport_error_on_the_last_attempt_is_raised() -> None:
    seen, transport = scripted(httpx.ConnectError, httpx.ConnectError)
    client = Client("http://sidecar", "k", retries=1, backoff=0.001, transport=transport)
    with client, pytest.raises(httpx.ConnectError):
        client.context("u", "q")
    assert len(seen) == 2


def test_the_async_client_retries_alike() -> None:
    seen, transport = scripted(busy(), httpx.Response(202, json=ACCEPTED))

    async def run() -> None:
        async with AsyncClient("http://sidecar", "k", backoff=0.001, transport=transport) as client:
            result = await client.forget("u", "r1", wait=1)
            assert result.accepted[0].offset == 1

    asyncio.run(run())
    assert [(r.method, r.url.path) for r in seen] == [("DELETE", "/v1/users/u/memories/r1")] * 2
