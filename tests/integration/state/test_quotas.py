"""Tenant quotas on a real Redis: the GCRA arithmetic of quota.lua with controlled costs, one count
shared by limiters in separate processes, and what a limiter does while Redis does not answer.

Rates here are tiny (one unit per 1,000 s) wherever a count is asserted: nothing refills while the
test runs, however slow the machine, so the counts are exact."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from slotstream.local.redis_server import free_port
from slotstream.sidecar.errors import RateLimited, TooLarge
from slotstream.sidecar.ratelimit import INGEST, REQUESTS, SharedLimiter
from slotstream.state.client import connect_async
from slotstream.state.keys import quota_key
from slotstream.state.quotas import QUOTA_SCRIPT, Quota, take

pytestmark = pytest.mark.integration
STILL = 0.001  # units a second: one per 1,000 s


def limiter(url: str, base: str, burst: float, processes: int = 2, ingest_burst: float = 100.0) -> SharedLimiter:
    made = SharedLimiter(base, Quota(STILL, burst), Quota(STILL, ingest_burst), processes)
    made.connect(connect_async(url))
    return made


def test_costs_are_taken_from_the_burst_and_a_refusal_takes_nothing(redis_url: str) -> None:
    quota, key = Quota(STILL, 10), quota_key(f"q-{uuid.uuid4().hex[:8]}", "t1", INGEST)

    async def run() -> list[Any]:
        client = connect_async(redis_url)
        try:
            return [await take(client, key, quota, cost) for cost in (4, 4, 3, 2, 1)]
        finally:
            await client.aclose()

    first, second, third, fourth, fifth = asyncio.run(run())
    assert (first.allowed, first.left) == (True, 6)
    assert (second.allowed, second.left) == (True, 2)
    # refused: 3 more need one unit the burst no longer holds, 1,000 s at this rate
    assert not third.allowed and 990 < third.wait <= 1000
    assert (fourth.allowed, fourth.left) == (True, 0), "the refused 3 took nothing: 2 still fit"
    assert not fifth.allowed and 990 < fifth.wait <= 1000


def test_the_bucket_refills_at_the_rate_up_to_the_burst(redis_url: str, redis_client: Any) -> None:
    quota, key = Quota(1000.0, 5), quota_key(f"q-{uuid.uuid4().hex[:8]}", "t1", REQUESTS)

    async def run() -> list[Any]:
        client = connect_async(redis_url)
        try:
            drained = await take(client, key, quota, 5)
            ttl = redis_client.pttl(key)
            await asyncio.sleep(0.05)  # 50 units' worth at this rate: the bucket is full again, no more
            refilled = await take(client, key, quota, 1)
            return [drained, ttl, refilled]
        finally:
            await client.aclose()

    drained, ttl, refilled = asyncio.run(run())
    assert (drained.allowed, drained.left) == (True, 0)
    assert 0 < ttl <= 5, "the key lapses once its arrival time is past"
    assert (refilled.allowed, refilled.left) == (True, 4), "a full bucket holds the burst, not what accrued"


def test_a_lost_script_is_loaded_again(redis_url: str, redis_client: Any) -> None:
    quota, key = Quota(STILL, 3), quota_key(f"q-{uuid.uuid4().hex[:8]}", "t1", REQUESTS)

    async def run() -> list[Any]:
        client = connect_async(redis_url)
        try:
            first = await take(client, key, quota, 1)
            await client.script_flush()
            return [first, await take(client, key, quota, 1)]
        finally:
            await client.aclose()

    first, second = asyncio.run(run())
    assert (first.left, second.left) == (2, 1)


HAMMER = """
import asyncio, json, os, sys, time
from slotstream.sidecar.errors import RateLimited
from slotstream.sidecar.ratelimit import SharedLimiter
from slotstream.state.client import connect_async
from slotstream.state.quotas import Quota

url, base, tenant, burst, attempts, go = sys.argv[1:7]
burst, attempts = float(burst), int(attempts)

async def run():
    made = SharedLimiter(base, Quota(0.001, burst), Quota(0.001, burst), 2)
    made.connect(connect_async(url))
    await made.client.ping()
    print("ready", flush=True)
    while not os.path.exists(go):
        time.sleep(0.005)
    allowed, waits = 0, []
    for _ in range(attempts):
        try:
            await made.admit(tenant)
            allowed += 1
        except RateLimited as err:
            waits.append(err.retry_after)
    await made.client.aclose()
    print(json.dumps([allowed, waits]), flush=True)

asyncio.run(run())
"""


def test_limiters_in_two_processes_share_one_count(redis_url: str, tmp_path: Path) -> None:
    """Each process alone would allow the whole burst, and half of it when each kept a share;
    together they allow it exactly once, however unevenly the requests come to them."""
    base, burst, go = f"q-{uuid.uuid4().hex[:8]}", 30, tmp_path / "go"
    attempts = [40, 10]
    procs = [
        subprocess.Popen(
            [sys.executable, "-P", "-c", HAMMER, redis_url, base, "noisy", str(burst), str(n), str(go)],
            stdout=subprocess.PIPE,
            text=True,
        )
        for n in attempts
    ]
    try:
        for proc in procs:
            assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        go.touch()  # both ask at once
        results = [json.loads(proc.communicate(timeout=120)[0]) for proc in procs]
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
    assert sum(allowed for allowed, _ in results) == burst
    waits = [wait for _, proc_waits in results for wait in proc_waits]
    assert len(waits) == sum(attempts) - burst and all(0 < wait <= 1000 for wait in waits)

    async def other_tenant() -> int:
        made = limiter(redis_url, base, burst)
        allowed = 0
        for _ in range(burst):
            await made.admit("quiet")
            allowed += 1
        assert made.client is not None
        await made.client.aclose()
        return allowed

    assert asyncio.run(other_tenant()) == burst, "another tenant still has its whole burst"


def test_ids_with_separators_keep_counts_of_their_own(redis_url: str) -> None:
    base = f"q-{uuid.uuid4().hex[:8]}"
    tenants = ["a:b", "a%3Ab", "a}b", "a{b", "a", "a:b}:requests"]
    assert len({quota_key(base, t, REQUESTS) for t in tenants}) == len(tenants)

    async def run() -> list[int]:
        made = limiter(redis_url, base, 2)
        allowed = []
        for tenant in tenants:  # each drains its own burst, and only its own
            count = 0
            for _ in range(3):
                try:
                    await made.admit(tenant)
                    count += 1
                except RateLimited:
                    pass
            allowed.append(count)
        assert made.client is not None
        await made.client.aclose()
        return allowed

    assert asyncio.run(run()) == [2] * len(tenants)


def test_a_batch_above_the_burst_is_refused_for_good(redis_url: str) -> None:
    async def run() -> None:
        made = limiter(redis_url, f"q-{uuid.uuid4().hex[:8]}", 10, ingest_burst=5)
        with pytest.raises(TooLarge) as refused:
            await made.admit("t1", INGEST, 6)
        assert refused.value.reason == "over_ingest_burst" and refused.value.status == 413
        await made.admit("t1", INGEST, 5)
        with pytest.raises(RateLimited) as limited:
            await made.admit("t1", INGEST, 1)
        assert limited.value.reason == "ingest_rate_limited" and limited.value.retry_after > 0
        assert made.client is not None
        await made.client.aclose()

    asyncio.run(run())


def test_without_redis_each_process_keeps_its_share() -> None:
    """Redis does not answer: no error, and no unlimited traffic either — this process's share."""

    async def run() -> tuple[int, int]:
        made = limiter(f"redis://127.0.0.1:{free_port()}/0", "q-down", 10, processes=2)
        allowed = refused = 0
        for _ in range(12):
            try:
                await made.admit("t1")
                allowed += 1
            except RateLimited:
                refused += 1
        assert made.client is not None
        await made.client.aclose()
        return allowed, refused

    assert asyncio.run(run()) == (5, 7)


def test_a_lookup_carries_its_decision_in_its_read(redis_url: str, engine: Any) -> None:
    """The request rate taken with the context read (in the same pipeline), once, also when the
    server lacks the read's script (the pipeline is sent again without the decision) or both;
    refused, the lookup raises before it answers."""
    from slotstream.memory.models import ContextRequest
    from slotstream.state.reader import AsyncReader

    async def run() -> list[str]:
        client = connect_async(redis_url)
        made = limiter(redis_url, f"q-{uuid.uuid4().hex[:8]}", 2)
        reader = AsyncReader(client, engine.keys.namespace)
        req = ContextRequest(tenant="t1", user="u1", text="anything")
        await client.script_flush()
        await client.script_load(QUOTA_SCRIPT.source)  # the quota script alone
        seen = []
        for flush in (False, True, False):
            if flush:
                await client.script_flush()
            try:
                await reader.context(req, "2026-01-05T09:00:00Z", made.admission("t1"))
                seen.append("answered")
            except RateLimited as err:
                seen.append(err.reason)
        await client.aclose()
        assert made.client is not None
        await made.client.aclose()
        return seen

    assert asyncio.run(run()) == ["answered", "answered", "rate_limited"]


def test_a_redis_that_refuses_writes_leaves_each_process_its_share() -> None:
    """Out of memory (every write refused, reads served): the lookups still answer, and the
    quotas fall back to this process's share rather than fail or let everything through."""
    from slotstream.local.redis_server import LocalRedis
    from slotstream.memory.models import ContextRequest
    from slotstream.state.reader import AsyncReader

    async def run(url: str) -> tuple[list[str], int]:
        client = connect_async(url)
        await client.config_set("maxmemory-policy", "noeviction")
        await client.config_set("maxmemory", "1")
        made = limiter(url, "q-full", 6, processes=2)  # a share of 3 requests
        reader = AsyncReader(client, "q-full")
        req = ContextRequest(tenant="t1", user="u1", text="anything")
        seen = []
        for _ in range(4):
            try:
                await reader.context(req, "2026-01-05T09:00:00Z", made.admission("t1"))
                seen.append("answered")
            except RateLimited as err:
                seen.append(err.reason)
        ingested = 0
        for _ in range(60):
            try:
                await made.admit("t1", INGEST, 1)
                ingested += 1
            except RateLimited:
                pass
        await client.aclose()
        assert made.client is not None
        await made.client.aclose()
        return seen, ingested

    with LocalRedis(persist=False) as local:
        seen, ingested = asyncio.run(run(local.url))
    assert seen == ["answered"] * 3 + ["rate_limited"]
    assert ingested == 50, "the ingest burst of 100, halved"
