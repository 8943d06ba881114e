"""Deletion and erasure against the log: payloads sealed with per-user keys, an erasure shreds the
user's keys, and neither a full replay nor a replay of a later range brings back what the user
forgot or erased."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
import pytest
import redis

from slotstream.local.stack import LocalStack
from slotstream.memory.sealing import is_sealed
from slotstream.ops.replay import replay
from slotstream.state.digest import digest_namespace, user_state
from slotstream.state.keys import Keys, user_data_keys
from slotstream.state.namespaces import drop_namespace
from slotstream.state.progress import Progress
from slotstream.streams.log_reader import Bound
from slotstream.streams.topics import KEYS, OPS, TURNS, user_key

from support import read_topic, record, start_stack, wait_until

pytestmark = [pytest.mark.kafka, pytest.mark.integration]
T0 = datetime(2026, 10, 1, 9, 0, tzinfo=UTC)
ERASED_TEXT = "I live in Reykjavik"


@pytest.fixture(scope="module")
def erased(
    kafka_bootstrap: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory, default_runtime: str
) -> Iterator[LocalStack]:
    """A pipeline where one user forgot a value and another was erased, everything processed."""
    name = f"er-{uuid.uuid4().hex[:6]}"
    logs = tmp_path_factory.mktemp("erasure-logs")
    stack = start_stack(
        redis_url, kafka_bootstrap, name, logs, workers=1, compaction_lag_ms=1000, runtime=default_runtime
    )
    tenant = stack.settings.namespace
    send = stack.producer
    at = lambda n: T0 + timedelta(minutes=n)  # noqa: E731 - a short clock for the script below
    # kept: a user who states things and forgets one of them; erased: everything this user said must
    # be unreadable in the topics and absent from any replay (one burst: both users' keys at once)
    send.send_turns(
        [
            (at(0), turn(tenant, "keeper", "I live in Beijing.", 0)),
            (at(1), turn(tenant, "keeper", "Please keep your answers short.", 1)),
            (at(2), turn(tenant, "keeper", "Forget that I live in Beijing.", 2)),
            (at(3), turn(tenant, "keeper", "I live in Beijing.", 3, role="assistant")),  # no evidence
            (at(0), turn(tenant, "leaver", ERASED_TEXT + ".", 0)),
        ]
    )
    # forgotten by command, then inferred again later (a suppression must hold it off)
    send.send_record(at(0), record(tenant, "editor", "knowledge.editor", "vim"), op_id="ed-0")
    send.send_command(
        at(1),
        {"op": "forget", "tenant": tenant, "user": "editor", "match": {"attribute": "knowledge.editor"}},
        op_id="ed-1",
    )
    # forgotten by record id: a replay of a later range has no record of that id to forget
    send.send_record(at(0), record(tenant, "byid", "knowledge.editor", "emacs", id="byid-editor"), op_id="bi-0")
    send.send_command(
        at(1), {"op": "forget", "tenant": tenant, "user": "byid", "record_id": "byid-editor"}, op_id="bi-1"
    )
    # forgotten, then let back in by the user (restore): a later inference is accepted again
    send.send_record(at(0), record(tenant, "lifter", "knowledge.shell", "zsh"), op_id="lf-0")
    for n, op in ((1, "forget"), (2, "restore")):
        body = {"op": op, "tenant": tenant, "user": "lifter", "match": {"attribute": "knowledge.shell", "value": "zsh"}}
        send.send_command(at(n), body, op_id=f"lf-{n}")
    send.send_record(at(1), record(tenant, "leaver", "knowledge.pet", "a cat called Mr Reykjavik"), op_id="lv-1")
    send.send_command(at(2), {"op": "erase_user", "tenant": tenant, "user": "leaver"}, op_id="lv-2")
    send.flush()
    stack.barrier()
    # the erased user's key leaves Redis once its tombstone is on the keys topic
    wait_until(lambda: not stack.client.exists(user_data_keys(tenant, "leaver")), 30, "the erased user's key gone")
    # later: the forgotten value inferred again, after the point a partial replay starts from
    send.send_record(
        at(5),
        record(tenant, "editor", "knowledge.editor", "vim", authority="system_inferred", statement="uses vim"),
        op_id="ed-2",
    )
    send.send_record(
        at(5),
        record(tenant, "lifter", "knowledge.shell", "zsh", authority="system_inferred", statement="uses zsh"),
        op_id="lf-3",
    )
    send.send_record(
        at(5),
        record(tenant, "byid", "knowledge.editor", "emacs", authority="system_inferred", statement="uses emacs"),
        op_id="bi-2",
    )
    send.flush()
    stack.barrier()
    try:
        yield stack
    finally:
        drop_namespace(stack.client, stack.settings.namespace)
        stack.stop()


def turn(tenant: str, user: str, text: str, n: int, role: str = "user") -> dict[str, Any]:
    return {"tenant": tenant, "user": user, "session": "s1", "role": role, "text": text, "turn_id": f"{user}-t{n}"}


@pytest.fixture
def target(redis_client: redis.Redis) -> Iterator[str]:
    name = f"eb-{uuid.uuid4().hex[:8]}"
    yield name
    drop_namespace(redis_client, name)


def quiet(_: str) -> None:
    return None


def test_the_live_state_holds_nothing_of_the_erased_user_and_not_the_forgotten_value(erased: LocalStack) -> None:
    tenant, keys = erased.settings.namespace, Keys(erased.settings.namespace)
    leaver = user_state(erased.client, keys, tenant, "leaver")
    assert leaver["records"] == {} and leaver["erased_at"] is not None
    keeper = user_state(erased.client, keys, tenant, "keeper")
    assert not any("Beijing" in str(r.get("value")) for r in keeper["records"].values() if r["status"] == "active")
    editor = user_state(erased.client, keys, tenant, "editor")
    # the forgotten value is wiped from its record, and its later inference was suppressed
    assert [(r["status"], r["value"]) for r in editor["records"].values()] == [("deleted", None)]


def test_every_payload_in_the_topics_is_sealed_and_the_erased_users_no_longer_open(erased: LocalStack) -> None:
    tenant = erased.settings.namespace
    for role in (TURNS, OPS):
        records = read_topic(erased, role)
        plain = [orjson.loads(r.value) for r in records if not is_sealed(r.value)]
        assert records and len(plain) < len(records)
        # only erasures go unsealed: they name the user and nothing else, and must outlive the keys
        assert all(p["command"] == {"op": "erase_user", "tenant": tenant, "user": "leaver"} for p in plain)
        assert not any(b"Reykjavik" in (r.value or b"") for r in records)  # never in clear
    leaver_key = user_key(tenant, "leaver")
    leaver = [r for role in (TURNS, OPS) for r in read_topic(erased, role) if r.key == leaver_key]
    assert len(leaver) >= 3  # the turn, its extracted op, the record, the erasure: still retained...
    assert not erased.client.exists(user_data_keys(tenant, "leaver"))  # ...but their key is gone
    tombstones = [r for r in read_topic(erased, KEYS) if r.key.startswith(f"{tenant}/leaver/".encode())]
    assert tombstones and tombstones[-1].value is None


@pytest.mark.parametrize("source", ["ops", "turns"])
def test_a_full_replay_resurrects_nothing(
    erased: LocalStack, target: str, redis_client: redis.Redis, source: str
) -> None:
    assert replay(erased.settings, target, source, show=quiet) == 0
    assert (
        digest_namespace(redis_client, target).digest
        == digest_namespace(redis_client, erased.settings.namespace).digest
    )
    leaver = user_state(redis_client, Keys(target), erased.settings.namespace, "leaver")
    assert leaver["records"] == {}
    counters = Progress(redis_client, target).counters()
    assert counters.get("dead_letters:key_shredded", 0) >= 2  # the erased user's payloads did not open


def test_a_replay_of_a_later_range_applies_the_earlier_forget_first(
    erased: LocalStack, target: str, redis_client: redis.Redis
) -> None:
    """The range starts after the forget: the control topic brings the suppression in first, and
    the later inference of the forgotten value stays out, as it did live."""
    tenant = erased.settings.namespace
    ops = [r for r in read_topic(erased, OPS) if r.key == user_key(tenant, "editor")]
    start = ops[-1]  # the inference
    bound = Bound.parse([f"ops:{start.partition}={start.offset}"])
    assert replay(erased.settings, target, "ops", start=bound, show=quiet) == 0
    editor = user_state(redis_client, Keys(target), tenant, "editor")
    assert editor["suppressions"]  # brought in from the control topic
    assert not [r for r in editor["records"].values() if r["value"] == "vim"]


def test_a_replay_of_a_later_range_applies_an_earlier_forget_by_record_id_by_its_values(
    erased: LocalStack, target: str, redis_client: redis.Redis
) -> None:
    """The forget named a record stated before the range, which the rebuilt state does not hold: its
    control entry carries the values it suppressed, and those are forgotten first instead."""
    tenant = erased.settings.namespace
    live = user_state(erased.client, Keys(tenant), tenant, "byid")
    assert not [r for r in live["records"].values() if r["value"] == "emacs"]  # held off live
    ops = [r for r in read_topic(erased, OPS) if r.key == user_key(tenant, "byid")]
    start = ops[-1]  # the inference
    bound = Bound.parse([f"ops:{start.partition}={start.offset}"])
    assert replay(erased.settings, target, "ops", start=bound, show=quiet) == 0
    byid = user_state(redis_client, Keys(target), tenant, "byid")
    assert byid["suppressions"]  # brought in from the control topic, by value
    assert not [r for r in byid["records"].values() if r["value"] == "emacs"]


def test_a_replay_of_a_later_range_applies_the_earlier_restore_too(
    erased: LocalStack, target: str, redis_client: redis.Redis
) -> None:
    """The user forgot a value and then let it back in, both before the range: the replay applies
    the forget and the restore first, so the later inference is accepted, as it was live."""
    tenant = erased.settings.namespace
    live = user_state(erased.client, Keys(tenant), tenant, "lifter")
    assert [r["value"] for r in live["records"].values() if r["status"] == "candidate"] == ["zsh"]
    ops = [r for r in read_topic(erased, OPS) if r.key == user_key(tenant, "lifter")]
    start = ops[-1]  # the inference
    bound = Bound.parse([f"ops:{start.partition}={start.offset}"])
    assert replay(erased.settings, target, "ops", start=bound, show=quiet) == 0
    lifter = user_state(redis_client, Keys(target), tenant, "lifter")
    assert not lifter["suppressions"]  # the forget's, lifted by the restore
    assert [r["value"] for r in lifter["records"].values() if r["status"] == "candidate"] == ["zsh"]


def test_the_shredded_key_leaves_the_keys_topic_after_compaction(erased: LocalStack) -> None:
    """Compaction removes the erased user's wrapped key from the broker: the next write to its
    partition rolls the segment, and the cleaner (every second on the local broker) compacts it."""
    tenant = erased.settings.namespace
    prefix = f"{tenant}/leaver/".encode()
    tombstone = next(r for r in reversed(read_topic(erased, KEYS)) if r.key.startswith(prefix))
    deadline = time.monotonic() + 90
    while any(r.value is not None for r in read_topic(erased, KEYS) if r.key.startswith(prefix)):
        assert time.monotonic() < deadline, "the erased user's key is still on the keys topic"
        time.sleep(1.2)  # past segment.ms, then write again to the partition: the segment rolls
        erased.producer.send_raw(KEYS, tombstone.key, None)  # type: ignore[arg-type]
        erased.producer.flush()
