"""A user's oldest retired versions leave Redis for the history archive (state/archive.py), here on
a real Kafka topic (streams/history_archive.py): every read, history walk and op finds them as if
they had stayed, and the user's bytes in Redis stop growing with their history."""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import redis

from slotstream.memory.models import Outcome, Status
from slotstream.memory.validation import derive_id
from slotstream.state import engine as engine_module
from slotstream.state.archive import Archived, ArchiveError, Segment
from slotstream.state.digest import digest_namespace
from slotstream.state.engine import Engine
from slotstream.streams.admin import create_topics
from slotstream.streams.history_archive import KafkaHistoryArchive
from slotstream.streams.topics import HISTORY, KEYS, topic_names, topic_specs

pytestmark = pytest.mark.integration

T0 = datetime(2026, 3, 2, 9, tzinfo=UTC)
SLOTS = ("preference.drink", "preference.seat", "preference.editor")


@pytest.fixture(scope="module")
def topic_prefix(kafka_bootstrap: str) -> str:
    prefix = f"arch{uuid.uuid4().hex[:8]}"
    specs = topic_specs(prefix, 2)
    create_topics(kafka_bootstrap, [specs[HISTORY], specs[KEYS]])
    return prefix


@pytest.fixture
def archive(kafka_bootstrap: str, topic_prefix: str) -> Iterator[KafkaHistoryArchive]:
    names = topic_names(topic_prefix)
    held = KafkaHistoryArchive(kafka_bootstrap, names[HISTORY], names[KEYS], None, None)
    yield held
    held.close()


def fresh_reader(kafka_bootstrap: str, topic_prefix: str) -> KafkaHistoryArchive:
    """An archive with nothing in memory: what it returns came from the broker."""
    names = topic_names(topic_prefix)
    return KafkaHistoryArchive(kafka_bootstrap, names[HISTORY], names[KEYS], None, None)


def at(step: int) -> str:
    return (T0 + timedelta(minutes=step)).isoformat()


def record(step: int, attribute: str, value: str, **extra: Any) -> dict[str, Any]:
    body = {"tenant": "t1", "user": "u1", "kind": "preference", "attribute": attribute, "value": value, **extra}
    return {"at": at(step), "op_id": f"o{step}", "record": body}


def command(step: int, **body: Any) -> dict[str, Any]:
    return {"at": at(step), "op_id": f"o{step}", "command": {"tenant": "t1", "user": "u1", **body}}


def corrected(engine: Engine, values: list[str]) -> None:
    """The drink slot said once, then corrected to each next value in turn."""
    engine.apply(record(0, "preference.drink", values[0]))
    for step, value in enumerate(values[1:], 1):
        assert engine.apply(record(step, "preference.drink", value, corrects_current=True)).outcome == Outcome.APPLIED


def user_bytes(client: redis.Redis, engine: Engine) -> int:
    prefix = engine.keys.prefix("t1", "u1")
    return sum(client.memory_usage(k) or 0 for k in client.scan_iter(match=prefix.replace("{", "[{]") + ":*"))


def churn(engines: list[Engine], steps: range, rng: random.Random, repeats: list[str]) -> None:
    """The same ops into every engine: new values (a repeat of the current one deduplicates, its id
    an alias of the record it refreshed), corrections, forgets by value, by id (of old versions
    too) and by a repeat's id, moves of a slot with its history, short-lived notes. Their outcomes
    agree."""
    for step in steps:
        what = rng.choice(["say", "say", "correct", "forget_value", "forget_id", "forget_repeat", "note", "move"])
        if what == "forget_repeat" and not repeats:
            what = "say"
        attribute = rng.choice(SLOTS)
        if what == "say":
            op = record(step, attribute, f"choice {rng.randrange(5)}", statement=f"It's choice {step} now.")
        elif what == "correct":
            op = record(step, attribute, f"choice {rng.randrange(5)}", corrects_current=True)
        elif what == "forget_value":
            op = command(step, op="forget", match={"attribute": attribute, "value": f"choice {rng.randrange(5)}"})
        elif what == "forget_id":
            history = engines[-1].history("t1", "u1", attribute)
            if not history:
                continue
            op = command(step, op="forget", record_id=rng.choice(history).id)
        elif what == "forget_repeat":
            op = command(step, op="forget", record_id=rng.choice(repeats))
        elif what == "note":
            op = record(step, "session.scratch", f"note {step}", kind="session_context", scope="session:s1")
        else:
            here, there = ("global", "project:p1") if rng.random() < 0.5 else ("project:p1", "global")
            op = command(step, op="move", attribute=attribute, from_scope=here, to_scope=there)
        outcomes = [e.apply(op) for e in engines]
        assert len({(o.outcome, o.reason, tuple(o.record_ids)) for o in outcomes}) == 1, (step, op, outcomes)
        if outcomes[0].outcome == Outcome.REFRESHED:
            repeats.append(derive_id("r_", op["op_id"]))


def histories(engine: Engine) -> dict[tuple[str, str], list[tuple[str, str, str]]]:
    return {
        (attribute, scope): [(r.id, str(r.value), r.status.value) for r in engine.history("t1", "u1", attribute, scope)]
        for attribute in (*SLOTS, "session.scratch")
        for scope in ("global", "project:p1", "session:s1")
    }


def test_an_archived_user_reads_and_changes_as_one_whose_history_stayed_in_redis(
    redis_client: redis.Redis,
    namespace: str,
    other_namespace: str,
    archive: KafkaHistoryArchive,
    kafka_bootstrap: str,
    topic_prefix: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(engine_module, "SEGMENT_RECORDS", 12)  # several segments, the newest rewritten
    kept = Engine(redis_client, other_namespace, history_hot=0, settle_after=1)
    archived = Engine(redis_client, namespace, history_hot=0, settle_after=1, archive=archive, archive_after=4)
    rng = random.Random(7)
    repeats: list[str] = []
    for first in range(0, 240, 40):
        churn([archived, kept], range(first, first + 40), rng, repeats)
        assert histories(archived) == histories(kept), first
    keys = archived.keys
    positions = redis_client.lrange(keys.archive("t1", "u1"), 0, -1)
    assert len(positions) >= 2 and archived.segments_written > len(positions)  # filled, and rewritten
    assert len(repeats) > 5
    assert archived.archive_failures == 0
    # what Redis holds of the past is the cold history's few records; the rest is on the topic
    cold_ids = (redis_client.hget(keys.cold("t1", "u1"), "ids") or b"").split()
    assert len(cold_ids) < 4
    on_topic = Archived.of(
        Segment.decode(raw) for raw in fresh_reader(kafka_bootstrap, topic_prefix).read("t1", "u1", positions)
    )
    assert len(on_topic.records) > 40
    assert on_topic.aliases and not redis_client.hexists(keys.aliases("t1", "u1"), next(iter(on_topic.aliases)))
    # (an op that changed an archived version wrote it back to Redis, where it wins)
    back = [rid for rid in on_topic.records if redis_client.hexists(keys.records("t1", "u1"), rid)]
    assert len(back) < len(on_topic.records) / 2

    # every read agrees: records, one by one and all, histories, context, and the digest
    everything = {r.id: r for r in kept.records("t1", "u1")}
    assert {r.id: r for r in archived.records("t1", "u1")} == everything
    for rid in rng.sample(sorted(everything), 15):
        assert archived.record("t1", "u1", rid) == everything[rid]
    request = {"tenant": "t1", "user": "u1", "text": "what do I drink and where do I sit", "project": "p1"}
    later = T0 + timedelta(days=1)
    assert archived.context(request, at=later).model_dump() == kept.context(request, at=later).model_dump()
    fresh = fresh_reader(kafka_bootstrap, topic_prefix)
    try:
        assert (
            digest_namespace(redis_client, namespace, fresh).digest
            == digest_namespace(redis_client, other_namespace).digest
        )
        assert fresh.reads == len(positions)  # each segment fetched once
    finally:
        fresh.close()
    # an engine of another process (nothing in memory) finds the same
    again = Engine(
        redis_client, namespace, history_hot=0, settle_after=1, archive=fresh_reader(kafka_bootstrap, topic_prefix)
    )
    assert histories(again) == histories(kept)


def test_a_forgotten_value_leaves_every_read_though_its_versions_were_archived(
    redis_client: redis.Redis, namespace: str, archive: KafkaHistoryArchive
) -> None:
    engine = Engine(redis_client, namespace, history_hot=0, settle_after=1, archive=archive, archive_after=3)
    corrected(engine, ["green tea"] + ["black coffee", "oolong"] * 3 + ["black coffee", "rooibos"])
    assert redis_client.llen(engine.keys.archive("t1", "u1")) == 1
    tea = engine.history("t1", "u1", "preference.drink")[0]
    assert tea.value == "green tea" and not redis_client.hexists(engine.keys.records("t1", "u1"), tea.id)

    gone = engine.apply(command(9, op="forget", match={"attribute": "preference.drink", "value": "green tea"}))
    assert gone.outcome == Outcome.APPLIED
    # the archived version was brought back to Redis as deleted, and that copy is the one read
    assert engine.record("t1", "u1", tea.id).status == Status.DELETED
    history = engine.history("t1", "u1", "preference.drink")
    assert [r.id for r in history].count(tea.id) == 1 and history[0].status == Status.DELETED
    assert all(r.value != "green tea" for r in engine.records("t1", "u1") if r.status != Status.DELETED)
    # a forget by the id of an archived version does the same
    coffee = next(r for r in history if r.value == "black coffee")
    assert engine.apply(command(10, op="forget", record_id=coffee.id)).outcome == Outcome.APPLIED
    assert engine.record("t1", "u1", coffee.id).status == Status.DELETED
    request = {"tenant": "t1", "user": "u1", "text": "what do I drink"}
    values = [item.value for item in engine.context(request, at=T0 + timedelta(days=1)).items]
    assert values == ["rooibos"]


def test_the_users_bytes_in_redis_stop_growing_with_their_history(
    redis_client: redis.Redis, namespace: str, other_namespace: str, archive: KafkaHistoryArchive
) -> None:
    # a short ledger window and change log, so that only the history could grow
    bounds = {"history_hot": 0, "settle_after": 16, "ledger_window_s": 600, "change_log_max": 20}
    archived = Engine(redis_client, namespace, archive=archive, archive_after=64, **bounds)
    kept = Engine(redis_client, other_namespace, **bounds)
    figures: dict[str, list[int]] = {"archived": [], "kept": []}
    step = 0
    for _ in range(3):
        for _ in range(400):
            attribute = SLOTS[step % 3]
            op = record(step, attribute, f"choice {step % 7}", corrects_current=step % 2 == 1)
            archived.apply(op)
            kept.apply(op)
            step += 1
        figures["archived"].append(user_bytes(redis_client, archived))
        figures["kept"].append(user_bytes(redis_client, kept))
    a, k = figures["archived"], figures["kept"]
    # the history kept in Redis grows by its compressed versions; the archived user's stays within
    # a cold history's worth of them
    assert k[2] - k[1] > 10_000, figures
    assert abs(a[2] - a[1]) < (k[2] - k[1]) / 4, figures
    assert len(archived.history("t1", "u1", SLOTS[0])) == 400


def test_a_broker_outage_leaves_the_records_in_the_cold_history_until_the_archive_answers(
    redis_client: redis.Redis, namespace: str, archive: KafkaHistoryArchive
) -> None:
    away = KafkaHistoryArchive("127.0.0.1:1", "nowhere.history", "nowhere.keys", None, None, timeout_s=2)
    engine = Engine(redis_client, namespace, history_hot=0, settle_after=1, archive=away, archive_after=2)
    corrected(engine, [f"v{n}" for n in range(5)])
    keys = engine.keys
    assert engine.archive_failures >= 1 and not redis_client.exists(keys.archive("t1", "u1"))
    assert len(redis_client.hget(keys.cold("t1", "u1"), "ids").split()) == 4
    assert [r.value for r in engine.history("t1", "u1", "preference.drink")] == [f"v{n}" for n in range(5)]

    engine.archive = archive  # the broker is back: the next settle moves them
    engine.apply(record(5, "preference.drink", "v5", corrects_current=True))
    assert redis_client.llen(keys.archive("t1", "u1")) == 1 and not redis_client.exists(keys.cold("t1", "u1"))
    assert [r.value for r in engine.history("t1", "u1", "preference.drink")] == [f"v{n}" for n in range(6)]


def test_reading_an_archived_user_needs_the_archive_and_an_erasure_takes_the_positions(
    redis_client: redis.Redis, namespace: str, archive: KafkaHistoryArchive
) -> None:
    engine = Engine(redis_client, namespace, history_hot=0, settle_after=1, archive=archive, archive_after=2)
    corrected(engine, [f"v{n}" for n in range(4)])
    keys = engine.keys
    assert redis_client.llen(keys.archive("t1", "u1")) == 1
    blind = Engine(redis_client, namespace)
    with pytest.raises(ArchiveError, match="archive"):
        blind.history("t1", "u1", "preference.drink")
    with pytest.raises(ArchiveError):
        digest_namespace(redis_client, namespace)
    # an op that needs the archived versions refuses to guess without them; nothing is written
    version = redis_client.hget(keys.meta("t1", "u1"), "version")
    with pytest.raises(ArchiveError):
        blind.apply(command(4, op="forget", match={"attribute": "preference.drink", "value": "v0"}))
    assert redis_client.hget(keys.meta("t1", "u1"), "version") == version

    engine.apply(command(5, op="erase_user"))
    assert not redis_client.exists(keys.archive("t1", "u1"))
    assert engine.records("t1", "u1") == [] and blind.records("t1", "u1") == []
