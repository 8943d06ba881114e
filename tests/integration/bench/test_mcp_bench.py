"""`slotstream bench mcp` runs end to end on a small count and prints its table."""

from __future__ import annotations

import re

import pytest

from slotstream.bench.mcp import run_mcp_bench
from slotstream.config.settings import Settings
from slotstream.local.redis_server import free_port

pytestmark = [pytest.mark.kafka, pytest.mark.integration]


def test_the_mcp_bench_prints_both_paths_at_each_concurrency(
    redis_url: str, kafka_bootstrap: str, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = Settings(
        redis_url=redis_url, kafka_bootstrap=kafka_bootstrap, sidecar_workers=1, sidecar_port=free_port(), partitions=2
    )
    assert run_mcp_bench(settings, requests=5, concurrency=[1, 2], rounds=1) == 0
    out = capsys.readouterr().out
    rows = re.findall(r"^(POST /v1/context|MCP recall)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)x$", out, re.M)
    assert [(path, clients) for path, clients, *_ in rows] == [
        ("POST /v1/context", "1"),
        ("MCP recall", "1"),
        ("POST /v1/context", "2"),
        ("MCP recall", "2"),
    ], out
    assert all(0 < float(p50) <= float(p99) for _, _, p50, p99, _ in rows)
