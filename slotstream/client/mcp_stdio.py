"""`slotstream mcp`: the same MCP tools over stdio for desktop clients, each call sent to a
running sidecar's HTTP API with one API key (so its tenant and scopes hold exactly as on HTTP)."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context

from slotstream.sidecar.mcp import tools

from . import AsyncClient


class ClientMemory:
    """The tools' Memory answered by the sidecar's HTTP API."""

    def __init__(self, client: AsyncClient) -> None:
        self.client = client

    async def turn(self, user: str, text: str, session: str | None, project: str | None) -> dict[str, Any]:
        sent = {"user": user, "text": text, "session": session, "project": project}
        turn = {k: v for k, v in sent.items() if v is not None}
        return (await self.client.send_turns([turn], wait=tools.WAIT_SECONDS)).model_dump(mode="json")

    async def context(
        self, user: str, query: str, session: str | None, project: str | None, max_items: int, explain: bool
    ) -> dict[str, Any]:
        found = await self.client.context(
            user, query, session=session, project=project, max_items=max_items, explain=explain
        )
        return found.model_dump(mode="json")

    async def memories(
        self, user: str, status: str | None, attribute: str | None, cursor: int, limit: int
    ) -> dict[str, Any]:
        page = await self.client.memories(user, cursor=cursor, limit=limit, status=status, attribute=attribute)
        return page.model_dump(mode="json")

    async def record(self, user: str, record_id: str) -> dict[str, Any]:
        found: dict[str, Any] = (await self.client.memory(user, record_id)).model_dump(mode="json")
        return found

    async def history(self, user: str, record_id: str) -> dict[str, Any]:
        return (await self.client.history(user, record_id)).model_dump(mode="json")

    async def command(self, user: str, command: dict[str, Any]) -> dict[str, Any]:
        sent = await self.client.send_ops([{"command": {**command, "user": user}}], wait=tools.WAIT_SECONDS)
        return sent.model_dump(mode="json")


async def serve_stdio(url: str, key: str, user: str | None) -> None:
    """Serve the tools on stdin/stdout until the client closes them."""
    async with AsyncClient(url, key, timeout=tools.WAIT_SECONDS + 10) as client:
        memory = ClientMemory(client)

        async def memory_for(ctx: Context, scope: str) -> tools.Memory:
            return memory  # the sidecar checks the key's scope on every call

        await tools.build(memory_for, lambda ctx: user).run_stdio_async()
