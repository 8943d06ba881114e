"""The embedded Redis's persistence and the pipeline bench's account of it: an AOF rewrite forks
the server and writes the whole state out on the machine the worker runs on, so the local server
writes that base uncompressed, and the freshness run says how many rewrites happened while it
probed (docs/results.md)."""

from __future__ import annotations

import time
from types import SimpleNamespace
from typing import Any

import pytest
import redis

from slotstream.bench.pipeline import _aof_rewrites, _print_redis_persistence, _rewrite_mark, met_a_rewrite
from slotstream.local.redis_server import REWRITE_BOUND_PERCENTAGE, LocalRedis, server_build


def _stack(server: LocalRedis | None, client: redis.Redis) -> Any:
    pid = server.proc.pid if server is not None and server.proc is not None else None
    return SimpleNamespace(redis_pid=pid, engine=SimpleNamespace(r=client))


def test_the_local_redis_appends_to_an_aof_whose_base_is_written_uncompressed_or_keeps_none() -> None:
    persisting, in_memory = LocalRedis(persist=True).start(), LocalRedis(persist=False).start()
    try:
        config = redis.Redis.from_url(persisting.url).config_get("*")
        assert (config["appendonly"], config["appendfsync"], config["rdbcompression"]) == ("yes", "everysec", "no")
        assert config["auto-aof-rewrite-percentage"] == str(REWRITE_BOUND_PERCENTAGE)
        assert redis.Redis.from_url(in_memory.url).config_get("appendonly") == {"appendonly": "no"}
    finally:
        persisting.stop()
        in_memory.stop()


def test_an_aof_rewrite_while_probing_is_counted_and_printed(capsys: pytest.CaptureFixture[str]) -> None:
    server = LocalRedis(persist=True).start()
    try:
        client = redis.Redis.from_url(server.url)
        client.set("k", "v")
        stack = _stack(server, client)
        before = _aof_rewrites(stack)
        assert before is not None
        mark = _rewrite_mark(stack)
        assert mark == (before[0], False) and not met_a_rewrite(mark, _rewrite_mark(stack))
        client.bgrewriteaof()
        deadline = time.monotonic() + 20
        while (
            client.info("persistence")["aof_rewrite_in_progress"] or client.info("persistence")["aof_rewrite_scheduled"]
        ):
            assert time.monotonic() < deadline, "the AOF rewrite did not finish"
            time.sleep(0.05)
        after = _aof_rewrites(stack)
        assert after is not None and after[0] == before[0] + 1, (before, after)
        assert met_a_rewrite(mark, _rewrite_mark(stack))  # a probe across it met the rewrite
        info = client.info("server") | client.info("memory")
        server_named = server_build(client)
        # the build is named as the server reports it: its version and allocator
        assert str(info.get("valkey_version") or info["redis_version"]) in server_named
        assert str(info["mem_allocator"]) in server_named
        _print_redis_persistence(True, before, after, server_named)
        out = capsys.readouterr().out.strip()
        assert out.startswith(
            f"the embedded Redis ({server_named}) appended every write to its AOF (fsync every second) "
            "and rewrote it 1 time while probing"
        )
        assert out.endswith(f"for {after[1]:.1f} ms)")
    finally:
        server.stop()


def test_a_redis_in_memory_only_or_not_the_benchs_own_has_no_rewrites_to_count(
    capsys: pytest.CaptureFixture[str],
) -> None:
    server = LocalRedis(persist=False).start()
    try:
        client = redis.Redis.from_url(server.url)
        assert _aof_rewrites(_stack(server, client)) is None
        assert _aof_rewrites(_stack(None, client)) is None  # an external Redis: not asked
        assert _rewrite_mark(_stack(server, client)) is None and _rewrite_mark(_stack(None, client)) is None
        _print_redis_persistence(True, None, None)
        assert capsys.readouterr().out.strip() == "the embedded Redis kept its state in memory only (--redis memory)"
        _print_redis_persistence(False, None, None)  # a configured Redis: its persistence is its own
        assert capsys.readouterr().out == ""
    finally:
        server.stop()
