"""The MCP server with the MCP SDK's own client, over Streamable HTTP (the sidecar's /mcp) and over
stdio (`slotstream mcp`), on a real sidecar, worker, Redis and Kafka: a conversation (remember,
recall, correct, recall again, forget, recall), keys and tenants, and hostile arguments refused
with nothing written."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from support import Service

pytestmark = [pytest.mark.kafka, pytest.mark.integration]
TOOLS = {"remember", "recall", "list_memories", "correct", "forget", "history"}


@asynccontextmanager
async def over_http(service: Service, key: str, **headers: str) -> AsyncIterator[Client]:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}", **headers}, timeout=60)
    async with http, Client(streamable_http_client(f"{service.url}/mcp", http_client=http)) as client:
        yield client


@asynccontextmanager
async def over_stdio(service: Service, key: str, user: str) -> AsyncIterator[Client]:
    env = {**os.environ, "SLOTSTREAM_API_KEY": key, "SLOTSTREAM_SIDECAR_URL": service.url, "PYTHONSAFEPATH": "1"}
    command = StdioServerParameters(
        command=sys.executable, args=["-m", "slotstream.cli", "mcp", "--user", user], env=env
    )
    async with Client(command) as client:
        yield client


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    body: dict[str, Any] = json.loads(result.content[0].text)
    return body


async def refused(client: Client, tool: str, **arguments: Any) -> str:
    result = await client.call_tool(tool, arguments)
    assert result.is_error, f"{tool}({arguments}) was accepted"
    return str(result.content[0].text)


async def conversation(client: Client, user: str | None) -> None:
    """remember, recall, correct, recall again (the old value gone), forget, recall."""
    who = {"user": user} if user else {}
    assert {t.name for t in (await client.list_tools()).tools} >= TOOLS
    kept = await call(client, "remember", text="Please keep your answers short.", **who)
    assert kept["stored"] and kept["stored"][0]["value"] == "concise", kept
    record_id = kept["stored"][0]["id"]
    assert "concise" in (await call(client, "recall", query="how should you answer me?", **who))["context"]
    assert (await call(client, "correct", record_id=record_id, value="detailed", **who))["outcome"] == "applied"
    after = (await call(client, "recall", query="how should you answer me?", **who))["context"]
    assert "detailed" in after and "concise" not in after, after
    current = [m for m in (await call(client, "list_memories", status="active", **who))["items"]]
    detailed = next(m for m in current if m["value"] == "detailed")
    lineage = (await call(client, "history", record_id=detailed["id"], **who))["lineage"]
    assert [(r["value"], r["status"]) for r in lineage] == [("concise", "superseded"), ("detailed", "active")]
    assert (await call(client, "forget", record_id=detailed["id"], **who))["outcome"] == "applied"
    assert "detailed" not in (await call(client, "recall", query="how should you answer me?", **who))["context"]


def test_a_conversation_over_streamable_http(service: Service, tenant: str) -> None:
    async def run() -> None:
        async with over_http(service, service.key(tenant)) as client:
            await conversation(client, "ann")

    asyncio.run(run())


def test_a_conversation_over_stdio(service: Service, tenant: str) -> None:
    async def run() -> None:
        async with over_stdio(service, service.key(tenant), "bo") as client:
            await conversation(client, None)
            # the user is fixed by the command: another one is refused
            assert "user_fixed" in await refused(client, "recall", query="x", user="someone-else")

    asyncio.run(run())


def test_resources_and_the_prompt_carry_the_users_memory(service: Service, tenant: str) -> None:
    key = service.key(tenant)

    async def run() -> None:
        async with over_http(service, key) as client:
            await call(client, "remember", text="I'm allergic to peanuts.", user="cy")
            templates = (await client.list_resource_templates()).resource_templates
            assert any(t.uri_template == "slotstream://users/{user}/memory/{section}" for t in templates)
            stated = await client.read_resource("slotstream://users/cy/memory/stated")
            assert "peanuts" in stated.contents[0].text
            goals = await client.read_resource("slotstream://users/cy/memory/goals")
            assert "peanuts" not in goals.contents[0].text
            # a record past its validity is out of the current memory at that moment, swept or not
            until = (datetime.now(UTC) + timedelta(seconds=2)).isoformat()
            short = {"user": "cy", "kind": "preference", "attribute": "preference.mood", "value": "tired"}
            with service.http(key) as h:
                sent = h.post("/v1/ops?wait=20", json={"record": {**short, "valid_until": until}})
                assert sent.json()["accepted"][0]["outcome"] == "applied", sent.text
            assert "tired" in (await client.read_resource("slotstream://users/cy/memory/stated")).contents[0].text
            await asyncio.sleep(2.5)
            assert "tired" not in (await client.read_resource("slotstream://users/cy/memory/stated")).contents[0].text
            prompt = await client.get_prompt("with_memory", {"request": "Suggest a snack", "user": "cy"})
            text = prompt.messages[0].content.text
            assert "peanuts" in text and "Suggest a snack" in text

    asyncio.run(run())


def test_keys_scopes_and_tenants_hold(service: Service, tenant: str) -> None:
    other = f"{tenant}x"

    async def run() -> None:
        async with over_http(service, service.key(tenant)) as owner:
            kept = await call(owner, "remember", text="I live in Lisbon.", user="dee")
            record_id = kept["stored"][0]["id"]
        async with over_http(service, service.key(other)) as stranger:
            assert "Lisbon" not in (await call(stranger, "recall", query="where do I live?", user="dee"))["context"]
            assert (await call(stranger, "list_memories", user="dee"))["items"] == []
            assert "not_found" in await refused(stranger, "correct", record_id=record_id, value="Paris", user="dee")
            assert "not_found" in await refused(stranger, "forget", record_id=record_id, user="dee")
        async with over_http(service, service.key(tenant, "read")) as reader:
            assert "scope" in await refused(reader, "remember", text="I live in Oslo.", user="dee")
            assert "scope" in await refused(reader, "forget", record_id=record_id, user="dee")
        async with over_http(service, service.key(tenant), **{"X-Slotstream-User": "eli"}) as fixed:
            assert "user_fixed" in await refused(fixed, "list_memories", user="dee")
            assert (await call(fixed, "list_memories"))["items"] == []
        async with over_http(service, service.key(tenant)) as owner:
            items = (await call(owner, "list_memories", user="dee"))["items"]
            assert [(m["value"], m["status"]) for m in items] == [("Lisbon", "active")]

    asyncio.run(run())
    with httpx.Client(base_url=service.url, timeout=30) as anonymous:
        answer = anonymous.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        assert answer.status_code == 401 and answer.json()["reason"] == "unauthorized"
        bad_user = anonymous.post(
            "/mcp",
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            headers={"Authorization": f"Bearer {service.key(tenant)}", "X-Slotstream-User": "a:b"},
        )
        assert bad_user.status_code == 400 and bad_user.json()["reason"] == "invalid_id"
        counted = anonymous.get("/metrics").text
        assert 'route="/mcp"' in counted and 'status="401"' in counted


def test_hostile_arguments_are_refused_and_nothing_is_written(service: Service, tenant: str) -> None:
    async def run() -> None:
        async with over_http(service, service.key(tenant)) as client:
            await call(client, "remember", text="I live in Lisbon.", user="fay")
            before = (await call(client, "list_memories", user="fay"))["items"]
            record_id = before[0]["id"]
            for user in ("a:b", "a/b", "{x}", "a b", "", "x" * 129, "é"):
                assert await refused(client, "remember", text="I live in Oslo.", user=user)
            assert await refused(client, "remember", text="x" * 16_001, user="fay")
            assert await refused(client, "remember", text="", user="fay")
            assert await refused(client, "recall", query="q" * 4_001, user="fay")
            assert await refused(client, "recall", query="where", user=5)
            assert await refused(client, "recall", query="where", user="fay", max_items=0)
            assert await refused(client, "correct", record_id=record_id, value="", user="fay")
            assert await refused(client, "correct", record_id=record_id, value="v" * 2_001, user="fay")
            assert await refused(client, "correct", record_id="r:1", value="Oslo", user="fay")
            assert await refused(client, "forget", record_id=record_id, user="fay", scope="everything")
            assert await refused(client, "history", record_id="../x", user="fay")
            assert "not_found" in await refused(client, "correct", record_id="r_missing", value="Oslo", user="fay")
            # a secret said to remember is refused by extraction, and the tool says so
            secret = await call(client, "remember", text="My API key is sk-live-" + "a1B2" * 10, user="fay")
            assert secret["stored"] == [] and "secret_value" in secret["refused"], secret
            assert "secret_value" in await refused(
                client, "correct", record_id=record_id, value="sk-live-" + "a" * 40, user="fay"
            )
            after = (await call(client, "list_memories", user="fay"))["items"]
            assert after == before, "nothing written by any refused call"

    asyncio.run(run())
