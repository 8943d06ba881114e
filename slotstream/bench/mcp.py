"""`slotstream bench mcp`: the MCP `recall` tool over Streamable HTTP against `POST /v1/context`
on the same data and the same sidecar (a user with 100 active records), at concurrency 1 and 16:
p50/p99 latency in ms, as a client sees it, rounds interleaved and medians printed. Each client is
its own connection (an agent process); the MCP side uses the MCP SDK's own client, whose work on
the calling side is in its figures as it is in an agent's. Prints figures; asserts nothing.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path

import httpx
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from slotstream.bench.engine import _pct
from slotstream.bench.sidecar import QUERY, _load_users, bench_settings
from slotstream.config.settings import Settings
from slotstream.local.stack import LocalStack
from slotstream.state.namespaces import drop_namespace

USER, SIZE = "size100", 100
Call = Callable[[], Awaitable[object]]


async def _measure(clients: list[Call], requests: int) -> list[float]:
    """Each client calls `requests` times in a row, all clients at once: every call's ms."""
    out: list[float] = []

    async def one(call: Call) -> None:
        for _ in range(requests):
            start = time.perf_counter()
            await call()
            out.append((time.perf_counter() - start) * 1000)

    await asyncio.gather(*(one(c) for c in clients))
    return out


async def _http_round(url: str, key: str, concurrency: int, requests: int) -> list[float]:
    body = {"user": USER, "query": QUERY, "session": "s1", "project": "p1", "max_items": 8}
    clients = [httpx.AsyncClient(base_url=url, headers={"Authorization": f"Bearer {key}"}) for _ in range(concurrency)]
    try:

        def caller(client: httpx.AsyncClient) -> Call:
            async def call() -> object:
                answer = await client.post("/v1/context", json=body)
                answer.raise_for_status()
                return answer

            return call

        for c in clients:
            await c.post("/v1/context", json=body)  # connections open before the clock starts
        return await _measure([caller(c) for c in clients], requests)
    finally:
        for c in clients:
            await c.aclose()


async def _mcp_round(url: str, key: str, concurrency: int, requests: int) -> list[float]:
    arguments = {"user": USER, "query": QUERY, "session": "s1", "project": "p1", "max_items": 8}

    def caller(client: Client) -> Call:
        async def call() -> object:
            result = await client.call_tool("recall", arguments)
            if result.is_error:
                raise RuntimeError(str(result.content))
            return result

        return call

    async with AsyncExitStack() as opened:  # the clients' task scopes close in reverse, as anyio needs
        clients = []
        for _ in range(concurrency):
            http = await opened.enter_async_context(
                httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=60)
            )
            clients.append(
                await opened.enter_async_context(Client(streamable_http_client(f"{url}/mcp", http_client=http)))
            )
        for c in clients:
            await caller(c)()
        return await _measure([caller(c) for c in clients], requests)


def run_mcp_bench(settings: Settings, requests: int, concurrency: list[int], rounds: int) -> int:
    keys_dir = tempfile.TemporaryDirectory(prefix="slotstream-bench-keys-")
    base, key = bench_settings(settings, "bench-mcp", Path(keys_dir.name))
    figures: dict[tuple[str, int], list[tuple[float, float]]] = {}
    with LocalStack(base, workers=0) as stack:
        _load_users(stack, [SIZE])
        url = stack.start_sidecar()
        print(
            f"MCP recall vs POST /v1/context, a user with {SIZE} records; sidecar with {base.sidecar_workers} "
            f"server processes; {requests} calls per client; {rounds} rounds interleaved; medians over the rounds"
        )
        for _ in range(rounds):
            for conc in concurrency:
                for name, round_ in (("POST /v1/context", _http_round), ("MCP recall", _mcp_round)):
                    lat = asyncio.run(round_(url, key, conc, requests))
                    figures.setdefault((name, conc), []).append((_pct(lat, 0.5), _pct(lat, 0.99)))
        drop_namespace(stack.client, base.namespace)
    keys_dir.cleanup()
    print(f"{'path':<18}{'clients':>8}{'p50 ms':>10}{'p99 ms':>10}{'p50 ratio':>11}")
    for conc in concurrency:
        base_p50 = statistics.median(p50 for p50, _ in figures[("POST /v1/context", conc)])
        for name in ("POST /v1/context", "MCP recall"):
            rows = figures[(name, conc)]
            p50, p99 = statistics.median(r[0] for r in rows), statistics.median(r[1] for r in rows)
            print(f"{name:<18}{conc:>8}{p50:>10.2f}{p99:>10.2f}{p50 / base_p50:>10.1f}x")
    return 0
