"""The inspector's routes, under /ui: sign-in, the tenant's users, a user's memory, a slot's
lineage, trying a request, the memory controls, and the pipeline's health.

Every page acts for the tenant of the key the session was started with, and every control goes
through the same service (and so the same validation and the ops topic) as the HTTP API. Forms
post back with the session's CSRF token; a request from another origin is refused.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qsl, urlencode

import orjson
from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response, StreamingResponse
from pydantic import ValidationError

from slotstream.memory.key_parts import escape
from slotstream.memory.models import ID_RE, Record

from ..controls import FORGET_SCOPES, forget_command
from ..dependencies import RECORD_PATH, USER_PATH, Gate, Running
from ..errors import Forbidden, NotFound, SidecarError, UnsupportedMediaType
from ..keys import Principal
from ..schemas import ContextQuery, IngestResult
from ..service import Sidecar, may_see
from . import views
from .render import STATIC, page, secured
from .sessions import COOKIE, SIGN_IN_COOKIE, SIGN_IN_SECONDS, Session, SessionStore, new_token, same_token

router = APIRouter(prefix="/ui", include_in_schema=False)
USERS_LISTED = 1000  # at most this many users match one search; more: narrow it
USERS_PER_PAGE = 50
RECORDS_READ = 5000  # a user's page reads at most this many records (every version counts)
CONTROL_WAIT = 5.0  # seconds a control waits for its outcome before the page says "pending"
# what a control reports back on the page it returns to (anything else is not shown)
OUTCOMES = {"applied", "noop", "dropped", "rejected", "pending", "duplicate", "extracted"}
DONE = {"correct", "forget", "erase"}


class SignInNeeded(SidecarError):
    status = 401

    def __init__(self) -> None:
        super().__init__("sign_in", "sign in with an API key")


class Inspector:
    """What the pages need from the running app."""

    def __init__(self, sessions: SessionStore, gate: Gate) -> None:
        self.sessions, self.gate = sessions, gate


def _inspector(request: Request) -> Inspector:
    found: Inspector = request.app.state.inspector
    return found


def _service(request: Request) -> Sidecar:
    running: Running = request.app.state.running
    return running.sidecar


async def _session(request: Request, scope: str) -> Session:
    """The caller's session, whose key must hold `scope` (and be within its tenant's rate)."""
    inspector = _inspector(request)
    session = await inspector.sessions.find(request.cookies.get(COOKIE))
    if session is None:
        raise SignInNeeded()
    if not session.principal.may(scope):
        raise Forbidden("scope", f"this key may not {scope}")
    await inspector.gate.limiter.admit(session.principal.tenant)
    return session


async def _form(request: Request, session: Session | None, expected: str | None = None) -> dict[str, str]:
    """A posted form, checked: its type, its origin, and its CSRF token (the session's, or
    `expected` before there is a session)."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/x-www-form-urlencoded":
        raise UnsupportedMediaType("unsupported_media_type", "forms are sent as application/x-www-form-urlencoded")
    origin = request.headers.get("origin")
    if origin is not None and origin != _own_origin(request):
        raise Forbidden("cross_origin", "a form from another site")
    try:
        fields = dict(parse_qsl((await request.body()).decode("utf-8"), keep_blank_values=True, max_num_fields=20))
    except (UnicodeDecodeError, ValueError) as err:
        raise SidecarError("invalid_form", "an unreadable form") from err
    token = session.csrf if session is not None else expected
    if not same_token(fields.get("csrf"), token):
        raise Forbidden("csrf", "the form's token does not match the signed-in session: reload the page")
    return fields


def _own_origin(request: Request) -> str:
    host = request.headers.get("host", "")
    return f"{request.url.scheme}://{host}"


def _common(session: Session | None, **values: Any) -> dict[str, Any]:
    principal = session.principal if session else None
    return {
        "session": session,
        "tenant": principal.tenant if principal else None,
        "may_write": bool(principal and principal.may("write")),
        "may_admin": bool(principal and principal.may("admin")),
        **values,
    }


def _back(path: str, **query: str) -> Response:
    target = path + (f"?{urlencode(query)}" if query else "")
    return secured(RedirectResponse(target, status_code=303))


def _notice(request: Request) -> str | None:
    done, outcome = request.query_params.get("done"), request.query_params.get("outcome")
    if done in DONE and outcome in OUTCOMES:
        return f"{done}: {outcome}"
    return None


def _now() -> datetime:
    return datetime.now(UTC)


# --- sign-in -------------------------------------------------------------------------------------


@router.get("/")
async def home(request: Request) -> Response:
    session = await _inspector(request).sessions.find(request.cookies.get(COOKIE))
    return _back("/ui/users" if session else "/ui/sign-in")


@router.get("/sign-in")
async def sign_in_form(request: Request) -> Response:
    token = new_token()
    response = page("sign_in.html", **_common(None, csrf=token, message="", title="Sign in"))
    _set_cookie(request, response, SIGN_IN_COOKIE, token, SIGN_IN_SECONDS)
    return response


@router.post("/sign-in")
async def sign_in(request: Request) -> Response:
    inspector = _inspector(request)
    fields = await _form(request, None, request.cookies.get(SIGN_IN_COOKIE))
    key = fields.get("key", "").strip()
    try:
        principal = await inspector.gate.admit(f"Bearer {key}", "read")
    except SidecarError as err:
        token = new_token()
        message = "That key is unknown or revoked." if err.status == 401 else err.detail
        refused = page("sign_in.html", err.status, **_common(None, csrf=token, message=message, title="Sign in"))
        _set_cookie(request, refused, SIGN_IN_COOKIE, token, SIGN_IN_SECONDS)
        return refused
    session = await inspector.sessions.start(principal)
    response = _back("/ui/users")
    _set_cookie(request, response, COOKIE, session.id, None)
    response.delete_cookie(SIGN_IN_COOKIE, path="/ui")
    return response


@router.post("/sign-out")
async def sign_out(request: Request) -> Response:
    session = await _session(request, "read")
    await _form(request, session)
    await _inspector(request).sessions.end(session.id)
    response = _back("/ui/sign-in")
    response.delete_cookie(COOKIE, path="/ui")
    return response


def _set_cookie(request: Request, response: Response, name: str, value: str, max_age: int | None) -> None:
    response.set_cookie(
        name,
        value,
        max_age=max_age,
        path="/ui",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )


# --- the tenant's users --------------------------------------------------------------------------


@router.get("/users")
async def users(request: Request, q: str = "", after: str = "") -> Response:
    session = await _session(request, "read")
    message = ""
    if q and not ID_RE.fullmatch(q):
        message, q = "A user id has letters, digits and _ . @ + - only.", ""
    found, more = await _service(request).reader.users(session.principal.tenant, q, USERS_LISTED)
    shown = [u for u in found if u.user > after][:USERS_PER_PAGE]
    next_after = shown[-1].user if shown and len([u for u in found if u.user > after]) > len(shown) else None
    return page(
        "users.html",
        **_common(
            session,
            title="Users",
            q=q,
            users=shown,
            matched=len(found),
            more=more,
            next_after=next_after,
            cap=USERS_LISTED,
            message=message,
            notice=_notice(request),
        ),
    )


# --- a user's memory -----------------------------------------------------------------------------


async def _records(service: Sidecar, who: Principal, user: str) -> tuple[list[Record], bool]:
    """Every record of the user the caller may see (all statuses), up to RECORDS_READ."""
    out: list[Record] = []
    cursor = 0
    while True:
        page_, cursor = await service.reader.records_page(who.tenant, user, cursor, 200)
        out += [r for r in page_ if may_see(who, r)]
        if cursor == 0:
            return out, False
        if len(out) >= RECORDS_READ:
            return out, True


async def _memory(request: Request, session: Session, user: str) -> tuple[list[Record], dict[str, Any]]:
    """The user's records, and what the memory page shows of them (404 for a user with none)."""
    records, cut = await _records(_service(request), session.principal, user)
    if not records:
        raise NotFound("not_found", f"no memory for user {user} in this tenant")
    now = _now()
    values = {
        "title": f"User {user}",
        "user": user,
        "sections": views.sections(records, now),
        "cut": cut,
        "now": now,
        "notice": _notice(request),
        "asked": {"query": "", "session": "", "project": "", "max_items": "8"},
        "result": None,
        "message": "",
    }
    return records, values


@router.get("/users/{user}")
async def user_page(request: Request, user: str = USER_PATH) -> Response:
    session = await _session(request, "read")
    _, values = await _memory(request, session, user)
    return page("user.html", **_common(session, **values))


@router.get("/users/{user}/memories/{record_id}")
async def record_page(request: Request, user: str = USER_PATH, record_id: str = RECORD_PATH) -> Response:
    session = await _session(request, "read")
    rec, lineage = await _service(request).history(session.principal, user, record_id)
    now = _now()
    return page(
        "record.html",
        **_common(
            session,
            title=f"{rec.attribute} of {user}",
            user=user,
            record=rec,
            lineage=sorted(lineage, key=lambda r: (r.observed_at, r.id)),
            picture=views.timeline(lineage, now),
            forget_choices=FORGET_SCOPES,
            now=now,
            notice=_notice(request),
        ),
    )


# --- try a request -------------------------------------------------------------------------------


@router.post("/users/{user}/try")
async def try_request(request: Request, user: str = USER_PATH) -> Response:
    session = await _session(request, "read")
    fields = await _form(request, session)
    asked = {k: fields.get(k, "").strip() for k in ("query", "session", "project", "max_items")}
    records, values = await _memory(request, session, user)
    values["asked"] = asked
    try:
        query = ContextQuery(
            user=user,
            query=asked["query"],
            session=asked["session"] or None,
            project=asked["project"] or None,
            max_items=int(asked["max_items"] or 8),
            explain=True,
        )
    except (ValidationError, ValueError) as err:
        values["message"] = _first_error(err)
        return page("user.html", 422, **_common(session, **values))
    result = await _service(request).context(session.principal, query)
    by_id = {r.id: r for r in records}
    left_out = [
        {"exclusion": e, "record": by_id.get(e.id)}
        for e in sorted(result.excluded or [], key=lambda e: -(e.score if e.score is not None else -1.0))
    ]
    values["result"] = {"context": result.context, "sections": result.sections, "left_out": left_out}
    return page("user.html", **_common(session, **values))


def _first_error(err: Exception) -> str:
    if isinstance(err, ValidationError):
        first = err.errors(include_url=False, include_input=False)[0]
        where = ".".join(str(x) for x in first.get("loc", ()))
        return f"{where}: {first.get('msg', '')}" if where else str(first.get("msg", ""))
    return "max items is a whole number from 1 to 200"


# --- the controls --------------------------------------------------------------------------------


def _outcome(result: IngestResult) -> str:
    first = result.accepted[0] if result.accepted else None
    if first is None:
        return "pending"
    ops = first.ops or []
    outcome = (ops[0].outcome if ops else first.outcome) or "pending"
    return outcome if outcome in OUTCOMES else "pending"


@router.post("/users/{user}/memories/{record_id}/correct")
async def correct(request: Request, user: str = USER_PATH, record_id: str = RECORD_PATH) -> Response:
    session = await _session(request, "write")
    fields = await _form(request, session)
    value = fields.get("value", "").strip()
    if not value:
        raise SidecarError("missing_field", "a correction needs the new value")
    command: dict[str, Any] = {"op": "correct", "record_id": record_id, "value": value}
    if fields.get("statement", "").strip():
        command["statement"] = fields["statement"].strip()
    result = await _service(request).command(session.principal, user, command, CONTROL_WAIT)
    return _back(f"/ui/users/{user}", done="correct", outcome=_outcome(result))


@router.post("/users/{user}/memories/{record_id}/forget")
async def forget(request: Request, user: str = USER_PATH, record_id: str = RECORD_PATH) -> Response:
    session = await _session(request, "write")
    fields = await _form(request, session)
    choice = fields.get("scope", "record")
    if choice not in FORGET_SCOPES:
        raise SidecarError("invalid_field", f"forget one of: {', '.join(FORGET_SCOPES)}")
    service = _service(request)
    rec = await service.memory(session.principal, user, record_id)
    fields_of = {
        "id": rec.id,
        "subject": rec.subject,
        "attribute": rec.attribute,
        "value": rec.value,
        "scope": rec.scope,
    }
    command = forget_command(fields_of, choice)
    result = await service.command(session.principal, user, command, CONTROL_WAIT)
    return _back(f"/ui/users/{user}", done="forget", outcome=_outcome(result))


@router.get("/users/{user}/export")
async def export(request: Request, user: str = USER_PATH) -> Response:
    session = await _session(request, "admin")
    service = _service(request)
    if not await service.reader.user_exists(session.principal.tenant, user):
        raise NotFound("not_found", f"no memory for user {user} in this tenant")

    async def lines() -> AsyncIterator[bytes]:
        async for row in service.export(session.principal, user):
            yield orjson.dumps(row) + b"\n"

    headers = {"Content-Disposition": f'attachment; filename="{escape(user)}.jsonl"'}
    return secured(StreamingResponse(lines(), media_type="application/x-ndjson", headers=headers))


@router.post("/users/{user}/erase")
async def erase(request: Request, user: str = USER_PATH) -> Response:
    session = await _session(request, "admin")
    fields = await _form(request, session)
    if fields.get("confirm", "") != user:
        raise SidecarError("not_confirmed", "type the user's id to confirm the erasure")
    result = await _service(request).command(session.principal, user, {"op": "erase_user"}, CONTROL_WAIT)
    return _back("/ui/users", done="erase", outcome=_outcome(result))


# --- pipeline health -----------------------------------------------------------------------------


@router.get("/health")
async def health(request: Request) -> Response:
    session = await _session(request, "admin")
    return page("health.html", **_common(session, title="Pipeline health"))


@router.get("/health.json")
async def health_figures(request: Request) -> Response:
    await _session(request, "admin")
    running: Running = request.app.state.running
    families, watermarks = await asyncio.get_running_loop().run_in_executor(None, running.pipeline.figures)
    body = views.pipeline_figures(families, watermarks, int(time.time() * 1000))
    body["at"] = _now().isoformat()
    return secured(Response(orjson.dumps(body), media_type="application/json"))


# --- the page's own assets -----------------------------------------------------------------------


@router.get("/static/{name}")
async def static(name: str) -> Response:
    found = STATIC.get(name)
    if found is None:
        raise NotFound("not_found", "no such file")
    media_type, body = found
    response = Response(body, media_type=media_type)
    response.headers["Cache-Control"] = "max-age=300"
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


def error_page(request: Request, status: int, reason: str, detail: str) -> Response:
    """An error on an inspector path, as a page (the API answers the same errors as JSON)."""
    if reason == "sign_in" and request.method == "GET":
        return _back("/ui/sign-in")
    return page("error.html", status, **_common(None, title="Error", status=status, reason=reason, detail=detail))
