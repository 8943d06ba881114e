"""POST /v1/context, the call an agent makes on every request, served ahead of the framework.

Measured on this project's 2-core machine, a context lookup through FastAPI's middleware,
routing, dependency and body layers spent about a third of its server time in them; this front
door answers the one hot route directly and hands every other request (and the lifespan) to the
FastAPI app. It uses the same key check, body model, lookup, error answers (sidecar/responses.py)
and request metrics, so a client cannot tell which layer answered; the route is documented in the
app's OpenAPI schema like the others.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable

from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from . import metrics
from .keys import Principal
from .responses import check_json_body, declared_too_large, error_response, problem, read_body, too_large
from .schemas import ContextQuery, ContextResult

log = logging.getLogger(__name__)
CONTEXT_PATH = "/v1/context"
CLIENT_GONE = 499  # in the metrics only: the client closed the connection before sending its body


class ContextFrontDoor:
    def __init__(
        self,
        app: ASGIApp,
        authorize: Callable[[str, str], Principal],
        lookup: Callable[[Principal, ContextQuery], Awaitable[ContextResult]],
        max_bytes: int,
    ) -> None:
        self.app, self.authorize, self.lookup, self.max_bytes = app, authorize, lookup, max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] != CONTEXT_PATH:
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        try:
            response = await self._answer(scope, receive)
        except ConnectionAbortedError:
            metrics.observe_request(CONTEXT_PATH, scope["method"], CLIENT_GONE, time.perf_counter() - start)
            return
        await response(scope, receive, send)
        metrics.observe_request(CONTEXT_PATH, scope["method"], response.status_code, time.perf_counter() - start)

    async def _answer(self, scope: Scope, receive: Receive) -> Response:
        if scope["method"] != "POST":
            return problem(405, "method_not_allowed", "POST a context query", headers={"Allow": "POST"})
        try:
            who = self.authorize(_header(scope, b"authorization"), "read")
            if declared_too_large(scope, self.max_bytes):
                raise too_large(self.max_bytes)
            check_json_body(scope)
            query = ContextQuery.model_validate_json(await read_body(scope, receive, self.max_bytes))
            result = await self.lookup(who, query)
        except ConnectionAbortedError:
            raise
        except Exception as err:
            answer = error_response(err)
            if answer is None:
                log.exception("context lookup failed")
                return problem(500, "internal_error", type(err).__name__)
            return answer
        return Response(result.model_dump_json(exclude_none=True), media_type="application/json")


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope["headers"]:
        if key == name:
            return str(value.decode("latin-1"))
    return ""
