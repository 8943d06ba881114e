"""The sidecar's HTTP API (FastAPI, behind the context front door of sidecar/front.py; OpenAPI at
/docs). The tenant is never in a path or a body: it is the API key's. /healthz, /readyz and
/metrics need no key. The routes live in `routes/`, one router per area.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import replace

from fastapi import FastAPI, Request
from fastapi.responses import Response
from fastapi.routing import iter_route_contexts
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from starlette.routing import compile_path
from starlette.types import ASGIApp

from slotstream.config.history import history_archive
from slotstream.config.master_key import sealer
from slotstream.config.settings import Settings
from slotstream.state.client import connect, connect_async
from slotstream.state.context_cache import ContextCache
from slotstream.state.deployment import active_namespace
from slotstream.state.engine import Engine
from slotstream.state.progress import Progress
from slotstream.state.quotas import Quota
from slotstream.state.reader import AsyncReader
from slotstream.streams.aio_producer import AsyncProducer

from . import metrics, openapi
from .dependencies import Gate, Running
from .front import ContextFrontDoor
from .inspector import pages as inspector
from .inspector.sessions import SessionStore
from .keys import KeyStore, Principal
from .mcp import http as mcp_http
from .mcp.http import MCPDoor
from .ratelimit import INGEST, SharedLimiter
from .responses import HANDLED, BodyLimit, HostRequired, Refusal, Timing, refusal_of
from .routes import ingest, memories, operations, users
from .schemas import ContextQuery, ContextResult
from .service import Sidecar


def lifespan_for(
    settings: Settings, gate: Gate, mcp_server: MCPServer
) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    """The app's lifespan: Redis clients, the producer and the service, and the MCP server's
    session manager, up while it serves."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        assert settings.redis_url and settings.kafka_bootstrap, "the sidecar needs Redis and Kafka"
        client = connect_async(settings.redis_url, socket_timeout=5.0)
        sync_client = connect(settings.redis_url)
        producer = AsyncProducer(settings.kafka_bootstrap, settings.topic_prefix, sealer=sealer(settings, sync_client))
        producer.run()  # reads serve while Kafka is away; /readyz tells when ingest can work
        cache = ContextCache(settings.context_cache_records) if settings.context_cache_records else None

        archive = history_archive(settings, sync_client)

        def engine_for(namespace: str) -> Engine:
            engine = Engine(sync_client, namespace, cache, archive=archive)
            engine.read_stats.on_count = metrics.count_context_read
            return engine

        def progress() -> Progress:
            return Progress(sync_client, active_namespace(sync_client, settings.namespace))

        reader = AsyncReader(client, settings.namespace, cache, archive=archive)
        reader.stats.on_count = metrics.count_context_read
        gate.limiter.connect(client)

        async def ingest_quota(tenant: str, count: int) -> None:
            await gate.limiter.admit(tenant, INGEST, count)

        service = Sidecar(
            reader,
            producer,
            settings.max_event_skew,
            engine_for if settings.sidecar_read == "thread" else None,
            ingest_quota=ingest_quota,
        )
        app.state.running = Running(
            service, metrics.PipelineCollector(progress, settings.kafka_bootstrap, settings.topics)
        )
        app.state.inspector = inspector.Inspector(SessionStore(client, gate.keys), gate)
        try:
            async with mcp_server.session_manager.run():
                yield
        finally:
            await producer.stop()
            if archive is not None:
                archive.close()
            await client.aclose()
            sync_client.close()

    return lifespan


async def _handled(request: Request, err: Exception) -> Response:
    """One answer per exception class, as the front door gives (responses.py); on the inspector's
    paths the same answer as a page."""
    found = refusal_of(err) or Refusal(500, "internal_error", type(err).__name__)
    if found.status == 405:
        # the framework names only the first route on the path; a path several routes serve (a
        # memory: GET and DELETE) allows what all of them take
        found = replace(found, headers={**(found.headers or {}), "Allow": allowed_methods(request)})
    if request.url.path.startswith("/ui/"):
        return inspector.error_page(request, found.status, found.reason, found.detail[:500])
    return found.response()


def allowed_methods(request: Request) -> str:
    """The methods the routes on the request's path take, for a 405's Allow header."""
    methods: set[str] = set()
    for route in iter_route_contexts(request.app.routes):
        if route.path and route.methods and compile_path(route.path)[0].match(request.url.path):
            methods |= route.methods
    return ", ".join(sorted(methods))


def create_app(settings: Settings) -> ASGIApp:
    """The FastAPI app behind the context front door."""
    gate = Gate(
        KeyStore(settings.keys_file, settings.api_keys),
        SharedLimiter(
            settings.namespace,
            Quota(settings.rate_limit, settings.rate_burst),
            Quota(settings.ingest_rate, settings.ingest_burst),
            settings.sidecar_workers,
        ),
    )
    mcp_server = mcp_http.server_for(lambda: running_of(app).sidecar)
    mcp_app = mcp_server.streamable_http_app(
        streamable_http_path=mcp_http.PATH,
        stateless_http=True,  # any sidecar process answers any call
        json_response=True,
        max_request_body_size=settings.max_body_bytes,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    app = FastAPI(
        title="slotstream sidecar",
        version="1",
        lifespan=lifespan_for(settings, gate, mcp_server),
        description="Context lookups, ingest, memory controls and metrics for personal agents' memory.",
    )
    app.state.gate = gate
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)
    app.add_middleware(Timing)
    for error_class in HANDLED:
        app.add_exception_handler(error_class, _handled)
    for area in (ingest, memories, users, operations, inspector):
        app.include_router(area.router)
    app.openapi = lambda: openapi.document(app)  # type: ignore[method-assign]

    async def lookup(who: Principal, query: ContextQuery) -> ContextResult:
        # the tenant's request rate is taken in the lookup's own first round trip
        running: Running = app.state.running
        return await running.sidecar.context(who, query, gate.limiter.admission(who.tenant))

    return HostRequired(ContextFrontDoor(MCPDoor(app, mcp_app, gate), gate.authorize, lookup, settings.max_body_bytes))


def running_of(app: FastAPI) -> Running:
    running: Running = app.state.running
    return running


def app_from_env() -> ASGIApp:
    """The server processes' entry point (uvicorn --factory): settings from the environment."""
    return create_app(Settings.from_env())
