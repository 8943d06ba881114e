"""The state digest: equal for equal state however it was delivered, different for any difference."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import redis

from slotstream.memory.models import iso
from slotstream.state.digest import digest_namespace
from slotstream.state.engine import Engine

pytestmark = pytest.mark.integration
T0 = datetime(2026, 10, 1, tzinfo=UTC)


def ops(n: int, tenant: str = "t") -> list[dict[str, Any]]:
    out = []
    for i in range(n):
        out.append(
            {
                "at": iso(T0 + timedelta(minutes=i)),
                "op_id": f"op{i}",
                "record": {
                    "tenant": tenant,
                    "user": f"u{i % 3}",
                    "kind": "knowledge",
                    "attribute": f"knowledge.k{i % 4}",
                    "value": f"v{i % 5}",
                },
            }
        )
    return out


def test_same_input_same_digest_whatever_the_batches_and_redeliveries(
    redis_client: redis.Redis, namespace: str, other_namespace: str
) -> None:
    Engine(redis_client, namespace).apply_many(ops(30))
    other = Engine(redis_client, other_namespace)
    for i in range(0, 30, 7):
        other.apply_many(ops(30)[i : i + 7])
    other.apply_many(ops(30)[:12])  # redelivered: duplicates
    a, b = digest_namespace(redis_client, namespace), digest_namespace(redis_client, other_namespace)
    assert a.digest == b.digest and (a.users, a.records) == (b.users, b.records)
    assert a.users == 3 and a.per_tenant == {"t": {"users": 3, "records": a.records}}


def test_any_difference_changes_the_digest(redis_client: redis.Redis, namespace: str, other_namespace: str) -> None:
    Engine(redis_client, namespace).apply_many(ops(30))
    Engine(redis_client, other_namespace).apply_many(ops(29))
    assert digest_namespace(redis_client, namespace).digest != digest_namespace(redis_client, other_namespace).digest
