"""`slotstream bench memory`: what the state costs in Redis's RAM, per record and by key kind.

Through the engine, into a namespace of its own: `users` users with `records` preference records
each (a statement of about 40 characters, one evidence quote), then one correction of every record.
Prints Redis's used_memory before and after each step, bytes per record and per live record with
one superseded version, and the bytes by key kind (MEMORY USAGE of every key of the namespace).
Prints figures; asserts nothing.
"""

from __future__ import annotations

import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

import redis

from slotstream.config.settings import Settings
from slotstream.eval.scenarios import fresh_namespace
from slotstream.local.redis_server import configured_or_local
from slotstream.memory.models import OpIn
from slotstream.state.keys import Keys
from slotstream.state.namespaces import drop_namespace, used_memory

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
TENANT = "bench-memory"
TOPICS = ("tea", "coffee", "music", "travel", "books", "sport", "cooking", "cinema", "garden", "games")
BATCH = 500


def preference(user: str, i: int) -> dict[str, Any]:
    topic = TOPICS[i % len(TOPICS)]
    return {
        "tenant": TENANT,
        "user": user,
        "kind": "preference",
        "attribute": f"preference.{topic}_{i}",
        "value": f"{topic} style {i}",
        "statement": f"I really like {topic} in the style number {i}.",
        "evidence": [{"source_type": "conversation", "source_id": f"turn-{i}", "quote": f"I like {topic} {i}"}],
    }


def key_kind(key: str) -> str:
    """The kind of one of the namespace's keys: the name part after its hash tag (`rec`, `ixt`,
    `act`, ... for a user's keys; `progress`, `due`, ... for the namespace's bookkeeping)."""
    _, closed, rest = key.partition("}:")
    return rest.split(":", 1)[0] if closed else key


def bytes_by_kind(client: redis.Redis, namespace: str) -> tuple[Counter[str], Counter[str]]:
    keys = Keys(namespace)
    names = [k.decode() if isinstance(k, bytes) else str(k) for k in client.scan_iter(match=keys.pattern(), count=5000)]
    size: Counter[str] = Counter()
    count: Counter[str] = Counter()
    for start in range(0, len(names), 1000):
        chunk = names[start : start + 1000]
        pipe = client.pipeline(transaction=False)
        for name in chunk:
            pipe.memory_usage(name, samples=0)
        for name, used in zip(chunk, pipe.execute(), strict=True):
            kind = key_kind(name)
            size[kind] += int(used or 0)
            count[kind] += 1
    return size, count


def _apply(engine: Any, ops: list[OpIn]) -> list[Any]:
    out = []
    for start in range(0, len(ops), BATCH):
        out += engine.apply_many(ops[start : start + BATCH])
    return out


def run_memory_bench(settings: Settings, users: int, records: int, listpack_value: int | None = None) -> int:
    from slotstream.state.engine import Engine

    with configured_or_local(settings) as client:
        if listpack_value is not None:
            client.config_set("hash-max-listpack-value", listpack_value)
        info = client.info("server")
        setting = client.config_get("hash-max-listpack-value").get("hash-max-listpack-value")
        server = (
            f"{info.get('server_name', 'redis').capitalize()} {info.get('valkey_version') or info.get('redis_version')}"
        )
        print(f"{server}, hash-max-listpack-value {setting}")
        namespace = fresh_namespace("mem")
        engine = Engine(client, namespace=namespace)
        try:
            before = used_memory(client)
            started = time.perf_counter()
            ops = [
                OpIn(at=T0, op_id=f"u{u}:{i}", record=preference(f"u{u}", i))
                for u in range(users)
                for i in range(records)
            ]
            applied = _apply(engine, ops)
            loaded = used_memory(client)
            load_s = time.perf_counter() - started
            ids = [r.record_ids[0] for r in applied if r.record_ids]
            corrections = [
                OpIn(
                    at=T0 + timedelta(days=1),
                    op_id=f"fix:{n}",
                    command={
                        "op": "correct",
                        "tenant": TENANT,
                        "user": op.record["user"] if op.record else "",
                        "record_id": rid,
                        "value": f"corrected {n}",
                    },
                )
                for n, (op, rid) in enumerate(zip(ops, ids, strict=True))
            ]
            _apply(engine, corrections)
            corrected = used_memory(client)
            n = users * records
            print(
                f"{users:,} users x {records} records = {n:,} records ({len(ids):,} applied), loaded in {load_s:.1f} s"
            )
            print(f"used_memory: {before:,} B before, {loaded:,} B loaded, {corrected:,} B after one correction each")
            print(f"  per record: {(loaded - before) / n:,.0f} B")
            print(f"  per live record with one superseded version: {(corrected - before) / n:,.0f} B")
            size, count = bytes_by_kind(client, namespace)
            print(f"\n{'key kind':<12} {'keys':>10} {'MB':>9} {'B per record':>13}")
            for kind, used in size.most_common():
                print(f"{kind:<12} {count[kind]:>10,} {used / 1e6:>9.1f} {used / n:>13,.0f}")
            total = sum(size.values())
            print(f"{'all':<12} {sum(count.values()):>10,} {total / 1e6:>9.1f} {total / n:>13,.0f}")
            print(
                "\nMB: MEMORY USAGE of each key (what the key and its value hold; used_memory also counts the keyspace)"
            )
        finally:
            drop_namespace(client, namespace)
    return 0
