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
from datetime import datetime
from typing import Any

import httpx
import orjson

from slotstream.memory.errors import SlotstreamError
from slotstream.memory.models import Record
from slotstream.sidecar.schemas import ContextResult, History, IngestResult, MemoryPage

RETRY_STATUSES = (429, 503)


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


def _context_body(
    user: str,
    query: str,
    project: str | None,
    session: str | None,
    max_items: int | None,
    max_chars: int | None,
    at: datetime | str | None,
    explain: bool,
) -> dict[str, Any]:
    body: dict[str, Any] = {"user": user, "query": query, "explain": explain}
    for name, value in (("project", project), ("session", session), ("max_items", max_items), ("max_chars", max_chars)):
        if value is not None:
            body[name] = value
    if at is not None:
        body["at"] = at.isoformat() if isinstance(at, datetime) else at
    return body


def _with_ids(ops: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [op if op.get("op_id") else {**op, "op_id": f"cli_{uuid.uuid4().hex}"} for op in ops]


def _with_turn_ids(turns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [t if t.get("turn_id") else {**t, "turn_id": f"clt_{uuid.uuid4().hex}"} for t in turns]


def _params(wait: float | None, **more: Any) -> dict[str, Any]:
    out = {k: v for k, v in more.items() if v is not None}
    if wait is not None:
        out["wait"] = wait
    return out


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
        self.retries, self.backoff = retries, backoff
        self._http = httpx.Client(
            base_url=base_url, timeout=timeout, transport=transport, headers={"Authorization": f"Bearer {key}"}
        )

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def _request(self, method: str, path: str, timeout: float | None = None, **kw: Any) -> httpx.Response:
        resp: httpx.Response | None = None
        for attempt in range(self.retries + 1):
            try:
                resp = self._http.request(method, path, timeout=timeout or self._http.timeout, **kw)
            except httpx.TransportError:
                if attempt == self.retries:
                    raise
                time.sleep(_delay(None, attempt, self.backoff))
                continue
            if resp.status_code not in RETRY_STATUSES or attempt == self.retries:
                break
            time.sleep(_delay(resp, attempt, self.backoff))
        assert resp is not None
        if resp.status_code >= 400:
            raise _error(resp)
        return resp

    def _ingest(self, path: str, body: dict[str, Any], wait: float | None) -> IngestResult:
        resp = self._request("POST", path, json=body, params=_params(wait), timeout=(wait or 0) + 10)
        return IngestResult.model_validate_json(resp.content)

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
        body = _context_body(user, query, project, session, max_items, max_chars, at, explain)
        return ContextResult.model_validate_json(self._request("POST", "/v1/context", json=body).content)

    def send_turns(self, turns: list[dict[str, Any]], wait: float | None = None) -> IngestResult:
        return self._ingest("/v1/turns", {"turns": _with_turn_ids(turns)}, wait)

    def send_ops(self, ops: list[dict[str, Any]], wait: float | None = None) -> IngestResult:
        return self._ingest("/v1/ops", {"ops": _with_ids(ops)}, wait)

    def memories(
        self,
        user: str,
        *,
        status: str | None = None,
        kind: str | None = None,
        scope: str | None = None,
        attribute: str | None = None,
        cursor: int = 0,
        limit: int = 50,
    ) -> MemoryPage:
        params = _params(None, status=status, kind=kind, scope=scope, attribute=attribute, cursor=cursor, limit=limit)
        return MemoryPage.model_validate_json(self._request("GET", f"/v1/users/{user}/memories", params=params).content)

    def memory(self, user: str, record_id: str) -> Record:
        return Record.model_validate_json(self._request("GET", f"/v1/users/{user}/memories/{record_id}").content)

    def history(self, user: str, record_id: str) -> History:
        resp = self._request("GET", f"/v1/users/{user}/memories/{record_id}/history")
        return History.model_validate_json(resp.content)

    def correct(
        self, user: str, record_id: str, value: Any, statement: str | None = None, wait: float | None = None
    ) -> IngestResult:
        body = {"value": value, "statement": statement}
        return self._ingest(f"/v1/users/{user}/memories/{record_id}/correct", body, wait)

    def forget(self, user: str, record_id: str, wait: float | None = None) -> IngestResult:
        resp = self._request(
            "DELETE", f"/v1/users/{user}/memories/{record_id}", params=_params(wait), timeout=(wait or 0) + 10
        )
        return IngestResult.model_validate_json(resp.content)

    def confirm(self, user: str, record_id: str, wait: float | None = None) -> IngestResult:
        return self._ingest(f"/v1/users/{user}/memories/{record_id}/confirm", {}, wait)

    def reject(self, user: str, record_id: str, wait: float | None = None) -> IngestResult:
        return self._ingest(f"/v1/users/{user}/memories/{record_id}/reject", {}, wait)

    def export(self, user: str) -> Iterator[dict[str, Any]]:
        with self._http.stream("GET", f"/v1/users/{user}/export") as resp:
            if resp.status_code >= 400:
                resp.read()
                raise _error(resp)
            for line in resp.iter_lines():
                if line:
                    yield orjson.loads(line)

    def erase(self, user: str, wait: float | None = None) -> IngestResult:
        resp = self._request("DELETE", f"/v1/users/{user}", params=_params(wait), timeout=(wait or 0) + 10)
        return IngestResult.model_validate_json(resp.content)

    def ready(self) -> bool:
        return self._http.get("/readyz").status_code == 200


class AsyncClient:
    def __init__(
        self,
        base_url: str,
        key: str,
        timeout: float = 10.0,
        retries: int = 4,
        backoff: float = 0.1,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.retries, self.backoff = retries, backoff
        self._http = httpx.AsyncClient(
            base_url=base_url, timeout=timeout, transport=transport, headers={"Authorization": f"Bearer {key}"}
        )

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def _request(self, method: str, path: str, timeout: float | None = None, **kw: Any) -> httpx.Response:
        resp: httpx.Response | None = None
        for attempt in range(self.retries + 1):
            try:
                resp = await self._http.request(method, path, timeout=timeout or self._http.timeout, **kw)
            except httpx.TransportError:
                if attempt == self.retries:
                    raise
                await asyncio.sleep(_delay(None, attempt, self.backoff))
                continue
            if resp.status_code not in RETRY_STATUSES or attempt == self.retries:
                break
            await asyncio.sleep(_delay(resp, attempt, self.backoff))
        assert resp is not None
        if resp.status_code >= 400:
            raise _error(resp)
        return resp

    async def _ingest(self, path: str, body: dict[str, Any], wait: float | None) -> IngestResult:
        resp = await self._request("POST", path, json=body, params=_params(wait), timeout=(wait or 0) + 10)
        return IngestResult.model_validate_json(resp.content)

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
        body = _context_body(user, query, project, session, max_items, max_chars, at, explain)
        return ContextResult.model_validate_json((await self._request("POST", "/v1/context", json=body)).content)

    async def send_turns(self, turns: list[dict[str, Any]], wait: float | None = None) -> IngestResult:
        return await self._ingest("/v1/turns", {"turns": _with_turn_ids(turns)}, wait)

    async def send_ops(self, ops: list[dict[str, Any]], wait: float | None = None) -> IngestResult:
        return await self._ingest("/v1/ops", {"ops": _with_ids(ops)}, wait)

    async def memories(
        self,
        user: str,
        *,
        status: str | None = None,
        kind: str | None = None,
        scope: str | None = None,
        attribute: str | None = None,
        cursor: int = 0,
        limit: int = 50,
    ) -> MemoryPage:
        params = _params(None, status=status, kind=kind, scope=scope, attribute=attribute, cursor=cursor, limit=limit)
        resp = await self._request("GET", f"/v1/users/{user}/memories", params=params)
        return MemoryPage.model_validate_json(resp.content)

    async def memory(self, user: str, record_id: str) -> Record:
        resp = await self._request("GET", f"/v1/users/{user}/memories/{record_id}")
        return Record.model_validate_json(resp.content)

    async def history(self, user: str, record_id: str) -> History:
        resp = await self._request("GET", f"/v1/users/{user}/memories/{record_id}/history")
        return History.model_validate_json(resp.content)

    async def correct(
        self, user: str, record_id: str, value: Any, statement: str | None = None, wait: float | None = None
    ) -> IngestResult:
        body = {"value": value, "statement": statement}
        return await self._ingest(f"/v1/users/{user}/memories/{record_id}/correct", body, wait)

    async def forget(self, user: str, record_id: str, wait: float | None = None) -> IngestResult:
        resp = await self._request(
            "DELETE", f"/v1/users/{user}/memories/{record_id}", params=_params(wait), timeout=(wait or 0) + 10
        )
        return IngestResult.model_validate_json(resp.content)

    async def confirm(self, user: str, record_id: str, wait: float | None = None) -> IngestResult:
        return await self._ingest(f"/v1/users/{user}/memories/{record_id}/confirm", {}, wait)

    async def reject(self, user: str, record_id: str, wait: float | None = None) -> IngestResult:
        return await self._ingest(f"/v1/users/{user}/memories/{record_id}/reject", {}, wait)

    async def export(self, user: str) -> AsyncIterator[dict[str, Any]]:
        async with self._http.stream("GET", f"/v1/users/{user}/export") as resp:
            if resp.status_code >= 400:
                await resp.aread()
                raise _error(resp)
            async for line in resp.aiter_lines():
                if line:
                    yield orjson.loads(line)

    async def erase(self, user: str, wait: float | None = None) -> IngestResult:
        resp = await self._request("DELETE", f"/v1/users/{user}", params=_params(wait), timeout=(wait or 0) + 10)
        return IngestResult.model_validate_json(resp.content)

    async def ready(self) -> bool:
        return (await self._http.get("/readyz")).status_code == 200
