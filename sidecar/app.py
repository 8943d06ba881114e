"""The sidecar's HTTP API (FastAPI, behind the context front door of sidecar/front.py; OpenAPI at
/docs). The tenant is never in a path or a body: it is the API key's. /healthz, /readyz and
/metrics need no key.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import orjson
from fastapi import Depends, FastAPI, Path, Query, Request
from fastapi.openapi.utils import get_openapi
from fastapi.responses import Response, StreamingResponse
from pydantic import BaseModel
from starlette.types import ASGIApp

from slotstream.master_key import sealer
from slotstream.memory.models import ID_RE
from slotstream.settings import Settings
from slotstream.state.client import connect, connect_async
from slotstream.state.context_cache import ContextCache
from slotstream.state.deploy import active_namespace
from slotstream.state.engine import Engine
from slotstream.state.progress import Progress
from slotstream.state.reader import AsyncReader
from slotstream.streams.aio_producer import AsyncProducer

from . import metrics
from .errors import Forbidden, RateLimited, Unauthorized
from .front import ContextFrontDoor
from .keys import KeyStore, Principal
from .ratelimit import TenantLimiter
from .responses import HANDLED, BodyLimit, Timing, error_response, json_response, problem
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
WAIT = Query(None, gt=0, le=MAX_WAIT_SECONDS, description="seconds to wait for the outcomes")


def _context_operation() -> dict[str, Any]:
    """/v1/context in the OpenAPI document (the front door serves it, so FastAPI cannot describe it)."""

    def json_of(model: type[BaseModel]) -> dict[str, Any]:
        return {"application/json": {"schema": {"$ref": f"#/components/schemas/{model.__name__}"}}}

    return {
        "tags": ["context"],
        "summary": "Context",
        "description": "The context for one agent request: rendered text, its sections, the ids used, "
        "and with `explain` why each other candidate was left out. An unknown user gets an empty context.",
        "operationId": "context_v1_context_post",
        "requestBody": {"required": True, "content": json_of(ContextQuery)},
        "responses": {
            "200": {"description": "the context", "content": json_of(ContextResult)},
            "401": {"description": "no valid key", "content": json_of(Problem)},
            "403": {"description": "the key may not read", "content": json_of(Problem)},
            "422": {"description": "a bad request, with its reason code and field", "content": json_of(Problem)},
            "429": {"description": "over the tenant's rate; see Retry-After", "content": json_of(Problem)},
            "503": {"description": "Redis not reachable; see Retry-After", "content": json_of(Problem)},
        },
    }


def create_app(settings: Settings) -> ASGIApp:
    """The FastAPI app behind the context front door."""
    keys = KeyStore(settings.keys_file, settings.api_keys)
    limiter = TenantLimiter(
        settings.rate_limit / settings.sidecar_workers, max(1.0, settings.rate_burst / settings.sidecar_workers)
    )
    holder: dict[str, Any] = {}

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        assert settings.redis_url and settings.kafka_bootstrap, "the sidecar needs Redis and Kafka"
        client = connect_async(settings.redis_url, socket_timeout=5.0)
        sync_client = connect(settings.redis_url)
        producer = AsyncProducer(settings.kafka_bootstrap, settings.topic_prefix, sealer=sealer(settings, sync_client))
        producer.run()  # reads serve while Kafka is away; /readyz tells when ingest can work
        cache = ContextCache(settings.context_cache_records) if settings.context_cache_records else None

        def engine_for(namespace: str) -> Engine:
            engine = Engine(sync_client, namespace, cache)
            engine.read_stats.on_count = metrics.count_context_read
            return engine

        def progress() -> Progress:
            return Progress(sync_client, active_namespace(sync_client, settings.namespace))

        reader = AsyncReader(client, settings.namespace, cache)
        reader.stats.on_count = metrics.count_context_read
        holder["sidecar"] = Sidecar(
            reader, producer, settings.max_event_skew, engine_for if settings.sidecar_read == "thread" else None
        )
        holder["pipeline"] = metrics.PipelineCollector(progress, settings.kafka_bootstrap, settings.topics)
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

    def authorize(header: str, scope: str) -> Principal:
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

    def caller(scope: str) -> Callable[[Request], Awaitable[Principal]]:
        async def check(request: Request) -> Principal:
            return authorize(request.headers.get("authorization", ""), scope)

        return check

    reader_key, writer_key, admin_key = Depends(caller("read")), Depends(caller("write")), Depends(caller("admin"))

    # --- errors: one answer per exception class, as the front door gives (responses.py) -----------

    async def handled(request: Request, err: Exception) -> Response:
        return error_response(err) or problem(500, "internal_error", type(err).__name__)

    for error_class in HANDLED:
        app.add_exception_handler(error_class, handled)

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

    def decide(action: str) -> Callable[..., Awaitable[Response]]:
        async def route(
            user: str = USER_PATH, record_id: str = RECORD_PATH, wait: float | None = WAIT, who: Principal = writer_key
        ) -> Response:
            return await control(who, user, {"op": action, "record_id": record_id}, wait)

        return route

    # a working assumption (a candidate) accepted or refused; a record the user invalidates
    for action in ("confirm", "reject", "retract"):
        app.add_api_route(
            f"/v1/users/{{user}}/memories/{{record_id}}/{action}",
            decide(action),
            methods=["POST"],
            status_code=202,
            response_model=IngestResult,
            tags=["memories"],
            name=action,
        )

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

    def openapi() -> dict[str, Any]:
        """FastAPI's schema, plus the bodies routes parse themselves and the bearer key every
        /v1 route needs."""
        if app.openapi_schema is None:
            schema = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
            components = schema.setdefault("components", {})
            schemas = components.setdefault("schemas", {})
            for model in (ContextQuery, ContextResult, Problem):
                defs = model.model_json_schema(ref_template="#/components/schemas/{model}")
                schemas.update(defs.pop("$defs", {}))
                schemas[model.__name__] = defs
            schema["paths"]["/v1/context"] = {"post": _context_operation()}
            components["securitySchemes"] = {"apiKey": {"type": "http", "scheme": "bearer"}}
            for path, operations in schema["paths"].items():
                if path.startswith("/v1/"):
                    for operation in operations.values():
                        operation["security"] = [{"apiKey": []}]
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]

    async def lookup(who: Principal, query: ContextQuery) -> ContextResult:
        return await sidecar().context(who, query)

    return ContextFrontDoor(app, authorize, lookup, settings.max_body_bytes)


def app_from_env() -> ASGIApp:
    """The server processes' entry point (uvicorn --factory): settings from the environment."""
    return create_app(Settings.from_env())
