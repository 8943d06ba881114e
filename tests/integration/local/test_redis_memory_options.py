"""The embedded Redis keeps a user's small hashes compact (slotstream/local/redis_server.py,
MEMORY_OPTIONS): records and read-model rows of a few hundred bytes stay in one listpack, where
Redis's default setting (values up to 64 bytes) would give each field and value an allocation."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import redis

from slotstream.bench.memory import preference
from slotstream.local.redis_server import LocalRedis
from slotstream.memory.models import OpIn
from slotstream.state.engine import Engine
from slotstream.state.keys import Keys

pytestmark = pytest.mark.integration

T0 = datetime(2026, 1, 5, 9, tzinfo=UTC)


def write_user(client: redis.Redis, namespace: str) -> tuple[int, Keys]:
    """One user's 20 records and a correction of each; the keys' bytes (MEMORY USAGE)."""
    engine = Engine(client, namespace=namespace)
    applied = engine.apply_many([OpIn(at=T0, op_id=f"u:{i}", record=preference("u", i)) for i in range(20)])
    fixes = [
        {"op": "correct", "tenant": "bench-memory", "user": "u", "record_id": r.record_ids[0], "value": f"fixed {n}"}
        for n, r in enumerate(applied)
    ]
    engine.apply_many([OpIn(at=T0 + timedelta(days=1), op_id=f"fix:{n}", command=c) for n, c in enumerate(fixes)])
    keys = Keys(namespace)
    held = sum(int(client.memory_usage(k, samples=0) or 0) for k in client.scan_iter(match=f"{namespace}:*"))
    return held, keys


def test_a_users_records_and_rows_stay_compact_on_the_embedded_server() -> None:
    with LocalRedis(persist=False) as local:
        client = redis.Redis.from_url(local.url)
        assert client.config_get("hash-max-listpack-value") == {"hash-max-listpack-value": "1024"}
        compact, keys = write_user(client, "compact")
        for key in (keys.records("bench-memory", "u"), keys.active("bench-memory", "u", "global")):
            assert client.object("encoding", key) == b"listpack", key

        client.config_set("hash-max-listpack-value", 64)  # Redis's default
        spread, keys = write_user(client, "spread")
        assert client.object("encoding", keys.records("bench-memory", "u")) == b"hashtable"
        # the same state, read the same, in fewer bytes
        a = Engine(client, namespace="compact").records("bench-memory", "u")
        b = Engine(client, namespace="spread").records("bench-memory", "u")
        assert sorted(r.model_dump_json() for r in a) == sorted(r.model_dump_json() for r in b)
        assert compact < 0.95 * spread, (compact, spread)
