"""What an MCP tool's error says: the API's reason code first, whatever refused the call."""

from __future__ import annotations

from redis.exceptions import ConnectionError as RedisConnectionError

from slotstream.client import SidecarRequestError
from slotstream.memory.errors import Reason, Rejected
from slotstream.sidecar.errors import Forbidden, NotFound
from slotstream.sidecar.mcp.tools import refusal


def test_the_reason_code_leads_the_message() -> None:
    assert refusal(NotFound("not_found", "no memory r1 for this user")) == "not_found: no memory r1 for this user"
    assert refusal(Forbidden("scope", "this key may not write")) == "scope: this key may not write"
    assert refusal(Rejected(Reason.TOO_LARGE, "text")).startswith("too_large")
    assert refusal(RedisConnectionError("refused")).startswith("redis_unavailable")
    # over stdio the HTTP API refused it: its reason as the API gave it
    assert refusal(SidecarRequestError(404, "not_found", "no memory r1")) == "not_found: no memory r1"
    assert refusal(RuntimeError("boom")) == "internal_error: boom"
