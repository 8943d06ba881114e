"""ExpiryService on a real Redis: what is due, by each user's own event-time clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import orjson
import pytest
import redis

from slotstream.memory.models import iso, to_ms
from slotstream.processors.expiry import ExpiryService
from slotstream.state.engine import Engine
from slotstream.state.expiry_index import DueEntry, DueIndex
from slotstream.state.progress import Progress

pytestmark = pytest.mark.integration
T0 = datetime(2026, 10, 1, 9, tzinfo=UTC)
TOPIC = "x.ops"


def setup(
    client: redis.Redis, namespace: str, until: dict[str, datetime], users_at: dict[str, datetime]
) -> tuple[ExpiryService, dict[str, str]]:
    engine = Engine(client, namespace)
    due = DueIndex(client, namespace)
    progress = Progress(client, namespace)
    progress.claim({})
    ids = {}
    for user, when in until.items():
        (res,) = engine.apply_many(
            [
                {
                    "at": iso(T0),
                    "op_id": f"{user}-1",
                    "record": {
                        "tenant": "t",
                        "user": user,
                        "kind": "priority",
                        "attribute": "priority.focus",
                        "value": "ship",
                        "valid_until": iso(when),
                    },
                }
            ]
        )
        ids[user] = res.record_ids[0]
        due.update([(0, DueEntry("t", user, ids[user], "expire"), to_ms(when))], [])
    for user, at in users_at.items():  # a later event moves that user's clock
        engine.apply_many(
            [
                {
                    "at": iso(at),
                    "op_id": f"{user}-2",
                    "record": {
                        "tenant": "t",
                        "user": user,
                        "kind": "knowledge",
                        "attribute": "knowledge.x",
                        "value": "y",
                    },
                }
            ]
        )
    progress.advance(TOPIC, {0: 1}, {0: to_ms(max(users_at.values()))})
    return ExpiryService(engine, progress, due, TOPIC), ids


def test_each_users_own_clock_decides(redis_client: redis.Redis, namespace: str) -> None:
    sweep, ids = setup(
        redis_client,
        namespace,
        until={"ann": T0 + timedelta(hours=1), "bob": T0 + timedelta(hours=1)},
        users_at={"ann": T0 + timedelta(hours=3), "bob": T0},
    )
    ops = [orjson.loads(v) for _, v in sweep.sweep([0])]
    assert [op["command"]["user"] for op in ops] == ["ann"], "bob's clock has not reached his record"
    (op,) = ops
    assert op["op_id"] == f"expire:{ids['ann']}:{to_ms(T0 + timedelta(hours=1))}"  # repeatable: a duplicate
    assert op["at"] == iso(T0 + timedelta(hours=1))  # the due moment, not the wall clock
    assert sweep.sweep([1]) == [], "only the partitions asked for"


def test_entries_not_due_for_their_user_do_not_hide_later_ones(redis_client: redis.Redis, namespace: str) -> None:
    until = {f"idle{i}": T0 + timedelta(minutes=10) for i in range(12)}
    until["late"] = T0 + timedelta(hours=1)
    sweep, ids = setup(redis_client, namespace, until=until, users_at={"late": T0 + timedelta(hours=2)})
    sweep.batch = 5  # pages of 5: the twelve idle users' entries come first
    ops = [orjson.loads(v) for _, v in sweep.sweep([0])]
    assert [op["command"]["record_id"] for op in ops] == [ids["late"]]
