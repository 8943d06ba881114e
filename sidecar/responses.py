"""What every route answers with, whichever layer serves it: error bodies (a reason code, the engine's
where one applies, the field, a detail), the mapping of exceptions to them, the body size limit,
and the request metrics. The framework's exception handlers and the context front door
(sidecar/front.py) both use these, so a request gets the same answer from either.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError
from redis.exceptions import ClusterError as RedisClusterError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.exceptions import TryAgainError as RedisTryAgainError
from starlette.exceptions import HTTPException
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from slotstream.memory.errors import ArchiveError, ArchiveUnavailable, Reason, Rejected
from slotstream.state.codec import MalformedRecord
from slotstream.streams.errors import BrokerUnavailable

from . import metrics
from .errors import SidecarError, TooLarge, Unavailable, UnsupportedMediaType
from .schemas import Problem

log = logging.getLogger(__name__)

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
# exceptions error_response() answers (the app registers a handler for each)
HANDLED: tuple[type[Exception], ...] = (
    SidecarError,
    MalformedRecord,
    ArchiveError,
    BrokerUnavailable,
    RedisConnectionError,
    RedisTimeoutError,
    RedisClusterError,
    RedisTryAgainError,
    Rejected,
    RequestValidationError,
    ValidationError,
    HTTPException,
)
# the framework's own answers (no route, a method the route does not take, a body it could not
# parse) in the one problem shape, with a reason code
_STATUS_REASONS = {
    400: Reason.INVALID_JSON.value,
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: Reason.TOO_LARGE.value,
    415: "unsupported_media_type",
    429: "rate_limited",
    503: "unavailable",
}


def json_response(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(orjson.dumps(body), status_code=status, headers=headers, media_type="application/json")


def problem(
    status: int, reason: str, detail: str = "", field: str | None = None, headers: dict[str, str] | None = None
) -> Response:
    body = Problem(reason=reason, detail=detail[:500], field=field).model_dump()
    return json_response(body, status, headers)


@dataclass(frozen=True)
class Refusal:
    """What an error answers: the status, the reason code, the detail and field, any headers. The
    API sends it as a problem body; the inspector as a page; an MCP tool as its error text."""

    status: int
    reason: str
    detail: str = ""
    field: str | None = None
    headers: dict[str, str] | None = None

    def response(self) -> Response:
        return problem(self.status, self.reason, self.detail, self.field, self.headers)


def validation_refusal(errors: Sequence[Any]) -> Refusal:
    """422 for the first error: the engine's reason code where one applies, and the field."""
    first = errors[0] if errors else {}
    # the location without its part of the request and the union tag pydantic puts in it
    loc = [str(x) for x in first.get("loc", ()) if x not in ("body", "query", "path", "one", "batch")]
    kind = str(first.get("type", ""))
    reason = _REQUEST_REASONS.get(kind) or (kind if kind in Reason._value2member_map_ else "invalid_field")
    return Refusal(422, reason, str(first.get("msg", ""))[:300], ".".join(loc) or None)


def refusal_of(err: Exception) -> Refusal | None:
    """What an exception a request raised answers, or None for one that is a bug (a 500)."""
    if isinstance(err, (BrokerUnavailable, ArchiveUnavailable)):
        err = Unavailable("kafka_unavailable", str(err))
    elif isinstance(err, (RedisConnectionError, RedisTimeoutError, RedisClusterError, RedisTryAgainError)):
        # a cluster with a master down, or a hash slot still moving after the reader's retries
        err = Unavailable("redis_unavailable", type(err).__name__)
    if isinstance(err, SidecarError):
        headers = {"Retry-After": str(max(1, math.ceil(err.retry_after)))} if err.retry_after > 0 else None
        return Refusal(err.status, err.reason, err.detail, headers=headers)
    if isinstance(err, Rejected):
        return Refusal(422, err.reason.value, err.detail)
    if isinstance(err, RequestValidationError):
        return validation_refusal(err.errors())
    if isinstance(err, ValidationError):
        return validation_refusal(err.errors(include_input=False, include_url=False))
    if isinstance(err, HTTPException):
        reason = _STATUS_REASONS.get(err.status_code, "http_error")
        return Refusal(err.status_code, reason, str(err.detail), headers=dict(err.headers) if err.headers else None)
    if isinstance(err, MalformedRecord):
        # stored state this version cannot read (written by a newer one, or damaged): the
        # operator's to look at, not the caller's to fix; the other records still answer
        log.error("stored state does not decode: %s", err)
        return Refusal(500, "stored_state_unreadable", str(err)[:300])
    if isinstance(err, ArchiveError):
        # a segment gone or unreadable, or a process not given the archive: the operator's too
        log.error("the archived history does not read: %s", err)
        return Refusal(500, "archived_history_unreadable", str(err)[:300])
    return None


def error_response(err: Exception) -> Response | None:
    """The answer to an exception a request raised, or None for one that is a bug (a 500)."""
    found = refusal_of(err)
    return found.response() if found is not None else None


def too_large(max_bytes: int) -> TooLarge:
    return TooLarge("too_large", f"bodies are at most {max_bytes} bytes")


def declared_too_large(scope: Scope, max_bytes: int) -> bool:
    for name, value in scope["headers"]:
        if name == b"content-length":
            return value.isdigit() and int(value) > max_bytes
    return False


def check_json_body(scope: Scope) -> None:
    """A request with a body must say it is JSON (`application/json`, with or without parameters,
    or a `+json` type): UnsupportedMediaType otherwise."""
    headers = dict(scope["headers"])
    length = headers.get(b"content-length", b"0")
    if length in (b"", b"0") and b"transfer-encoding" not in headers:
        return
    kind = headers.get(b"content-type", b"").split(b";")[0].strip().lower()
    if kind != b"application/json" and not (kind.startswith(b"application/") and kind.endswith(b"+json")):
        raise UnsupportedMediaType("unsupported_media_type", "send the body as application/json")


class HostRequired:
    """HTTP/1.1 requires a Host header: a request without one is refused (400) before anything else."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        missing = scope["type"] == "http" and scope.get("http_version") == "1.1"
        if missing and not any(name == b"host" and value for name, value in scope["headers"]):
            await problem(400, "missing_host", "HTTP/1.1 requests carry a Host header")(scope, receive, send)
            return
        await self.app(scope, receive, send)


async def read_body(scope: Scope, receive: Receive, max_bytes: int) -> bytes:
    """The whole request body, or TooLarge as soon as it passes `max_bytes`."""
    if declared_too_large(scope, max_bytes):
        raise too_large(max_bytes)
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ConnectionAbortedError("the client went away before sending its body")
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > max_bytes:
            raise too_large(max_bytes)
        chunks.append(chunk)
        if not message.get("more_body"):
            return b"".join(chunks)


class BodyLimit:
    """413 for a body over the limit, by its declared length or by what actually arrives."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if declared_too_large(scope, self.max_bytes):
            await problem(413, "too_large", f"bodies are at most {self.max_bytes} bytes")(scope, receive, send)
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.max_bytes:
                raise too_large(self.max_bytes)
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
            metrics.observe_request(route, scope["method"], status[0], time.perf_counter() - start)
