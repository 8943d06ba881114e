"""Operations: liveness, readiness and the Prometheus metrics (no key needed)."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter
from fastapi.responses import Response

from .. import metrics
from ..dependencies import RUNNING, SIDECAR, Running
from ..responses import json_response
from ..service import Sidecar

router = APIRouter(tags=["operations"])


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


@router.get("/readyz")
async def readyz(service: Sidecar = SIDECAR) -> Response:
    checks = await service.ready()
    ok = all(checks.values())
    waiting = [name for name, up in checks.items() if not up]
    body = {"status": "ready" if ok else "waiting", "checks": checks, "waiting_for": waiting}
    return json_response(body, 200 if ok else 503)


@router.get("/metrics")
async def metrics_endpoint(state: Running = RUNNING) -> Response:
    body = await asyncio.to_thread(metrics.render, state.pipeline)
    return Response(body, media_type="text/plain; version=0.0.4; charset=utf-8")
