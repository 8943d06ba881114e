"""A whole user: export every record and its history, and erase the user."""

from __future__ import annotations

from collections.abc import AsyncIterator

import orjson
from fastapi import APIRouter
from fastapi.responses import Response, StreamingResponse

from ..dependencies import ADMIN, SIDECAR, USER_PATH, WAIT
from ..keys import Principal
from ..schemas import IngestResult
from ..service import Sidecar
from .memories import control

router = APIRouter(tags=["users"])


@router.get("/v1/users/{user}/export", response_class=StreamingResponse)
async def export(user: str = USER_PATH, who: Principal = ADMIN, service: Sidecar = SIDECAR) -> StreamingResponse:
    async def lines() -> AsyncIterator[bytes]:
        async for row in service.export(who, user):
            yield orjson.dumps(row) + b"\n"

    return StreamingResponse(lines(), media_type="application/x-ndjson")


@router.delete("/v1/users/{user}", status_code=202, response_model=IngestResult)
async def erase(
    user: str = USER_PATH, wait: float | None = WAIT, who: Principal = ADMIN, service: Sidecar = SIDECAR
) -> Response:
    return await control(service, who, user, {"op": "erase_user"}, wait)
