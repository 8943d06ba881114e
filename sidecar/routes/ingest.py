"""Ingest: turns and ops into the topics, with `?wait=` for read-your-writes."""

from __future__ import annotations

from fastapi import APIRouter

from .. import metrics
from ..dependencies import SIDECAR, WAIT, WRITER
from ..keys import Principal
from ..schemas import IngestResult, OpBatch, OpsBody, TurnBatch, TurnsBody
from ..service import Sidecar

router = APIRouter(tags=["ingest"])


@router.post("/v1/turns", status_code=202, response_model=IngestResult)
async def turns(
    body: TurnsBody, wait: float | None = WAIT, who: Principal = WRITER, service: Sidecar = SIDECAR
) -> IngestResult:
    batch = body.turns if isinstance(body, TurnBatch) else [body]
    result = await service.turns(who, batch, wait)
    metrics.PRODUCED.labels("turns").inc(len(batch))
    return result


@router.post("/v1/ops", status_code=202, response_model=IngestResult)
async def ops(
    body: OpsBody, wait: float | None = WAIT, who: Principal = WRITER, service: Sidecar = SIDECAR
) -> IngestResult:
    batch = body.ops if isinstance(body, OpBatch) else [body]
    result = await service.ops(who, batch, wait)
    metrics.PRODUCED.labels("ops").inc(len(batch))
    return result
