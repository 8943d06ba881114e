"""slotstream as an MCP server: tools (remember, recall, list_memories, correct, forget, history),
a resource per section of a user's current memory, and a prompt that puts the context for a
request in front of it.

The tools speak to a `Memory`: the sidecar's own service inside the sidecar (Streamable HTTP at
/mcp, the caller's key checked on every call), or the HTTP API from `slotstream mcp` (stdio). Both
answer in the API's JSON shapes, so a tool answers the same either way. Every argument is bounded
in the tool's schema; a bad call is an MCP error naming its reason, and nothing is written.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Annotated, Any, Literal, Protocol

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from slotstream.memory.limits import MAX_TURN_CHARS
from slotstream.memory.models import ID_RE, SCOPE_ID_RE, parse_time
from slotstream.memory.selection import SECTION_TITLES, section_for

from ..controls import FORGET_SCOPES, forget_command
from ..inspector.views import in_use
from ..responses import refusal_of
from ..schemas import MAX_QUERY_CHARS

WAIT_SECONDS = 10.0  # how long remember, correct and forget wait for their outcome
MAX_VALUE_CHARS = 2_000
UserId = Annotated[str, Field(min_length=1, max_length=128, pattern=ID_RE.pattern, description="the user's id")]
RecordId = Annotated[str, Field(min_length=1, max_length=128, pattern=ID_RE.pattern, description="a memory's id")]
ScopeId = Annotated[str, Field(min_length=1, max_length=128, pattern=SCOPE_ID_RE.pattern)]
SECTIONS = [name for name in SECTION_TITLES if name != "request"]
ForgetScope = Literal["record", "value_here", "value_everywhere", "attribute_everywhere"]
assert set(FORGET_SCOPES) == set(ForgetScope.__args__)  # type: ignore[attr-defined]


class Memory(Protocol):
    """What the tools need, in the HTTP API's JSON shapes (docs/sidecar.md)."""

    async def turn(self, user: str, text: str, session: str | None, project: str | None) -> dict[str, Any]: ...

    async def context(
        self, user: str, query: str, session: str | None, project: str | None, max_items: int, explain: bool
    ) -> dict[str, Any]: ...

    async def memories(
        self, user: str, status: str | None, attribute: str | None, cursor: int, limit: int
    ) -> dict[str, Any]: ...

    async def record(self, user: str, record_id: str) -> dict[str, Any]: ...

    async def history(self, user: str, record_id: str) -> dict[str, Any]: ...

    async def command(self, user: str, command: dict[str, Any]) -> dict[str, Any]: ...


# the Memory for a call, once its caller may use `scope` ("read" or "write"); and the user a
# deployment fixed for it (a header over HTTP, an option on stdio), if any
MemoryFor = Callable[[Context, str], Awaitable[Memory]]
FixedUser = Callable[[Context], str | None]


def build(memory_for: MemoryFor, fixed_user: FixedUser) -> MCPServer:
    server = MCPServer(
        "slotstream",
        instructions=(
            "Long-term memory of the user. Call recall with the user's request before answering it; "
            "remember what the user says about themself; correct or forget when the user says so."
        ),
    )

    def who(ctx: Context, user: str | None) -> str:
        fixed = fixed_user(ctx)
        if fixed is not None and user not in (None, fixed):
            raise ToolError("user_fixed: this connection acts for one user only")
        chosen = fixed or user
        if not chosen:
            raise ToolError("missing_user: name the user")
        return chosen

    async def run(call: Awaitable[dict[str, Any]]) -> dict[str, Any]:
        try:
            return await call
        except Exception as err:  # noqa: BLE001 - every refusal an MCP error with its reason, never a crash
            raise ToolError(refusal(err)) from None

    @server.tool()
    async def remember(
        text: Annotated[str, Field(min_length=1, max_length=MAX_TURN_CHARS, description="what the user said")],
        ctx: Context,
        user: UserId | None = None,
        session: ScopeId | None = None,
        project: ScopeId | None = None,
    ) -> dict[str, Any]:
        """Send something the user said. Returns what was stored (each memory's id, attribute,
        value, status), or why nothing was (a request, a question, a secret refused, …)."""
        user_id = who(ctx, user)
        memory = await memory_for(ctx, "write")
        outcome = await run(memory.turn(user_id, text, session, project))
        turn = outcome["accepted"][0]
        ops = turn.get("ops") or []
        stored: list[dict[str, Any]] = []
        if ops:
            wanted = {o["op_id"] for o in ops if o.get("outcome") == "applied"}
            page = await run(memory.memories(user_id, None, None, 0, 200))
            stored = [_brief(r) for r in page["items"] if r.get("op_id") in wanted]
        return {
            "stored": stored,
            "outcomes": [{"outcome": o.get("outcome"), "reason": o.get("reason")} for o in ops],
            "refused": turn.get("refused") or [],
            "complete": outcome["complete"],
            "nothing_stored_because": None if stored else _why_nothing(turn),
        }

    @server.tool()
    async def recall(
        query: Annotated[str, Field(max_length=MAX_QUERY_CHARS, description="the user's request")],
        ctx: Context,
        user: UserId | None = None,
        session: ScopeId | None = None,
        project: ScopeId | None = None,
        max_items: Annotated[int, Field(ge=1, le=200)] = 8,
        explain: bool = False,
    ) -> dict[str, Any]:
        """The context block to put in front of the user's request; with explain, why every other
        memory was left out."""
        memory = await memory_for(ctx, "read")
        answer = await run(memory.context(who(ctx, user), query, session, project, max_items, explain))
        out = {"context": answer["context"], "used_ids": answer["used_ids"]}
        if explain:
            out["excluded"] = answer.get("excluded") or []
        return out

    @server.tool()
    async def list_memories(
        ctx: Context,
        user: UserId | None = None,
        status: Annotated[str | None, Field(max_length=32, pattern=r"^[a-z_]+$")] = None,
        attribute: Annotated[str | None, Field(max_length=200, pattern=r"^[\w\-.]+$")] = None,
        cursor: Annotated[int, Field(ge=0)] = 0,
        limit: Annotated[int, Field(ge=1, le=200)] = 50,
    ) -> dict[str, Any]:
        """The user's memories (any status unless filtered), a page at a time."""
        memory = await memory_for(ctx, "read")
        page = await run(memory.memories(who(ctx, user), status, attribute, cursor, limit))
        return {"items": [_brief(r) for r in page["items"]], "next_cursor": page.get("next_cursor")}

    @server.tool()
    async def correct(
        record_id: RecordId,
        value: Annotated[str, Field(min_length=1, max_length=MAX_VALUE_CHARS, description="the right value")],
        ctx: Context,
        user: UserId | None = None,
        statement: Annotated[str | None, Field(max_length=MAX_VALUE_CHARS)] = None,
    ) -> dict[str, Any]:
        """Replace a memory's value: the old one leaves the next context."""
        memory = await memory_for(ctx, "write")
        user_id = who(ctx, user)
        await run(memory.record(user_id, record_id))  # an unknown id is refused here, not accepted
        command: dict[str, Any] = {"op": "correct", "record_id": record_id, "value": value}
        if statement:
            command["statement"] = statement
        return _outcome(await run(memory.command(user_id, command)))

    @server.tool()
    async def forget(
        record_id: RecordId,
        ctx: Context,
        user: UserId | None = None,
        scope: Annotated[ForgetScope, Field(description="; ".join(f"{k}: {v}" for k, v in FORGET_SCOPES.items()))] = (
            "record"
        ),
    ) -> dict[str, Any]:
        """Forget a memory, in the scope chosen; what is forgotten stays forgotten."""
        memory = await memory_for(ctx, "write")
        user_id = who(ctx, user)
        rec = await run(memory.record(user_id, record_id))
        return _outcome(await run(memory.command(user_id, forget_command(rec, scope))))

    @server.tool()
    async def history(record_id: RecordId, ctx: Context, user: UserId | None = None) -> dict[str, Any]:
        """Every version of a memory's slot, oldest first: what replaced what, and why."""
        memory = await memory_for(ctx, "read")
        answer = await run(memory.history(who(ctx, user), record_id))
        return {"record": _brief(answer["record"]), "lineage": [_brief(r) for r in answer["lineage"]]}

    @server.resource(
        "slotstream://users/{user}/memory/{section}",
        name="memory_section",
        description=f"a user's current memories in one section ({', '.join(SECTIONS)})",
        mime_type="text/plain",
    )
    async def section(user: str, section: str, ctx: Context) -> str:
        if section not in SECTIONS:
            raise ToolError(f"unknown_section: one of {', '.join(SECTIONS)}")
        if not ID_RE.fullmatch(user):
            raise ToolError("invalid_id: a user id is [A-Za-z0-9_.@+-]{1,128}")
        memory = await memory_for(ctx, "read")
        user_id = who(ctx, user)
        lines: list[str] = []
        cursor, now = 0, datetime.now(UTC)
        while True:
            page = await run(memory.memories(user_id, None, None, cursor, 200))
            lines += [
                f"- {r['statement'] or r['value']} ({r['attribute']})" for r in page["items"] if _in(r, section, now)
            ]
            cursor = page.get("next_cursor") or 0
            if not cursor:
                break
        return "\n".join(lines) if lines else f"(nothing in {SECTION_TITLES[section]})"

    @server.prompt(name="with_memory", description="The user's request with what memory holds for it in front.")
    async def with_memory(request: str, ctx: Context, user: str | None = None) -> str:
        if len(request) > MAX_QUERY_CHARS:
            raise ToolError(f"too_large: a request is at most {MAX_QUERY_CHARS} characters")
        memory = await memory_for(ctx, "read")
        answer = await run(memory.context(who(ctx, user), request, None, None, 8, False))
        known = answer["context"] or "(nothing remembered applies)"
        return f"What you remember about the user that bears on this request:\n{known}\n\nThe request:\n{request}"

    return server


def refusal(err: Exception) -> str:
    """`<reason>: <detail>` for an error a call met: the API's reason code where the sidecar's
    answer has one (its own refusals, Redis or Kafka away), the HTTP API's over stdio."""
    found = refusal_of(err)
    if found is not None:
        return f"{found.reason}: {found.detail[:500]}".rstrip(": ")
    reason = getattr(err, "reason", None)
    detail = getattr(err, "detail", None) or str(err)
    return f"{reason or 'internal_error'}: {detail[:300]}"


def _brief(rec: dict[str, Any]) -> dict[str, Any]:
    keep = ("id", "attribute", "value", "statement", "status", "scope", "kind", "valid_until", "observed_at")
    return {k: rec.get(k) for k in keep}


def _in(rec: dict[str, Any], section: str, now: datetime) -> bool:
    """In `section` of the user's current memory, as the inspector shows it."""
    until = parse_time(rec["valid_until"]) if rec.get("valid_until") else None
    return in_use(rec["status"], until, now) and section_for(rec["status"], rec["kind"]) == section


def _outcome(result: dict[str, Any]) -> dict[str, Any]:
    first = result["accepted"][0]
    return {"op_id": first["id"], "outcome": first.get("outcome"), "reason": first.get("reason")}


def _why_nothing(turn: dict[str, Any]) -> str:
    if turn.get("refused"):
        return "refused: " + ", ".join(turn["refused"])
    if turn.get("outcome") == "pending":
        return "not processed yet: look again with list_memories"
    return "nothing in it is a lasting statement about the user (a request, a question, or small talk)"
