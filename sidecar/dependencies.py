"""What the routes depend on: the services a running app holds, and the caller's key checked for
a scope (FastAPI dependencies, so every route states what it needs in its signature)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from fastapi import Depends, Path, Query, Request

from slotstream.memory.models import ID_RE

from . import metrics
from .errors import Forbidden, Unauthorized
from .keys import KeyStore, Principal
from .ratelimit import SharedLimiter
from .responses import check_json_body
from .schemas import MAX_WAIT_SECONDS
from .service import Sidecar

USER_PATH = Path(..., min_length=1, max_length=128, pattern=ID_RE.pattern)
RECORD_PATH = Path(..., min_length=1, max_length=128, pattern=ID_RE.pattern)
WAIT = Query(None, gt=0, le=MAX_WAIT_SECONDS, description="seconds to wait for the outcomes")


@dataclass
class Gate:
    """Who may call: the API keys and each tenant's quotas."""

    keys: KeyStore
    limiter: SharedLimiter

    def authorize(self, header: str, scope: str) -> Principal:
        """The caller of an `Authorization: Bearer <key>` header, if its key may use `scope`. The
        tenant's request rate is not taken here: `admit` (or a context lookup's read) takes it."""
        scheme, _, key = header.partition(" ")
        if scheme.lower() != "bearer" or not key:
            raise Unauthorized("unauthorized", "send Authorization: Bearer <key>")
        principal = self.keys.authenticate(key.strip())
        if principal is None:
            raise Unauthorized("unauthorized", "unknown or revoked key")
        if not principal.may(scope):
            raise Forbidden("scope", f"this key may not {scope}")
        return principal

    async def admit(self, header: str, scope: str) -> Principal:
        """`authorize`, then one request of the tenant's rate (RateLimited when over it)."""
        principal = self.authorize(header, scope)
        await self.limiter.admit(principal.tenant)
        return principal


@dataclass
class Running:
    """What the app's lifespan started: the service and the pipeline's metrics collector."""

    sidecar: Sidecar
    pipeline: metrics.PipelineCollector


def running(request: Request) -> Running:
    state: Running = request.app.state.running
    return state


def sidecar(request: Request) -> Sidecar:
    return running(request).sidecar


def caller(scope: str) -> Callable[[Request], Awaitable[Principal]]:
    """A dependency: the caller, whose key must hold `scope`."""

    async def check(request: Request) -> Principal:
        gate: Gate = request.app.state.gate
        who = await gate.admit(request.headers.get("authorization", ""), scope)
        check_json_body(request.scope)
        return who

    return check


READER = Depends(caller("read"))
WRITER = Depends(caller("write"))
ADMIN = Depends(caller("admin"))
SIDECAR = Depends(sidecar)
RUNNING = Depends(running)
