"""The sidecar's HTTP API (FastAPI; OpenAPI at /docs). The tenant is never in a path or a body: it
is the API key's. /healthz, /readyz and /metrics need no key.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import orjson
import redis.asyncio as aioredis
from fastapi import Depends, FastAPI, Path, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response, StreamingResponse
from pydantic import ValidationError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from slotstream.memory.errors import Reason, Rejected
from slotstream.memory.models import ID_RE
from slotstream.memory.validation import pydantic_reason
from slotstream.settings import Settings
from slotstream.state.client import connect
from slotstream.state.engine import Engine
from slotstream.state.progress import Progress
from slotstream.state.reader import AsyncReader
from slotstream.streams.aio_producer import AsyncProducer
from slotstream.streams.errors import BrokerUnavailable

from . import metrics
from .errors import Forbidden, RateLimited, SidecarError, TooLarge, Unauthorized, Unavailable
from .keys import KeyStore, Principal
from .ratelimit import TenantLimiter
from .schemas import (
    MAX_WAIT_SECONDS,
    ContextQuery,
    ContextResult,
    CorrectBody,
    History,
    IngestResult,
    MemoryPage,
    OpBatch,
    OpsBody,
    Problem,
    TurnBatch,
    TurnsBody,
)
from .service import Sidecar

USER_PATH = Path(..., min_length=1, max_length=128, pattern=ID_RE.pattern)
RECORD_PATH = Path(..., min_length=1, max_length=128, pattern=ID_RE.pattern)
# pydantic's error types for request bodies and parameters, as the engine's reason codes
_REQUEST_REASONS = {
    "missing": Reason.MISSING_FIELD.value,
    "string_too_long": Reason.TOO_LARGE.value,
    "too_long": Reason.TOO_LARGE.value,
    "too_short": Reason.VALUE_OUT_OF_RANGE.value,
    "less_than_equal": Reason.VALUE_OUT_OF_RANGE.value,
    "greater_than_equal": Reason.VALUE_OUT_OF_RANGE.value,
    "greater_than": Reason.VALUE_OUT_OF_RANGE.value,
    "less_than": Reason.VALUE_OUT_OF_RANGE.value,
    "string_pattern_mismatch": Reason.INVALID_ID.value,
    "json_invalid": Reason.INVALID_JSON.value,
}
WAIT = Query(None, gt=0, le=MAX_WAIT_SECONDS, description="seconds to wait for the outcomes")


def problem(
    status: int, reason: str, detail: str = "", field: str | None = None, headers: dict[str, str] | None = None
) -> Response:
    body = Problem(reason=reason, detail=detail[:500], field=field).model_dump()
    return json_response(body, status, headers)


def json_response(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(orjson.dumps(body), status_code=status, headers=headers, media_type="application/json")


class BodyLimit:
    """413 for a body over the limit, by its declared length or by what actually arrives."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and length.isdigit() and int(length) > self.max_bytes:
            await problem(413, "too_large", f"bodies are at most {self.max_bytes} bytes")(scope, receive, send)
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.max_bytes:
                raise TooLarge("too_large", f"bodies are at most {self.max_bytes} bytes")
            return message

        await self.app(scope, counted, send)


class Timing:
    """Request counts and latency per route (its template, not the path) and status."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = [500]

        async def sent(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sent)
        finally:
            route = getattr(scope.get("route"), "path", "unmatched")
            metrics.REQUESTS.labels(route, scope["method"], str(status[0])).inc()
            metrics.LATENCY.labels(route, scope["method"]).observe(time.perf_counter() - start)


def create_app(settings: Settings) -> FastAPI:
    keys = KeyStore(settings.keys_file, settings.api_keys)
    limiter = TenantLimiter(
        settings.rate_limit / settings.sidecar_workers, max(1.0, settings.rate_burst / settings.sidecar_workers)
    )
    holder: dict[str, Any] = {}

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        assert settings.redis_url and settings.kafka_bootstrap, "the sidecar needs Redis and Kafka"
        client = aioredis.Redis.from_url(settings.redis_url, socket_timeout=5.0, socket_connect_timeout=2.0)
        producer = AsyncProducer(settings.kafka_bootstrap, settings.topic_prefix)
        producer.run()  # reads serve while Kafka is away; /readyz tells when ingest can work
        sync_client = connect(settings.redis_url)
        engine = Engine(sync_client, settings.namespace) if settings.sidecar_read == "thread" else None
        holder["sidecar"] = Sidecar(AsyncReader(client, settings.namespace), producer, settings.max_event_skew, engine)
        holder["pipeline"] = metrics.PipelineCollector(
            Progress(sync_client, settings.namespace), settings.kafka_bootstrap, settings.topics
        )
        try:
            yield
        finally:
            await producer.stop()
            await client.aclose()
            sync_client.close()

    app = FastAPI(
        title="slotstream sidecar",
        version="1",
        lifespan=lifespan,
        description="Context lookups, ingest, memory controls and metrics for personal agents' memory.",
    )
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)
    app.add_middleware(Timing)

    def sidecar() -> Sidecar:
        service: Sidecar = holder["sidecar"]
        return service

    def caller(scope: str) -> Callable[[Request], Awaitable[Principal]]:
        async def check(request: Request) -> Principal:
            header = request.headers.get("authorization", "")
            scheme, _, key = header.partition(" ")
            if scheme.lower() != "bearer" or not key:
                raise Unauthorized("unauthorized", "send Authorization: Bearer <key>")
            principal = keys.authenticate(key.strip())
            if principal is None:
                raise Unauthorized("unauthorized", "unknown or revoked key")
            if not principal.may(scope):
                raise Forbidden("scope", f"this key may not {scope}")
            wait = limiter.retry_after(principal.tenant)
            if wait is not None:
                raise RateLimited(wait)
            return principal

        return check

    reader_key, writer_key, admin_key = Depends(caller("read")), Depends(caller("write")), Depends(caller("admin"))

    # --- errors ---------------------------------------------------------------------------------

    @app.exception_handler(SidecarError)
    async def sidecar_error(request: Request, err: SidecarError) -> Response:
        headers = {"Retry-After": str(max(1, math.ceil(err.retry_after)))} if err.retry_after > 0 else None
        return problem(err.status, err.reason, err.detail, headers=headers)

    @app.exception_handler(BrokerUnavailable)
    async def kafka_down(request: Request, err: BrokerUnavailable) -> Response:
        return await sidecar_error(request, Unavailable("kafka_unavailable", str(err)))

    async def redis_down(request: Request, err: Exception) -> Response:
        return await sidecar_error(request, Unavailable("redis_unavailable", type(err).__name__))

    app.add_exception_handler(RedisConnectionError, redis_down)
    app.add_exception_handler(RedisTimeoutError, redis_down)

    @app.exception_handler(Rejected)
    async def rejected(request: Request, err: Rejected) -> Response:
        return problem(422, err.reason.value, err.detail)

    @app.exception_handler(ValidationError)
    async def invalid(request: Request, err: ValidationError) -> Response:
        rej = pydantic_reason(err)
        return problem(422, rej.reason.value, rej.detail)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, err: RequestValidationError) -> Response:
        first = err.errors()[0] if err.errors() else {}
        # the location without its part of the request and the union tag pydantic puts in it
        loc = [str(x) for x in first.get("loc", ()) if x not in ("body", "query", "path", "one", "batch")]
        kind = str(first.get("type", ""))
        reason = _REQUEST_REASONS.get(kind) or (kind if kind in Reason._value2member_map_ else "invalid_field")
        return problem(422, reason, str(first.get("msg", ""))[:300], ".".join(loc) or None)

    # --- context and ingest ---------------------------------------------------------------------

    @app.post("/v1/context", response_model=ContextResult, tags=["context"])
    async def context(body: ContextQuery, who: Principal = reader_key) -> Response:
        result = await sidecar().context(who, body)
        return Response(result.model_dump_json(exclude_none=True), media_type="application/json")

    @app.post("/v1/turns", status_code=202, response_model=IngestResult, tags=["ingest"])
    async def turns(body: TurnsBody, wait: float | None = WAIT, who: Principal = writer_key) -> IngestResult:
        batch = body.turns if isinstance(body, TurnBatch) else [body]
        result = await sidecar().turns(who, batch, wait)
        metrics.PRODUCED.labels("turns").inc(len(batch))
        return result

    @app.post("/v1/ops", status_code=202, response_model=IngestResult, tags=["ingest"])
    async def ops(body: OpsBody, wait: float | None = WAIT, who: Principal = writer_key) -> IngestResult:
        batch = body.ops if isinstance(body, OpBatch) else [body]
        result = await sidecar().ops(who, batch, wait)
        metrics.PRODUCED.labels("ops").inc(len(batch))
        return result

    # --- memory controls --------------------------------------------------------------------------

    @app.get("/v1/users/{user}/memories", response_model=MemoryPage, tags=["memories"])
    async def memories(
        user: str = USER_PATH,
        status: str | None = None,
        kind: str | None = None,
        scope: str | None = None,
        attribute: str | None = None,
        cursor: int = Query(0, ge=0),
        limit: int = Query(50, ge=1, le=200),
        who: Principal = reader_key,
    ) -> MemoryPage:
        filters = {"status": status, "kind": kind, "scope": scope, "attribute": attribute}
        items, next_cursor = await sidecar().memories(who, user, cursor, limit, filters)
        return MemoryPage(items=[r.model_dump(mode="json") for r in items], next_cursor=next_cursor)

    @app.get("/v1/users/{user}/memories/{record_id}", tags=["memories"])
    async def memory(user: str = USER_PATH, record_id: str = RECORD_PATH, who: Principal = reader_key) -> Response:
        rec = await sidecar().memory(who, user, record_id)
        return Response(rec.model_dump_json(), media_type="application/json")

    @app.get("/v1/users/{user}/memories/{record_id}/history", response_model=History, tags=["memories"])
    async def history(user: str = USER_PATH, record_id: str = RECORD_PATH, who: Principal = reader_key) -> History:
        rec, lineage = await sidecar().history(who, user, record_id)
        return History(record=rec.model_dump(mode="json"), lineage=[r.model_dump(mode="json") for r in lineage])

    async def control(who: Principal, user: str, command: dict[str, Any], wait: float | None) -> Response:
        result = await sidecar().command(who, user, command, wait)
        metrics.PRODUCED.labels("ops").inc()
        return json_response(result.model_dump(mode="json"), 202)

    @app.post(
        "/v1/users/{user}/memories/{record_id}/correct", status_code=202, response_model=IngestResult, tags=["memories"]
    )
    async def correct(
        body: CorrectBody,
        user: str = USER_PATH,
        record_id: str = RECORD_PATH,
        wait: float | None = WAIT,
        who: Principal = writer_key,
    ) -> Response:
        command = {"op": "correct", "record_id": record_id, "value": body.value, "statement": body.statement}
        return await control(who, user, command, wait)

    @app.delete(
        "/v1/users/{user}/memories/{record_id}", status_code=202, response_model=IngestResult, tags=["memories"]
    )
    async def forget(
        user: str = USER_PATH, record_id: str = RECORD_PATH, wait: float | None = WAIT, who: Principal = writer_key
    ) -> Response:
        return await control(who, user, {"op": "forget", "record_id": record_id}, wait)

    @app.post(
        "/v1/users/{user}/memories/{record_id}/confirm", status_code=202, response_model=IngestResult, tags=["memories"]
    )
    async def confirm(
        user: str = USER_PATH, record_id: str = RECORD_PATH, wait: float | None = WAIT, who: Principal = writer_key
    ) -> Response:
        return await control(who, user, {"op": "confirm", "record_id": record_id}, wait)

    @app.post(
        "/v1/users/{user}/memories/{record_id}/reject", status_code=202, response_model=IngestResult, tags=["memories"]
    )
    async def reject(
        user: str = USER_PATH, record_id: str = RECORD_PATH, wait: float | None = WAIT, who: Principal = writer_key
    ) -> Response:
        return await control(who, user, {"op": "reject", "record_id": record_id}, wait)

    @app.get("/v1/users/{user}/export", tags=["users"], response_class=StreamingResponse)
    async def export(user: str = USER_PATH, who: Principal = admin_key) -> StreamingResponse:
        async def lines() -> AsyncIterator[bytes]:
            async for row in sidecar().export(who, user):
                yield orjson.dumps(row) + b"\n"

        return StreamingResponse(lines(), media_type="application/x-ndjson")

    @app.delete("/v1/users/{user}", status_code=202, response_model=IngestResult, tags=["users"])
    async def erase(user: str = USER_PATH, wait: float | None = WAIT, who: Principal = admin_key) -> Response:
        return await control(who, user, {"op": "erase_user"}, wait)

    # --- operations -------------------------------------------------------------------------------

    @app.get("/healthz", tags=["operations"])
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/readyz", tags=["operations"])
    async def readyz() -> Response:
        checks = await sidecar().ready()
        ok = all(checks.values())
        waiting = [name for name, up in checks.items() if not up]
        body = {"status": "ready" if ok else "waiting", "checks": checks, "waiting_for": waiting}
        return json_response(body, 200 if ok else 503)

    @app.get("/metrics", tags=["operations"])
    async def metrics_endpoint() -> Response:
        body = await asyncio.to_thread(metrics.render, holder["pipeline"])
        return Response(body, media_type="text/plain; version=0.0.4; charset=utf-8")

    return app


def app_from_env() -> FastAPI:
    """The server processes' entry point (uvicorn --factory): settings from the environment."""
    return create_app(Settings.from_env())
