"""A user's memories: list, one record, its history, and the controls (correct, forget, confirm,
reject, retract), each a command through the ops topic."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import APIRouter, Query
from fastapi.responses import Response

from .. import metrics
from ..dependencies import READER, RECORD_PATH, SIDECAR, USER_PATH, WAIT, WRITER
from ..keys import Principal
from ..responses import json_response
from ..schemas import CorrectBody, History, IngestResult, MemoryPage
from ..service import Sidecar

router = APIRouter(tags=["memories"])
MEMORY = "/v1/users/{user}/memories/{record_id}"


@router.get("/v1/users/{user}/memories", response_model=MemoryPage)
async def memories(
    user: str = USER_PATH,
    status: str | None = None,
    kind: str | None = None,
    scope: str | None = None,
    attribute: str | None = None,
    cursor: int = Query(0, ge=0, le=2**64 - 1),
    limit: int = Query(50, ge=1, le=200),
    who: Principal = READER,
    service: Sidecar = SIDECAR,
) -> MemoryPage:
    filters = {"status": status, "kind": kind, "scope": scope, "attribute": attribute}
    items, next_cursor = await service.memories(who, user, cursor, limit, filters)
    return MemoryPage(items=[r.model_dump(mode="json") for r in items], next_cursor=next_cursor)


@router.get(MEMORY)
async def memory(
    user: str = USER_PATH, record_id: str = RECORD_PATH, who: Principal = READER, service: Sidecar = SIDECAR
) -> Response:
    rec = await service.memory(who, user, record_id)
    return Response(rec.model_dump_json(), media_type="application/json")


@router.get(MEMORY + "/history", response_model=History)
async def history(
    user: str = USER_PATH, record_id: str = RECORD_PATH, who: Principal = READER, service: Sidecar = SIDECAR
) -> History:
    rec, lineage = await service.history(who, user, record_id)
    return History(record=rec.model_dump(mode="json"), lineage=[r.model_dump(mode="json") for r in lineage])


async def control(service: Sidecar, who: Principal, user: str, command: dict[str, Any], wait: float | None) -> Response:
    """A memory control: its command produced to the ops topic, answered 202 with the outcome."""
    result = await service.command(who, user, command, wait)
    metrics.PRODUCED.labels("ops").inc()
    return json_response(result.model_dump(mode="json"), 202)


@router.post(MEMORY + "/correct", status_code=202, response_model=IngestResult)
async def correct(
    body: CorrectBody,
    user: str = USER_PATH,
    record_id: str = RECORD_PATH,
    wait: float | None = WAIT,
    who: Principal = WRITER,
    service: Sidecar = SIDECAR,
) -> Response:
    command = {"op": "correct", "record_id": record_id, "value": body.value, "statement": body.statement}
    return await control(service, who, user, command, wait)


@router.delete(MEMORY, status_code=202, response_model=IngestResult)
async def forget(
    user: str = USER_PATH,
    record_id: str = RECORD_PATH,
    wait: float | None = WAIT,
    who: Principal = WRITER,
    service: Sidecar = SIDECAR,
) -> Response:
    return await control(service, who, user, {"op": "forget", "record_id": record_id}, wait)


def _decision(action: str) -> Callable[..., Awaitable[Response]]:
    """The route of a memory control that names only its record (confirm, reject, retract)."""

    async def route(
        user: str = USER_PATH,
        record_id: str = RECORD_PATH,
        wait: float | None = WAIT,
        who: Principal = WRITER,
        service: Sidecar = SIDECAR,
    ) -> Response:
        return await control(service, who, user, {"op": action, "record_id": record_id}, wait)

    return route


# a working assumption (a candidate) accepted or refused; a record the user invalidates
for _action in ("confirm", "reject", "retract"):
    router.add_api_route(
        MEMORY + f"/{_action}",
        _decision(_action),
        methods=["POST"],
        status_code=202,
        response_model=IngestResult,
        name=_action,
    )
