"""The streaming pipeline end to end: a real Kafka broker (KRaft on the JVM, or the one in
SLOTSTREAM_KAFKA_BOOTSTRAP), a real Redis and real worker processes (`slotstream worker`), on
each runtime (the `runtime` fixture, conftest.py).

One broker and one Redis serve the whole module. Tests that only produce and read share one stack
(topics + one worker); each uses its own tenant ids. Tests that kill or add workers get a stack
of their own (own topic prefix, consumer group and Redis namespace) on the same servers.

Waiting is by offsets (`LocalStack.barrier`) or by polling against a `time.monotonic()` deadline,
never by sleeping a fixed time.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import pytest

from slotstream.local.stack import LocalStack
from slotstream.memory.models import ContextRequest, Status, iso, to_ms
from slotstream.ops.replay import replay
from slotstream.state.digest import digest_namespace
from slotstream.state.namespaces import drop_namespace
from slotstream.streams.topics import CHANGES, DLQ, OPS, TURNS, user_key

from support import read_topic, record, start_stack, wait_until
from workloads import Item, build, reference_digest, send

pytestmark = [pytest.mark.kafka, pytest.mark.integration]

T0 = datetime(2026, 10, 1, 9, 0, tzinfo=UTC)
# A SIGKILLed worker stays in the consumer group until its session times out; the failover tests
# shorten that to the broker's minimum (group.min.session.timeout.ms is 6 s).
FAST_FAILOVER_SESSION_TIMEOUT = 6.0


def run_id() -> str:
    return uuid.uuid4().hex[:8]


# --- servers and stacks ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def log_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pipeline-logs")


@pytest.fixture(scope="module")
def make_stack(
    kafka_bootstrap: str, redis_url: str, log_dir: Path, runtime: str
) -> Iterator[Callable[..., LocalStack]]:
    """Start a stack on the module's servers: own topics, consumer group and Redis namespace;
    its workers on the module's runtime."""
    started: list[LocalStack] = []

    def make(tag: str, workers: int = 1, fast_failover: bool = False, **overrides: Any) -> LocalStack:
        name = f"it-{tag}-{run_id()}"
        if fast_failover:
            overrides.setdefault("session_timeout", FAST_FAILOVER_SESSION_TIMEOUT)
        overrides.setdefault("runtime", runtime)
        stack = start_stack(redis_url, kafka_bootstrap, name, log_dir / name, workers, **overrides)
        started.append(stack)
        return stack

    yield make
    for stack in started:
        ns = stack.settings.namespace
        client = stack.client
        for key in client.scan_iter(match=f"{ns}:*", count=1000):
            client.delete(key)
        stack.stop()
        _delete_topics(stack)


def _delete_topics(stack: LocalStack) -> None:
    from kafka import KafkaAdminClient

    try:
        admin = KafkaAdminClient(bootstrap_servers=stack.bootstrap, client_id="it-cleanup")
        try:
            admin.delete_topics([s.name for s in stack.settings.topic_specs().values()])
        finally:
            admin.close()
    except Exception:  # noqa: BLE001 - best effort: the broker is usually a temporary one
        pass


@pytest.fixture(scope="module")
def stack(make_stack: Callable[..., LocalStack]) -> LocalStack:
    """The shared stack: one worker running every processor, a fast expiry timer."""
    return make_stack("shared", workers=1)


# --- helpers --------------------------------------------------------------------------------------


def changes_by_op(stack: LocalStack) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for m in read_topic(stack, CHANGES):
        data = orjson.loads(m.value)
        out.setdefault(data["op_id"], []).append(data)
    return out


def partition_of(key: bytes, partitions: int) -> int:
    """The partition kafka-python's default partitioner picks for a key (Java-compatible murmur2)."""
    from kafka.partitioner.default import murmur2

    return (murmur2(key) & 0x7FFFFFFF) % partitions


def by_attribute(stack: LocalStack, tenant: str, user: str) -> dict[str, Any]:
    recs = stack.engine.records(tenant, user)
    out = {r.attribute: r for r in recs}
    assert len(out) == len(recs), f"two records for one attribute: {[r.attribute for r in recs]}"
    return out


def ops_applied(stack: LocalStack) -> int:
    return sum(stack.progress.offsets(stack.settings.topics[OPS]).values())


# --- 1. turn -> context ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "barrier_between",
    [
        pytest.param(True, id="turns-apart"),
        pytest.param(False, id="turns-back-to-back"),
    ],
)
def test_turns_to_context_correction(stack: LocalStack, barrier_between: bool) -> None:
    """Two turns through extraction and reconciliation: the correction replaces the preference,
    the context uses only the new value, and the slot's history keeps the lineage. Back to back,
    the second turn may be extracted before the first one's op is applied; the outcome must not
    depend on that."""
    tenant, user = f"t1-{run_id()}", "alice"
    p = stack.producer
    p.send_turn(
        T0, {"tenant": tenant, "user": user, "session": "s1", "role": "user", "text": "Please keep your answers short."}
    )
    if barrier_between:
        p.flush()
        stack.barrier()
        first = stack.engine.history(tenant, user, "preference.response.detail")
        assert [(r.value, r.status) for r in first] == [("concise", Status.ACTIVE)]
    p.send_turn(
        T0 + timedelta(days=2),
        {
            "tenant": tenant,
            "user": user,
            "session": "s2",
            "role": "user",
            "text": "Actually, from now on answer in detail.",
        },
    )
    p.flush()
    stack.barrier()

    req = ContextRequest(tenant=tenant, user=user, session="s3", text="Explain Python list slicing")
    ctx = stack.engine.context(req, T0 + timedelta(days=3))
    hist = stack.engine.history(tenant, user, "preference.response.detail")
    assert [(r.value, r.status) for r in hist] == [("concise", Status.SUPERSEDED), ("detailed", Status.ACTIVE)]
    old, new = hist
    assert old.superseded_by == new.id
    assert new.supersedes == old.id
    if barrier_between:
        assert new.corrects_current and new.supersedes == old.id  # resolved by reconciliation, in order
    assert new.id in ctx.used_ids and old.id not in ctx.used_ids
    assert "detail" in ctx.context.lower()
    assert "concise" not in ctx.context.lower() and "short" not in ctx.context.lower()


# --- 2. dead letters --------------------------------------------------------------------------------


def test_dead_letters_keep_source_and_an_excerpt_and_the_stream_goes_on(stack: LocalStack) -> None:
    tenant, user = f"t2-{run_id()}", "bob"
    key = user_key(tenant, user)
    p = stack.producer
    p.send_record(T0, record(tenant, user, "knowledge.stack", "python"), op_id=f"{tenant}-seed")
    p.send_turn(T0, {"tenant": tenant, "user": user, "role": "user", "text": "Please keep your answers short."})
    p.flush()
    stack.barrier()
    before = sorted((r.model_dump(mode="json") for r in stack.engine.records(tenant, user)), key=lambda d: d["id"])
    assert len(before) == 2

    at = iso(T0 + timedelta(hours=1))
    no_tenant = {
        "at": at,
        "op_id": f"{tenant}-no-tenant",
        "record": {k: v for k, v in record(tenant, user, "knowledge.db", "postgres").items() if k != "tenant"},
    }
    bad: list[tuple[str, str, str, bytes | None]] = [  # (role, reason, processor, raw value)
        (OPS, "invalid_json", "reconciliation", b'{"at": "2026-10-01T10:00:00Z", "record": {"tenant": '),
        (OPS, "missing_tenant", "reconciliation", orjson.dumps(no_tenant)),
        (
            OPS,
            "scope_missing_id",
            "reconciliation",
            orjson.dumps(
                {
                    "at": at,
                    "op_id": f"{tenant}-no-project-id",
                    "record": record(tenant, user, "knowledge.db", "postgres", scope="project:"),
                }
            ),
        ),
        (
            TURNS,
            "missing_field",
            "extraction",
            orjson.dumps({"tenant": tenant, "user": user, "role": "user", "at": at}),
        ),
        # more shapes of bad input on both topics
        (OPS, "invalid_json", "reconciliation", None),  # a tombstone
        (OPS, "invalid_field", "reconciliation", b"[1, 2]"),
        (OPS, "invalid_field", "reconciliation", orjson.dumps({"at": "yesterday", "record": {}})),
        (
            OPS,
            "unknown_command",
            "reconciliation",
            orjson.dumps({"at": at, "command": {"op": "explode", "tenant": tenant, "user": user}}),
        ),
        (
            OPS,
            "missing_field",
            "reconciliation",
            orjson.dumps({"at": at, "command": {"op": "expire", "tenant": tenant, "user": user}}),
        ),
        # not JSON, and not even valid UTF-8 (the payload keeps it with replacement characters)
        (TURNS, "invalid_json", "extraction", "\u4ee5\u540e\u8be6\u7ec6\u4e00\u70b9 \xff".encode("utf-8")[:-1]),
        (TURNS, "invalid_field", "extraction", b'"just a string"'),
        (
            TURNS,
            "invalid_field",
            "extraction",
            orjson.dumps({"tenant": tenant, "user": user, "role": "narrator", "text": "hi", "at": at}),
        ),
    ]
    sent = []
    for role, reason, processor, value in bad:
        meta = p.send_raw(role, key, value).get(timeout=30)
        sent.append((meta.topic, meta.partition, meta.offset, reason, processor, value, key))
    # the producer API itself: a record without a tenant (keyed "/<user>") and a project scope
    # without its id
    meta = p.send_record(at, no_tenant["record"], op_id=f"{tenant}-no-tenant-api").get(timeout=30)
    sent.append(
        (
            meta.topic,
            meta.partition,
            meta.offset,
            "missing_tenant",
            "reconciliation",
            orjson.dumps({"at": at, "op_id": f"{tenant}-no-tenant-api", "record": no_tenant["record"]}),
            user_key("", user),
        )
    )
    p.flush()
    stack.barrier()

    after_bad = sorted((r.model_dump(mode="json") for r in stack.engine.records(tenant, user)), key=lambda d: d["id"])
    assert after_bad == before, "bad input changed the user's state"

    dead: dict[tuple[str, int, int], list[tuple[Any, dict[str, Any]]]] = {}
    for m in read_topic(stack, DLQ):
        dl = orjson.loads(m.value)
        src = dl["source"]
        dead.setdefault((src["topic"], src["partition"], src["offset"]), []).append((m, dl))
    for topic, partition, offset, reason, processor, value, sent_key in sent:
        letters = dead.get((topic, partition, offset), [])
        assert len(letters) == 1, f"{len(letters)} dead letters for {reason} at {topic}/{partition}/{offset}"
        msg, dl = letters[0]
        assert dl["reason"] == reason, dl
        assert dl["processor"] == processor, dl
        original = value or b""
        assert dl["excerpt"] == original.decode("utf-8", errors="replace")[:1000], "a (redacted) excerpt"
        assert dl["length"] == len(original) and dl["sha256"] == hashlib.sha256(original).hexdigest()
        assert dl["key"] == sent_key.decode()
        assert msg.key == sent_key  # the dead letter keeps the user's key (and partition order)

    # the stream goes on: a valid op and a valid turn after the bad ones are applied
    p.send_record(at, record(tenant, user, "knowledge.db", "postgres"), op_id=f"{tenant}-after")
    p.send_turn(T0 + timedelta(hours=2), {"tenant": tenant, "user": user, "role": "user", "text": "I moved to Berlin."})
    p.flush()
    stack.barrier()
    attrs = by_attribute(stack, tenant, user)
    assert attrs["knowledge.db"].value == "postgres"
    assert attrs["knowledge.db"].status == Status.ACTIVE
    assert attrs["profile.home_city"].value == "Berlin"
    unchanged = {d["id"]: d for d in before}
    for rec in stack.engine.records(tenant, user):
        if rec.id in unchanged:
            assert rec.model_dump(mode="json") == unchanged[rec.id]


# --- 4. expiry --------------------------------------------------------------------------------------


def test_expiry_follows_each_users_event_time(stack: LocalStack) -> None:
    tenant = f"t4-{run_id()}"
    n = stack.settings.partitions
    user = "carol"
    part = partition_of(user_key(tenant, user), n)
    # a bystander on the same partition: the partition's watermark passes its record's
    # valid_until, its own does not
    other = next(u for u in (f"dave{i}" for i in range(1000)) if partition_of(user_key(tenant, u), n) == part)
    p = stack.producer
    short_until, review, long_until = T0 + timedelta(hours=1), T0 + timedelta(hours=2), T0 + timedelta(days=10)
    p.send_record(
        T0,
        record(tenant, user, "priority.launch", "ship the beta", kind="priority", valid_until=iso(short_until)),
        op_id=f"{tenant}-a",
    )
    p.send_record(
        T0, record(tenant, user, "knowledge.region", "eu-west", valid_until=iso(long_until)), op_id=f"{tenant}-b"
    )
    p.send_record(T0, record(tenant, user, "knowledge.vendor", "acme", review_at=iso(review)), op_id=f"{tenant}-c")
    meta = p.send_record(
        T0,
        record(tenant, other, "priority.launch", "other beta", kind="priority", valid_until=iso(short_until)),
        op_id=f"{tenant}-d",
    ).get(timeout=30)
    assert meta.partition == part
    p.flush()
    stack.barrier()

    recs = by_attribute(stack, tenant, user)
    a, b, c = recs["priority.launch"], recs["knowledge.region"], recs["knowledge.vendor"]
    assert {a.status, b.status, c.status} == {Status.ACTIVE}
    # reads do not need the sweep: as of a time past valid_until / review_at, the context leaves A
    # and C out although their status is still active (the user's event time has not reached them)
    ctx = stack.engine.context(
        ContextRequest(tenant=tenant, user=user, text="what matters now?"), T0 + timedelta(hours=3)
    )
    assert b.id in ctx.used_ids
    assert a.id not in ctx.used_ids and c.id not in ctx.used_ids
    assert "ship the beta" not in ctx.context and "acme" not in ctx.context
    assert stack.engine.record(tenant, user, a.id).status == Status.ACTIVE
    assert stack.engine.record(tenant, user, c.id).status == Status.ACTIVE

    # a later event of the same user moves the user's watermark past A's valid_until and C's review_at
    p.send_record(T0 + timedelta(hours=3), record(tenant, user, "knowledge.editor", "vim"), op_id=f"{tenant}-e")
    p.flush()
    stack.barrier()
    wait_until(lambda: stack.engine.record(tenant, user, a.id).status == Status.EXPIRED, 30, "A expired")
    wait_until(lambda: stack.engine.record(tenant, user, c.id).status == Status.REVIEW_DUE, 30, "C review_due")
    stack.barrier()  # the sweep's ops (for anyone on this partition) are applied
    assert stack.engine.record(tenant, user, b.id).status == Status.ACTIVE  # valid_until after the watermark
    d = by_attribute(stack, tenant, other)["priority.launch"]
    assert d.status == Status.ACTIVE, "another user's later events expired this user's record"

    changes = changes_by_op(stack)
    expire_id = f"expire:{a.id}:{to_ms(short_until)}"
    review_id = f"review_due:{c.id}:{to_ms(review)}"
    assert next(ch["outcome"] for ch in changes[expire_id]) == "applied"
    assert next(ch["outcome"] for ch in changes[review_id]) == "applied"
    assert not any(k.startswith(f"expire:{d.id}:") for k in changes)
    expired = stack.engine.record(tenant, user, a.id)
    assert expired.updated_at == short_until  # event time of the due moment, not the wall clock


def test_expiry_sweep_reaches_entries_behind_ones_not_yet_due(stack: LocalStack) -> None:
    """The partition's due index is ordered by due time; entries due by the partition's clock but
    not by their own user's stay in it. More of them than one sweep batch (500) must not hide a
    later entry that is due for its user."""
    tenant = f"t4b-{run_id()}"
    n = stack.settings.partitions
    target = "erin"
    part = partition_of(user_key(tenant, target), n)
    idle = next(u for u in (f"idle{i}" for i in range(1000)) if partition_of(user_key(tenant, u), n) == part)
    p = stack.producer
    for i in range(520):  # due an hour after T0 by their own (idle) user's clock, which stays at T0
        p.send_record(
            T0,
            record(
                tenant, idle, f"priority.p{i}", f"task {i}", kind="priority", valid_until=iso(T0 + timedelta(hours=1))
            ),
            op_id=f"{tenant}-idle-{i}",
        )
    p.send_record(
        T0,
        record(tenant, target, "priority.launch", "ship it", kind="priority", valid_until=iso(T0 + timedelta(hours=2))),
        op_id=f"{tenant}-target",
    )
    p.send_record(
        T0 + timedelta(hours=3), record(tenant, target, "knowledge.editor", "emacs"), op_id=f"{tenant}-target-later"
    )
    p.flush()
    stack.barrier()
    rec = by_attribute(stack, tenant, target)["priority.launch"]
    wait_until(
        lambda: stack.engine.record(tenant, target, rec.id).status == Status.EXPIRED,
        10,
        f"{target}'s record expired (its own watermark passed valid_until)",
    )
    assert all(r.status == Status.ACTIVE for r in stack.engine.records(tenant, idle))


# --- 3. at-least-once under a crash -------------------------------------------------------------------


def test_crash_mid_stream_applies_every_op_exactly_once(make_stack: Callable[..., LocalStack]) -> None:
    stack = make_stack("crash", workers=0, fast_failover=True, batch_size=10)
    tenant, n_ops, n_users = f"t3-{run_id()}", 2000, 50
    futures = []
    for i in range(n_ops):
        rec = record(tenant, f"u{i % n_users}", f"knowledge.item{i}", f"v{i}")
        op_id = f"{tenant}-op{i}" if i % 2 == 0 else None  # half without: topic/partition/offset stands in
        futures.append((i, op_id, stack.producer.send_record(T0 + timedelta(seconds=i), rec, op_id=op_id)))
    stack.producer.flush()
    expected: dict[str, int] = {}
    for i, op_id, fut in futures:
        meta = fut.get(timeout=30)
        expected[op_id or f"{meta.topic}:{meta.partition}:{meta.offset}"] = i
    assert len(expected) == n_ops
    # turns too: a re-extracted turn yields the same op ids (its topic/partition/offset)
    n_movers = 100
    turn_futs = [
        stack.producer.send_turn(
            T0 + timedelta(seconds=j), {"tenant": tenant, "user": f"w{j}", "role": "user", "text": "I moved to Berlin."}
        )
        for j in range(n_movers)
    ]
    stack.producer.flush()
    turn_ids = {
        f"w{j}": "{}:{}:{}#0".format(*(lambda m: (m.topic, m.partition, m.offset))(f.get(timeout=30)))
        for j, f in enumerate(turn_futs)
    }

    worker = stack.add_worker()
    wait_until(
        lambda: ops_applied(stack) >= n_ops // 5 or worker.poll() is not None,
        90,
        "the first worker to apply some ops",
        every=0.001,
    )
    stack.stop_worker(worker, kill=True)
    done_at_kill = ops_applied(stack)
    records_at_kill = sum(len(stack.engine.records(tenant, f"u{u}")) for u in range(n_users))
    assert 0 < done_at_kill < n_ops, f"the crash did not happen mid-stream ({done_at_kill} of {n_ops})"
    assert 0 < records_at_kill < n_ops

    stack.add_worker()
    stack.barrier(timeout=120)

    # the state: every op's record exactly once
    seen: dict[str, str] = {}
    for u in range(n_users):
        for rec in stack.engine.records(tenant, f"u{u}"):
            assert rec.op_id not in seen, f"op {rec.op_id} created two records"
            seen[rec.op_id] = rec.value
    assert len(seen) == n_ops
    assert seen == {op_id: f"v{i}" for op_id, i in expected.items()}
    # the user's change log (Redis) records each op once
    logged: dict[str, int] = {}
    for u in range(n_users):
        for entry in stack.engine.changes(tenant, f"u{u}"):
            logged[entry["op"]] = logged.get(entry["op"], 0) + 1
    assert set(logged) == set(expected)
    assert set(logged.values()) == {1}
    for u, op_id in turn_ids.items():
        recs = stack.engine.records(tenant, u)
        assert [(r.attribute, r.value, r.op_id) for r in recs] == [("profile.home_city", "Berlin", op_id)]

    # the changes topic: every op reported, never applied twice; a redelivery reads "duplicate"
    changes = changes_by_op(stack)
    outcomes = {op_id: [c["outcome"] for c in changes.get(op_id, [])] for op_id in expected}
    missing = [op_id for op_id, o in outcomes.items() if not o]
    assert not missing, f"{len(missing)} ops have no change message, e.g. {missing[:3]}"
    twice = {op_id: o for op_id, o in outcomes.items() if o.count("applied") > 1}
    assert not twice
    assert all(set(o) <= {"applied", "duplicate"} for o in outcomes.values())
    redelivered = sum(1 for o in outcomes.values() if len(o) > 1 or o == ["duplicate"])
    print(
        f"crash at {done_at_kill}/{n_ops} ops ({records_at_kill} records); {redelivered} ops redelivered; "
        f"{sum(1 for o in outcomes.values() if 'applied' not in o)} applied without an 'applied' change"
    )


# --- 5. two workers share the load -----------------------------------------------------------------


def group_assignment(stack: LocalStack, topic: str) -> dict[str, list[int]] | None:
    """member id -> partitions of `topic`, when the group is stable; else None."""
    from kafka import KafkaAdminClient

    admin = KafkaAdminClient(bootstrap_servers=stack.bootstrap, client_id="it-admin")
    try:
        group = stack.settings.group
        describe = getattr(admin, "describe_consumer_groups", None) or admin.describe_groups
        info = describe([group])
    finally:
        admin.close()
    desc = info[group] if isinstance(info, dict) else info[0]
    state = desc["group_state"] if isinstance(desc, dict) else desc.state
    members = desc["members"] if isinstance(desc, dict) else desc.members
    if state != "Stable":
        return None
    out: dict[str, list[int]] = {}
    for m in members:
        mid = m["member_id"] if isinstance(m, dict) else m.member_id
        assignment = m["member_assignment"] if isinstance(m, dict) else m.member_assignment
        parts: list[int] = []
        pairs = (
            assignment.get("assigned_partitions")
            if isinstance(assignment, dict)
            else getattr(assignment, "assignment", None)
        ) or []
        for pair in pairs:
            t, ps = (pair["topic"], pair["partitions"]) if isinstance(pair, dict) else (pair[0], pair[1])
            if t == topic:
                parts.extend(ps)
        out[mid] = sorted(parts)
    return out


def test_two_workers_share_the_load_and_survive_losing_one(make_stack: Callable[..., LocalStack]) -> None:
    stack = make_stack("pair", workers=2, fast_failover=True)
    n = stack.settings.partitions
    tenant = f"t5-{run_id()}"
    ops_topic = stack.settings.topics[OPS]
    p = stack.producer
    users = [f"u{i}" for i in range(40)]
    for i, u in enumerate(users):
        p.send_record(T0, record(tenant, u, "knowledge.phase1", f"a{i}"), op_id=f"{tenant}-{u}-1")
    # one user per partition with a record due soon after T0, for the sweep after the rebalance
    sweepers: dict[int, str] = {}
    for i in range(10_000):
        u = f"s{i}"
        sweepers.setdefault(partition_of(user_key(tenant, u), n), u)
        if len(sweepers) == n:
            break
    for _part, u in sweepers.items():
        p.send_record(
            T0,
            record(tenant, u, "priority.sprint", "finish", kind="priority", valid_until=iso(T0 + timedelta(hours=1))),
            op_id=f"{tenant}-{u}-due",
        )
    p.flush()
    stack.barrier()
    assert all(by_attribute(stack, tenant, u)["knowledge.phase1"].value == f"a{i}" for i, u in enumerate(users))

    def two_members() -> dict[str, list[int]] | None:
        a = group_assignment(stack, ops_topic)
        return a if a and len(a) == 2 and all(a.values()) else None

    before = wait_until(two_members, 60, "2 members each owning ops partitions", every=0.2)
    assert sorted(x for ps in before.values() for x in ps) == list(range(n))

    victim = stack.workers[1]
    stack.stop_worker(victim, kill=True)

    def one_member_owning_all() -> dict[str, list[int]] | None:
        a = group_assignment(stack, ops_topic)
        return a if a and len(a) == 1 and sorted(next(iter(a.values()))) == list(range(n)) else None

    after = wait_until(one_member_owning_all, 60, "the remaining worker to own every ops partition", every=0.2)
    (survivor,) = after
    assert survivor in before
    (lost_id,) = set(before) - {survivor}
    orphaned = before[lost_id]
    assert orphaned

    assert all(by_attribute(stack, tenant, u)["priority.sprint"].status == Status.ACTIVE for u in sweepers.values())
    # new ops for every user are applied by the survivor, and the later ones move the sweepers'
    # watermarks past their records' valid_until, on the partitions the killed worker owned too
    for i, u in enumerate(users):
        p.send_record(
            T0 + timedelta(minutes=5), record(tenant, u, "knowledge.phase2", f"b{i}"), op_id=f"{tenant}-{u}-2"
        )
    for u in sweepers.values():
        p.send_record(T0 + timedelta(hours=2), record(tenant, u, "knowledge.later", "x"), op_id=f"{tenant}-{u}-late")
    p.flush()
    stack.barrier()
    assert all(by_attribute(stack, tenant, u)["knowledge.phase2"].value == f"b{i}" for i, u in enumerate(users))

    def all_expired() -> bool:
        return all(
            by_attribute(stack, tenant, u)["priority.sprint"].status == Status.EXPIRED for u in sweepers.values()
        )

    wait_until(all_expired, 30, f"every sweeper's record expired (incl. partitions {orphaned} of the killed worker)")
    assert stack.workers and stack.workers[0].poll() is None


# --- 6. fused apply: a worker applies the ops it extracts at once, in the ops topic's order -------

CITY_SCRIPT = ["I live in Beijing.", "Actually, I moved to Berlin.", "Actually, I moved to Osaka."]


def mixed_items(tenant: str, users: int, rounds: int) -> list[Item]:
    """Each user's home city set alternately by turns (extracted ops) and by records sent straight
    to the ops topic (as the sidecar sends them), each a correction of the current one: the final
    city is whichever comes last in the ops topic, so any op applied out of that order shows."""
    items: list[Item] = []
    for n in range(rounds):
        for u in range(users):
            user = f"mix{u}"
            at = T0 + timedelta(minutes=2 * n)
            text = CITY_SCRIPT[n % len(CITY_SCRIPT)]
            turn = {"tenant": tenant, "user": user, "role": "user", "text": text, "turn_id": f"{tenant}:{user}:t{n}"}
            items.append(Item("turn", at, turn, op_id=turn["turn_id"]))
            body = record(tenant, user, "profile.home_city", f"City{n}", kind="preference", corrects_current=True)
            items.append(Item("record", at + timedelta(minutes=1), body, op_id=f"{tenant}:{user}:op{n}"))
    return items


def replayed_digest(stack: LocalStack, redis_client: Any) -> str:
    """The digest of a namespace rebuilt from the ops topic as it stands (its ops in order)."""
    target = f"rb-{run_id()}"
    try:
        assert replay(stack.settings, target, "ops", show=lambda _: None) == 0
        return digest_namespace(redis_client, target).digest
    finally:
        drop_namespace(redis_client, target)


def applied_once(stack: LocalStack) -> dict[str, list[str]]:
    """Every op's outcomes on the changes topic; fails when one was applied twice."""
    outcomes = {op_id: [c["outcome"] for c in changes] for op_id, changes in changes_by_op(stack).items()}
    twice = {op_id: o for op_id, o in outcomes.items() if o.count("applied") > 1}
    assert not twice, f"applied twice: {list(twice.items())[:3]}"
    return outcomes


def test_fused_apply_keeps_the_ops_topic_order_beside_other_producers(
    make_stack: Callable[..., LocalStack], redis_client: Any
) -> None:
    """Turns and records of the same users race on the same ops partitions: the extracting worker
    applies a turn's ops at once only when nothing unapplied precedes them there, so the state is
    the ops topic applied in order (a replay of it gives the same digest)."""
    stack = make_stack("fused")
    tenant = f"t6-{run_id()}"
    send(stack.producer, mixed_items(tenant, users=12, rounds=6))
    stack.barrier()
    # then turns alone: nothing from another producer waits before their ops
    send(stack.producer, [i for i in mixed_items(tenant, users=12, rounds=8)[-24:] if i.kind == "turn"])
    stack.barrier()
    live = digest_namespace(redis_client, stack.settings.namespace).digest
    assert live == replayed_digest(stack, redis_client)
    counters = stack.progress.counters()
    assert counters.get("fused_apply:applied", 0) > 0, counters
    assert counters.get("ops_applied:duplicate", 0) == 0, counters
    applied_once(stack)
    current = [r.value for r in stack.engine.records(tenant, "mix0") if r.status == Status.ACTIVE]
    assert current == ["Berlin"]  # the last turn's


def test_turns_and_ops_topics_of_other_partition_counts(
    make_stack: Callable[..., LocalStack], kafka_bootstrap: str, redis_url: str, log_dir: Path, runtime: str
) -> None:
    """A user's turns partition and ops partition differ (ops topic: 3 partitions, turns: 4), and
    two workers split them: a worker applies at once only on the ops partitions it owns, the
    others' reconciliation applies the rest. The state is the clean run's."""
    import dataclasses

    from slotstream.config.settings import Settings
    from slotstream.streams.admin import create_topics

    name = f"it-parts-{run_id()}"
    specs = Settings(topic_prefix=name, partitions=4).topic_specs()
    create_topics(kafka_bootstrap, [dataclasses.replace(specs[OPS], partitions=3)])
    stack = make_stack("parts", workers=2, topic_prefix=name)
    assert len(stack.end_offsets(OPS)) == 3 and len(stack.end_offsets(TURNS)) == 4
    work = build(turn_users=16, op_users=16)
    send(stack.producer, work.items)
    stack.barrier()
    assert (
        digest_namespace(stack.client, stack.settings.namespace).digest == reference_digest(stack.client, work).digest
    )
    applied_once(stack)


def test_ops_produced_but_not_applied_before_a_crash_are_applied_once(
    make_stack: Callable[..., LocalStack],
) -> None:
    """A worker delivered a batch's ops and died before applying them and before recording its
    turns (here: those ops are on the ops topic before any worker runs). The next worker extracts
    the turns again (the same op ids, at later offsets, so not next in line): the ops consumer
    applies the first copies in order and finds the second ones applied."""
    from slotstream.memory.extraction import Turn
    from slotstream.processors.extraction import ExtractionService

    stack = make_stack("crashgap", workers=0)
    work = build(turn_users=12, op_users=0)
    extraction = ExtractionService()
    expected: set[str] = set()
    for item in work.items:  # what the dead worker delivered
        turn = Turn.model_validate({**item.body, "at": item.at})
        for op in extraction.ops_for_turn(turn, op_prefix=str(item.body["turn_id"])).ops:
            expected.add(str(op.op_id))
            if op.record is not None:
                stack.producer.send_record(item.at, op.record, op_id=op.op_id)
            else:
                stack.producer.send_command(item.at, op.command or {}, op_id=op.op_id)
    send(stack.producer, work.items)  # the turns, never recorded as extracted
    stack.add_worker()
    stack.barrier()
    assert (
        digest_namespace(stack.client, stack.settings.namespace).digest == reference_digest(stack.client, work).digest
    )
    outcomes = applied_once(stack)
    assert expected <= set(outcomes)
    assert all(outcomes[op_id].count("applied") + outcomes[op_id].count("refreshed") <= 1 for op_id in expected)


def members_owning(stack: LocalStack, topic: str) -> int:
    """Members of the stable group that own partitions of `topic` (0 while it is not stable yet)."""
    from kafka.errors import KafkaError

    try:
        assignment = group_assignment(stack, topic) or {}
    except KafkaError:  # the group's coordinator is not known yet
        return 0
    return sum(1 for parts in assignment.values() if parts)


def test_rebalances_while_turns_and_ops_stream_keep_the_ops_topic_order(
    make_stack: Callable[..., LocalStack], redis_client: Any
) -> None:
    """Workers join and leave while turns and records of the same users stream in: revoked
    partitions finish (or abandon) their batch, a fused apply happens only on partitions still
    owned, assigned partitions resume at the recorded positions. The state is the ops topic
    applied in order, and no op was applied twice."""
    stack = make_stack("rebal", workers=1, fast_failover=True, batch_size=10)
    tenant = f"t7-{run_id()}"
    ops_topic = stack.settings.topics[OPS]
    waves = [mixed_items(tenant, users=24, rounds=12)[i::6] for i in range(6)]
    for n, wave in enumerate(waves):
        send(stack.producer, wave)  # each rebalance below comes while a wave is being processed
        if n == 1:
            stack.add_worker()  # joins: the first worker gives up half its partitions
            wait_until(lambda: members_owning(stack, ops_topic) == 2, 60, "two members owning partitions", every=0.2)
        if n == 3:
            stack.stop_worker(stack.workers[0])  # leaves: the other takes everything
        if n == 4:
            stack.add_worker()
    stack.barrier()
    assert all(w.poll() is None for w in stack.workers)
    assert digest_namespace(redis_client, stack.settings.namespace).digest == replayed_digest(stack, redis_client)
    applied_once(stack)
