"""Python client of the sidecar: `Client` (blocking) and `AsyncClient` (asyncio), on httpx.

    with Client("http://127.0.0.1:8700", key) as c:
        c.send_turns([{"user": "alice", "text": "From now on answer in detail."}], wait=5)
        print(c.context("alice", "explain list slicing").context)

Responses are the sidecar's own models (`slotstream.sidecar.schemas`, records as
`slotstream.memory.models.Record`). A 429 or 503 is retried with backoff (a 429's Retry-After is
honoured); any other error raises `SidecarRequestError` with the reason code the sidecar gave.
Ingest calls give each op an id before the first attempt, so a retried request is a duplicate
for the pipeline, never a second write.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, TypeVar, cast

import httpx
import orjson
from pydantic import BaseModel

from slotstream.memory.errors import SlotstreamError
from slotstream.memory.models import Record
from slotstream.sidecar.schemas import ContextResult, History, IngestResult, MemoryPage

RETRY_STATUSES = (429, 503)
T = TypeVar("T", bound=BaseModel | Record)  # what an answer parses into


class SidecarRequestError(SlotstreamError):
    def __init__(self, status: int, reason: str, detail: str = "", field: str | None = None) -> None:
        super().__init__(f"{status} {reason}: {detail}" if detail else f"{status} {reason}")
        self.status, self.reason, self.detail, self.field = status, reason, detail, field


def _error(resp: httpx.Response) -> SidecarRequestError:
    try:
        body = resp.json()
    except ValueError:
        body = {}
    return SidecarRequestError(
        resp.status_code, body.get("reason", "http_error"), body.get("detail", ""), body.get("field")
    )


def _delay(resp: httpx.Response | None, attempt: int, base: float) -> float:
    if resp is not None and resp.headers.get("retry-after", "").isdigit():
        return float(resp.headers["retry-after"])
    return base * (2**attempt)


def _retry_in(attempt: int, retries: int, backoff: float, resp: httpx.Response | None) -> float | None:
    """Seconds to wait before the next attempt, or None: `resp` (None after a transport error) is
    final. A transport error on the last attempt is re-raised by the caller."""
    if attempt == retries or (resp is not None and resp.status_code not in RETRY_STATUSES):
        return None
    return _delay(resp, attempt, backoff)


def _checked(resp: httpx.Response) -> httpx.Response:
    if resp.status_code >= 400:
        raise _error(resp)
    return resp


@dataclass(frozen=True)
class Call(Generic[T]):
    """One API call, built once for both clients: what to send and the model the answer is."""

    method: str
    path: str
    model: type[T]
    json: Any = None
    params: dict[str, Any] = field(default_factory=dict)
    wait: float | None = None  # a write's ?wait=: the HTTP timeout grows by it

    def parse(self, content: bytes) -> T:
        return cast(T, self.model.model_validate_json(content))

    def send_args(self, timeout: float) -> dict[str, Any]:
        params = {**self.params, **({"wait": self.wait} if self.wait is not None else {})}
        return {"json": self.json, "params": params, "timeout": timeout + (self.wait or 0)}


def _write(method: str, path: str, body: Any, wait: float | None) -> Call[IngestResult]:
    return Call(method, path, IngestResult, json=body, wait=wait)


def context_call(
    user: str,
    query: str,
    project: str | None,
    session: str | None,
    max_items: int | None,
    max_chars: int | None,
    at: datetime | str | None,
    explain: bool,
) -> Call[ContextResult]:
    body: dict[str, Any] = {"user": user, "query": query, "explain": explain}
    for name, value in (("project", project), ("session", session), ("max_items", max_items), ("max_chars", max_chars)):
        if value is not None:
            body[name] = value
    if at is not None:
        body["at"] = at.isoformat() if isinstance(at, datetime) else at
    return Call("POST", "/v1/context", ContextResult, json=body)


def turns_call(turns: list[dict[str, Any]], wait: float | None) -> Call[IngestResult]:
    with_ids = [t if t.get("turn_id") else {**t, "turn_id": f"clt_{uuid.uuid4().hex}"} for t in turns]
    return _write("POST", "/v1/turns", {"turns": with_ids}, wait)


def ops_call(ops: list[dict[str, Any]], wait: float | None) -> Call[IngestResult]:
    with_ids = [op if op.get("op_id") else {**op, "op_id": f"cli_{uuid.uuid4().hex}"} for op in ops]
    return _write("POST", "/v1/ops", {"ops": with_ids}, wait)


def memories_call(user: str, cursor: int, limit: int, filters: dict[str, str | None]) -> Call[MemoryPage]:
    params = {k: v for k, v in filters.items() if v is not None} | {"cursor": cursor, "limit": limit}
    return Call("GET", f"/v1/users/{user}/memories", MemoryPage, params=params)


def memory_call(user: str, record_id: str) -> Call[Record]:
    return Call("GET", f"/v1/users/{user}/memories/{record_id}", Record)


def history_call(user: str, record_id: str) -> Call[History]:
    return Call("GET", f"/v1/users/{user}/memories/{record_id}/history", History)


def control_call(user: str, record_id: str, action: str, wait: float | None, body: Any = None) -> Call[IngestResult]:
    """correct, confirm, reject (POST …/{id}/{action}) and forget (DELETE …/{id})."""
    path = f"/v1/users/{user}/memories/{record_id}"
    if action == "forget":
        return _write("DELETE", path, None, wait)
    return _write("POST", f"{path}/{action}", body if body is not None else {}, wait)


def erase_call(user: str, wait: float | None) -> Call[IngestResult]:
    return _write("DELETE", f"/v1/users/{user}", None, wait)


class Client:
    def __init__(
        self,
        base_url: str,
        key: str,
        timeout: float = 10.0,
        retries: int = 4,
        backoff: float = 0.1,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.retries, self.backoff, self.timeout = retries, backoff, timeout
        self._http = httpx.Client(base_url=base_url, transport=transport, headers={"Authorization": f"Bearer {key}"})

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def _run(self, call: Call[T]) -> T:
        for attempt in range(self.retries + 1):
            try:
                resp = self._http.request(call.method, call.path, **call.send_args(self.timeout))
            except httpx.TransportError:
                if attempt == self.retries:
                    raise
                time.sleep(_delay(None, attempt, self.backoff))
                continue
            wait = _retry_in(attempt, self.retries, self.backoff, resp)
            if wait is None:
                return call.parse(_checked(resp).content)
            time.sleep(wait)
        raise AssertionError("unreachable: the last attempt returns or raises")

    def context(
        self,
        user: str,
        query: str = "",
        *,
        project: str | None = None,
        session: str | None = None,
        max_items: int | None = None,
        max_chars: int | None = None,
        at: datetime | str | None = None,
        explain: bool = False,
    ) -> ContextResult:
        return self._run(context_call(user, query, project, session, max_items, max_chars, at, explain))

    def send_turns(self, turns: list[dict[str, Any]], wait: float | None = None) -> IngestResult:
        return self._run(turns_call(turns, wait))

    def send_ops(self, ops: list[dict[str, Any]], wait: float | None = None) -> IngestResult:
        return self._run(ops_call(ops, wait))

    def memories(self, user: str, *, cursor: int = 0, limit: int = 50, **filters: str | None) -> MemoryPage:
        """`filters`: status, kind, scope, attribute."""
        return self._run(memories_call(user, cursor, limit, filters))

    def memory(self, user: str, record_id: str) -> Record:
        return self._run(memory_call(user, record_id))

    def history(self, user: str, record_id: str) -> History:
        return self._run(history_call(user, record_id))

    def correct(
        self, user: str, record_id: str, value: Any, statement: str | None = None, wait: float | None = None
    ) -> IngestResult:
        return self._run(control_call(user, record_id, "correct", wait, {"value": value, "statement": statement}))

    def forget(self, user: str, record_id: str, wait: float | None = None) -> IngestResult:
        return self._run(control_call(user, record_id, "forget", wait))

    def confirm(self, user: str, record_id: str, wait: float | None = None) -> IngestResult:
        return self._run(control_call(user, record_id, "confirm", wait))

    def reject(self, user: str, record_id: str, wait: float | None = None) -> IngestResult:
        return self._run(control_call(user, record_id, "reject", wait))

    def erase(self, user: str, wait: float | None = None) -> IngestResult:
        return self._run(erase_call(user, wait))

    def export(self, user: str) -> Iterator[dict[str, Any]]:
        with self._http.stream("GET", f"/v1/users/{user}/export", timeout=self.timeout) as resp:
            if resp.status_code >= 400:
                resp.read()
                raise _error(resp)
            for line in resp.iter_lines():
                if line:
                    yield orjson.loads(line)

    def ready(self) -> bool:
        return self._http.get("/readyz", timeout=self.timeout).status_code == 200


class AsyncClient:
    """`Client` for asyncio: the same calls, awaited."""

    def __init__(
        self,
        base_url: str,
        key: str,
        timeout: float = 10.0,
        retries: int = 4,
        backoff: float = 0.1,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.retries, self.backoff, self.timeout = retries, backoff, timeout
        self._http = httpx.AsyncClient(
            base_url=base_url, transport=transport, headers={"Authorization": f"Bearer {key}"}
        )

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def _run(self, call: Call[T]) -> T:
        for attempt in range(self.retries + 1):
            try:
                resp = await self._http.request(call.method, call.path, **call.send_args(self.timeout))
            except httpx.TransportError:
                if attempt == self.retries:
                    raise
                await asyncio.sleep(_delay(None, attempt, self.backoff))
                continue
            wait = _retry_in(attempt, self.retries, self.backoff, resp)
            if wait is None:
                return call.parse(_checked(resp).content)
            await asyncio.sleep(wait)
        raise AssertionError("unreachable: the last attempt returns or raises")

    async def context(
        self,
        user: str,
        query: str = "",
        *,
        project: str | None = None,
        session: str | None = None,
        max_items: int | None = None,
        max_chars: int | None = None,
        at: datetime | str | None = None,
        explain: bool = False,
    ) -> ContextResult:
        return await self._run(context_call(user, query, project, session, max_items, max_chars, at, explain))

    async def send_turns(self, turns: list[dict[str, Any]], wait: float | None = None) -> IngestResult:
        return await self._run(turns_call(turns, wait))

    async def send_ops(self, ops: list[dict[str, Any]], wait: float | None = None) -> IngestResult:
        return await self._run(ops_call(ops, wait))

    async def memories(self, user: str, *, cursor: int = 0, limit: int = 50, **filters: str | None) -> MemoryPage:
        """`filters`: status, kind, scope, attribute."""
        return await self._run(memories_call(user, cursor, limit, filters))

    async def memory(self, user: str, record_id: str) -> Record:
        return await self._run(memory_call(user, record_id))

    async def history(self, user: str, record_id: str) -> History:
        return await self._run(history_call(user, record_id))

    async def correct(
        self, user: str, record_id: str, value: Any, statement: str | None = None, wait: float | None = None
    ) -> IngestResult:
        return await self._run(control_call(user, record_id, "correct", wait, {"value": value, "statement": statement}))

    async def forget(self, user: str, record_id: str, wait: float | None = None) -> IngestResult:
        return await self._run(control_call(user, record_id, "forget", wait))

    async def confirm(self, user: str, record_id: str, wait: float | None = None) -> IngestResult:
        return await self._run(control_call(user, record_id, "confirm", wait))

    async def reject(self, user: str, record_id: str, wait: float | None = None) -> IngestResult:
        return await self._run(control_call(user, record_id, "reject", wait))

    async def erase(self, user: str, wait: float | None = None) -> IngestResult:
        return await self._run(erase_call(user, wait))

    async def export(self, user: str) -> AsyncIterator[dict[str, Any]]:
        async with self._http.stream("GET", f"/v1/users/{user}/export", timeout=self.timeout) as resp:
            if resp.status_code >= 400:
                await resp.aread()
                raise _error(resp)
            async for line in resp.aiter_lines():
                if line:
                    yield orjson.loads(line)

    async def ready(self) -> bool:
        return (await self._http.get("/readyz", timeout=self.timeout)).status_code == 200
