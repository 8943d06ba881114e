"""The context cache on a real Redis: a cached lookup answers exactly as an uncached one after any
write (by this engine or another process), after an erase, and after a Redis that lost its last
writes comes back with the version climbing to the cached number again; its bound holds."""

from __future__ import annotations

import asyncio
import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import redis

from slotstream.memory.models import ContextRequest, iso
from slotstream.state.client import connect_async
from slotstream.state.context_cache import ContextCache
from slotstream.state.engine import Engine
from slotstream.state.reader import AsyncReader

from support import record

pytestmark = pytest.mark.integration

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
LATER = T0 + timedelta(days=30)


def op(op_id: str, minutes: int, body: dict[str, Any], command: bool = False) -> dict[str, Any]:
    return {"at": iso(T0 + timedelta(minutes=minutes)), "op_id": op_id, ("command" if command else "record"): body}


def request(user: str = "u1", **extra: Any) -> ContextRequest:
    return ContextRequest(tenant="t1", user=user, text="editor database city", max_items=50, explain=True, **extra)


def answer(engine: Engine, req: ContextRequest) -> tuple[str, list[str], list[Any]]:
    resp = engine.context(req, LATER)
    return resp.context, resp.used_ids, resp.excluded


def test_cached_lookups_answer_as_uncached_ones_through_any_sequence_of_writes(
    redis_client: redis.Redis, namespace: str
) -> None:
    plain = Engine(redis_client, namespace)
    cached = Engine(redis_client, namespace, context_cache=ContextCache(10_000))
    writer = Engine(redis_client, namespace)  # another process's writes, as far as `cached` knows
    rng = random.Random(5)
    requests = [request(), request(project="p1"), request(session="s1"), request(project="p1", session="s1")]
    attributes = ["knowledge.editor", "knowledge.database", "profile.home_city", "preference.language"]
    live: list[str] = []
    for step in range(150):
        kind = rng.random()
        if kind < 0.6 or not live:
            scope = rng.choice([{}, {"scope": "project:p1"}, {"scope": "session:s1"}])
            body = record("t1", "u1", rng.choice(attributes), f"v{step}", id=f"r{step}", **scope)
            writer.apply(op(f"o{step}", step, body))
            live.append(f"r{step}")
        elif kind < 0.8:
            target = rng.choice(live)
            forget = {"op": "forget", "tenant": "t1", "user": "u1", "record_id": target}
            writer.apply(op(f"o{step}", step, forget, True))
        elif kind < 0.95:
            target = rng.choice(live)
            command = {"op": "correct", "tenant": "t1", "user": "u1", "record_id": target, "value": f"c{step}"}
            writer.apply(op(f"o{step}", step, command, True))
        else:
            writer.apply(op(f"o{step}", step, {"op": "erase_user", "tenant": "t1", "user": "u1"}, True))
            live.clear()
        for req in rng.sample(requests, 2):
            assert answer(cached, req) == answer(plain, req), f"step {step}"
    cache = cached.context_cache
    assert cache is not None and cache.hits > 0 and cache.misses > 0, "both paths were taken"
    hits = cache.hits
    for req in requests:  # nothing written since: served from the cache, same answers
        assert answer(cached, req) == answer(plain, req)
    assert cache.hits == hits + len(requests)


def test_a_rewound_user_state_is_not_mistaken_for_the_cached_one(redis_client: redis.Redis, namespace: str) -> None:
    """Redis restarted without its last writes: the version climbs back to the cached number
    with other content. The write time in the stamp tells them apart."""
    cached = Engine(redis_client, namespace, context_cache=ContextCache(10_000))
    writer = Engine(redis_client, namespace)
    writer.apply(op("o1", 0, record("t1", "u1", "knowledge.editor", "vim")))
    user_keys = sorted(redis_client.scan_iter(match=f"{namespace}:*"))
    snapshot = {key: redis_client.dump(key) for key in user_keys}
    writer.apply(op("o2", 1, record("t1", "u1", "knowledge.database", "postgres")))
    assert "postgres" in cached.context(request(), LATER).context  # now cached at version 2
    for key in redis_client.scan_iter(match=f"{namespace}:*"):  # the crash: back to the snapshot
        redis_client.delete(key)
    for key, value in snapshot.items():
        redis_client.restore(key, 0, value)
    Engine(redis_client, namespace).apply(op("o3", 2, record("t1", "u1", "profile.home_city", "Oslo")))
    version = redis_client.hget(f"{cached.keys.meta('t1', 'u1')}", "version")
    assert version == b"2", "the version is back at the cached number"
    got = cached.context(request(), LATER).context
    assert "Oslo" in got and "postgres" not in got


def test_the_bound_holds_and_a_user_larger_than_it_is_not_cached(redis_client: redis.Redis, namespace: str) -> None:
    cache = ContextCache(max_records=60)
    engine = Engine(redis_client, namespace, context_cache=cache)
    for user, n in (("small", 20), ("medium", 30), ("huge", 80)):
        engine.apply_many([op(f"{user}{i}", i, record("t1", user, f"knowledge.k{i}", f"v{i}")) for i in range(n)])
    for user in ("small", "medium", "huge"):
        engine.context(request(user), LATER)
    assert cache.held <= 60
    engine.context(request("huge"), LATER)
    engine.context(request("small"), LATER)
    engine.context(request("medium"), LATER)
    assert cache.hits == 2, "small and medium were served from the cache, huge never is"
    engine.apply_many([op(f"big{i}", 100 + i, record("t1", "big2", f"knowledge.k{i}", "v")) for i in range(45)])
    engine.context(request("big2"), LATER)  # evicts the least recently used (small)
    assert cache.held <= 60
    before = cache.hits
    engine.context(request("small"), LATER)
    assert cache.hits == before


def test_the_async_reader_uses_the_cache_and_sees_other_writers(
    redis_client: redis.Redis, redis_url: str, namespace: str
) -> None:
    writer = Engine(redis_client, namespace)
    writer.apply(op("o1", 0, record("t1", "u1", "knowledge.editor", "vim")))
    cache = ContextCache(1_000)

    async def run() -> list[str]:
        client = connect_async(redis_url)
        reader = AsyncReader(client, namespace, cache)
        seen = [(await reader.context(request(), LATER)).context, (await reader.context(request(), LATER)).context]
        writer.apply(op("o2", 1, record("t1", "u1", "knowledge.editor", "helix", corrects_current=True)))
        seen.append((await reader.context(request(), LATER)).context)
        await client.aclose()
        return seen

    first, second, after = asyncio.run(run())
    assert first == second and "vim" in first and cache.hits == 1
    assert "helix" in after and "vim" not in after.replace("helix", "")
