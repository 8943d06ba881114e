"""MCP over Streamable HTTP at /mcp, inside the sidecar: stateless (every call stands alone, so
any sidecar process can answer it) with JSON answers. The caller's API key comes as a bearer token
and decides the tenant and what the tools may do, as on the HTTP API; `X-Slotstream-User`, when a
deployment sets it, fixes the user every call acts for.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from slotstream.memory.models import ID_RE

from .. import metrics
from ..dependencies import Gate
from ..keys import Principal
from ..responses import error_response, problem
from ..schemas import ContextQuery, TurnIn
from ..service import Sidecar
from . import tools

PATH = "/mcp"
USER_HEADER = "x-slotstream-user"


class ServiceMemory:
    """The tools' Memory answered by the sidecar's service, for one caller."""

    def __init__(self, service: Sidecar, who: Principal) -> None:
        self.service, self.who = service, who

    async def turn(self, user: str, text: str, session: str | None, project: str | None) -> dict[str, Any]:
        sent = TurnIn(user=user, text=text, session=session, project=project)
        return (await self.service.turns(self.who, [sent], tools.WAIT_SECONDS)).model_dump(mode="json")

    async def context(
        self, user: str, query: str, session: str | None, project: str | None, max_items: int, explain: bool
    ) -> dict[str, Any]:
        asked = ContextQuery(
            user=user, query=query, session=session, project=project, max_items=max_items, explain=explain
        )
        return (await self.service.context(self.who, asked)).model_dump(mode="json")

    async def memories(
        self, user: str, status: str | None, attribute: str | None, cursor: int, limit: int
    ) -> dict[str, Any]:
        filters: dict[str, str | None] = {"status": status, "attribute": attribute}
        items, next_cursor = await self.service.memories(self.who, user, cursor, limit, filters)
        return {"items": [r.model_dump(mode="json") for r in items], "next_cursor": next_cursor}

    async def record(self, user: str, record_id: str) -> dict[str, Any]:
        rec = await self.service.memory(self.who, user, record_id)
        found: dict[str, Any] = rec.model_dump(mode="json")
        return found

    async def history(self, user: str, record_id: str) -> dict[str, Any]:
        rec, lineage = await self.service.history(self.who, user, record_id)
        return {"record": rec.model_dump(mode="json"), "lineage": [r.model_dump(mode="json") for r in lineage]}

    async def command(self, user: str, command: dict[str, Any]) -> dict[str, Any]:
        done = await self.service.command(self.who, user, dict(command), tools.WAIT_SECONDS)
        return done.model_dump(mode="json")


def _state(ctx: Context) -> dict[str, Any]:
    request = ctx.request_context.request
    state: dict[str, Any] = request.scope.setdefault("state", {})  # type: ignore[union-attr]
    return state


def server_for(service: Callable[[], Sidecar]) -> MCPServer:
    """The MCP server whose tools act through the sidecar's service, for the key MCPDoor checked."""

    async def memory_for(ctx: Context, scope: str) -> tools.Memory:
        who: Principal = _state(ctx)["principal"]
        if not who.may(scope):
            raise ToolError(f"scope: this key may not {scope}")
        return ServiceMemory(service(), who)

    def fixed_user(ctx: Context) -> str | None:
        fixed: str | None = _state(ctx).get("user")
        return fixed

    return tools.build(memory_for, fixed_user)


class MCPDoor:
    """/mcp: the key checked before the MCP app sees the request (401/403/429 in the API's problem
    shape), the caller and any fixed user handed to the tools; every other path to `app`."""

    def __init__(self, app: ASGIApp, mcp_app: ASGIApp, gate: Gate) -> None:
        self.app, self.mcp_app, self.gate = app, mcp_app, gate

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] != PATH:
            await self.app(scope, receive, send)
            return
        start, status = time.perf_counter(), [500]

        async def sent(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            await send(message)

        try:
            await self._answer(scope, receive, sent)
        finally:
            metrics.observe_request(PATH, scope["method"], status[0], time.perf_counter() - start)

    async def _answer(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        try:
            who = await self.gate.admit(headers.get("authorization", ""), "read")
        except Exception as err:  # noqa: BLE001 - answered as the API answers it
            answer = error_response(err) or problem(500, "internal_error", type(err).__name__)
            await answer(scope, receive, send)
            return
        user = headers.get(USER_HEADER)
        if user is not None and not ID_RE.fullmatch(user):
            await problem(400, "invalid_id", f"{USER_HEADER} is [A-Za-z0-9_.@+-]{{1,128}}")(scope, receive, send)
            return
        scope.setdefault("state", {}).update({"principal": who, "user": user})
        await self.mcp_app(scope, receive, send)
