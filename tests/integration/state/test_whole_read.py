"""A whole read without the script, on a real Redis (state/reader.py, `queue_whole`): once a user's
scopes were small at a lookup, the next lookups read them whole in one transaction and answer
exactly as context.lua's whole read does, through corrections, forgets, expiry and three scopes; a scope
grown past the threshold is read whole once more (counted) and then through the index; a user
written before rsup existed is read by the script, which filters its suppressions; the async reader
does the same, with and without its cache (on a cluster it keeps the script: its first round trip
also reads the deployment pointer, in another hash slot)."""

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
from slotstream.state.reader import AsyncReader, ContextRead

from support import record

pytestmark = pytest.mark.integration

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
LATER = T0 + timedelta(days=2)
ATTRIBUTES = ["knowledge.editor", "knowledge.database", "profile.home_city", "preference.language", "goal.main"]
WORDS = ["editor", "database", "city", "lyon", "postgres", "vim", "budget"]


def op(op_id: str, minutes: int, body: dict[str, Any], command: bool = False) -> dict[str, Any]:
    return {"at": iso(T0 + timedelta(minutes=minutes)), "op_id": op_id, ("command" if command else "record"): body}


def script_calls(engine: Engine) -> list[int]:
    """The engine's context.lua calls, one entry each, from now on."""
    calls: list[int] = []
    script = engine._context

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return script(*args, **kwargs)

    engine._context = counting  # type: ignore[assignment]
    return calls


def random_write(rng: random.Random, step: int, user: str = "u1") -> dict[str, Any]:
    if step > 10 and rng.random() < 0.08:
        forget = {"op": "forget", "tenant": "t1", "user": user, "match": {"attribute": rng.choice(ATTRIBUTES)}}
        return op(f"o{step}", step, forget, command=True)
    extra: dict[str, Any] = {}
    if rng.random() < 0.3:
        extra["scope"] = rng.choice(["project:p1", "session:s1"])
    if rng.random() < 0.2:
        extra["corrects_current"] = True
    if rng.random() < 0.15:
        extra["valid_until"] = iso(T0 + timedelta(hours=rng.randrange(1, 96)))
    value = f"{rng.choice(WORDS)} {rng.choice(WORDS)} {step}"
    return op(f"o{step}", step, record("t1", user, rng.choice(ATTRIBUTES), value, **extra))


REQUESTS = [
    ContextRequest(tenant="t1", user="u1", text="editor city", max_items=5),
    ContextRequest(tenant="t1", user="u1", text="database budget", project="p1", max_items=3),
    ContextRequest(tenant="t1", user="u1", text="", project="p1", session="s1", max_items=8),
    # explain lists every row's fate, so it is always read whole: the first time too
    ContextRequest(tenant="t1", user="u1", text="editor database", session="s1", max_items=4, explain=True),
]
SCRIPTED = [req for req in REQUESTS if not req.explain]


def test_after_its_first_lookup_a_small_user_is_read_whole_without_the_script(redis_client, namespace):
    writer = Engine(redis_client, namespace)
    reader = Engine(redis_client, namespace)
    calls = script_calls(reader)
    rng = random.Random(8)
    for step in range(120):
        assert writer.apply(random_write(rng, step)).outcome in ("applied", "noop", "rejected")
        req = rng.choice(REQUESTS)
        when = T0 + timedelta(hours=rng.randrange(0, 120))
        # a new engine knows no user: its lookup is the script's whole read
        expected = Engine(redis_client, namespace).context(req, when)
        assert reader.context(req, when).model_dump() == expected.model_dump(), (step, req)
    assert len(calls) == len(SCRIPTED)  # each set of scopes' first lookup only
    assert reader.read_stats.whole_small == 120 and len(reader.small_scopes) == len(REQUESTS)


def test_a_scope_grown_past_the_threshold_is_read_whole_once_then_through_the_index(redis_client, namespace):
    engine = Engine(redis_client, namespace, read_whole_up_to=20)
    whole = Engine(redis_client, namespace, read_whole_up_to=1 << 62)
    calls = script_calls(engine)
    rng = random.Random(3)
    engine.apply_many([random_write(rng, step, "grows") for step in range(12)])
    req = ContextRequest(tenant="t1", user="grows", text="editor lyon", max_items=3)
    assert engine.context(req, LATER) == whole.context(req, LATER)
    assert engine.read_stats.whole_small == 1 and len(calls) == 1

    for step in range(12, 80):
        body = record("t1", "grows", f"knowledge.item_{step}", f"{rng.choice(WORDS)} {step}")
        engine.apply(op(f"o{step}", step, body))
    assert engine.context(req, LATER) == whole.context(req, LATER)
    assert engine.read_stats.whole_grown == 1 and len(calls) == 1  # read whole on the last size

    assert engine.context(req, LATER) == whole.context(req, LATER)
    stats = engine.read_stats
    assert stats.indexed + stats.uncertified == 1 and len(calls) == 2 and len(engine.small_scopes) == 0


def test_a_user_written_before_rsup_existed_is_read_by_the_script(redis_client, namespace):
    engine = Engine(redis_client, namespace)
    calls = script_calls(engine)
    versions = [
        op(f"v{i}", i, record("t1", "old", "preference.language", f"lang {i}", corrects_current=i > 0))
        for i in range(12)
    ]
    forget = {"op": "forget", "tenant": "t1", "user": "old", "match": {"attribute": "goal.main"}}
    engine.apply_many([*versions, op("f", 30, forget, command=True)])
    req = ContextRequest(tenant="t1", user="old", text="language", max_items=4, explain=False)
    expected = engine.context(req, LATER)
    assert expected.used_ids and len(calls) == 1

    # as state written before rsup existed: every suppression, corrected away or not, in sup only
    redis_client.delete(engine.keys.read_suppressions("t1", "old"))
    redis_client.hdel(engine.keys.meta("t1", "old"), "rsup")
    assert engine.context(req, LATER) == expected
    assert len(calls) == 2  # the transaction saw no rsup and left the lookup to the script


def test_the_whole_read_takes_the_stamp_the_read_suppressions_and_the_rows(redis_client, namespace):
    """What the transaction reads: the stamp, the suppressions selection reads (not the one a
    correction left) and the rows."""
    engine = Engine(redis_client, namespace)
    engine.apply(op("a", 0, record("t1", "snap", "knowledge.editor", "vim")))
    engine.apply(op("b", 1, record("t1", "snap", "knowledge.editor", "helix", corrects_current=True)))
    forget = {"op": "forget", "tenant": "t1", "user": "snap", "match": {"attribute": "goal.main"}}
    engine.apply(op("c", 2, forget, command=True))
    assert redis_client.hlen(engine.keys.suppressions("t1", "snap")) == 2
    req = ContextRequest(tenant="t1", user="snap", text="editor")
    read = ContextRead(engine.keys, req, LATER, None)
    pipe = redis_client.pipeline(transaction=True)
    read.queue_whole(pipe)
    (version, written, complete), sups, *rows = pipe.execute()
    meta = redis_client.hgetall(engine.keys.meta("t1", "snap"))
    assert (version, written, complete) == (meta[b"version"], meta[b"written"], meta[b"rsup"])
    assert sups == redis_client.hgetall(engine.keys.read_suppressions("t1", "snap")) and len(sups) == 1
    assert [len(scope_rows) for scope_rows in rows] == [1]


def test_the_async_reader_reads_a_small_user_whole_with_and_without_its_cache(
    redis_client: redis.Redis, redis_url: str, namespace: str
) -> None:
    writer = Engine(redis_client, namespace)
    rng = random.Random(4)
    writer.apply_many([random_write(rng, step) for step in range(20)])

    async def run(cache: ContextCache | None) -> tuple[int, int, bool]:
        client = connect_async(redis_url)
        reader = AsyncReader(client, namespace, cache)
        scripts = 0
        queue_read = reader._queue_read

        def counting(pipe: Any, read: ContextRead, whole: bool = False) -> None:
            nonlocal scripts
            scripts += 1
            queue_read(pipe, read, whole)

        reader._queue_read = counting  # type: ignore[method-assign]
        try:
            for step in range(20, 60):
                writer.apply(random_write(rng, step))
                for req in REQUESTS:
                    expected = Engine(redis_client, namespace).context(req, LATER)
                    assert (await reader.context(req, LATER)).model_dump() == expected.model_dump(), step
            return scripts, reader.stats.whole_small, reader.cluster
        finally:
            await client.aclose()

    lookups = 40 * len(REQUESTS)
    scripts, whole_reads, cluster = asyncio.run(run(None))
    # on a cluster the first round trip carries the deployment pointer, in another hash slot than
    # the user's keys: no transaction, the script reads every time
    assert (scripts, whole_reads) == (lookups if cluster else len(SCRIPTED), lookups)
    cache = ContextCache(10_000)
    scripts, whole_reads, cluster = asyncio.run(run(cache))
    # with the cache, a lookup after a write finds its stamp stale and reads whole, not by the script
    assert whole_reads == lookups - cache.hits
    assert scripts == (lookups - cache.hits if cluster else len(SCRIPTED))
