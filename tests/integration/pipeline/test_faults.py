"""Faults injected into a running pipeline: poison input, a killed worker, Redis and the Kafka
broker stopped mid-stream, a handler error, lost state, a run full of secrets.

Each run ends with the state digest of a clean run of the same good input (applied straight into
the engine), so "nothing lost, nothing applied twice" is checked on the whole state, not on
samples. The module has a Redis and a broker of its own: the outage tests stop and restart them.
Each test runs on each runtime (the `runtime` fixture, conftest.py); the main job's restart on the
default one.
"""

from __future__ import annotations

import shutil
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from slotstream.config.settings import Settings
from slotstream.local.kafka_broker import LocalKafka
from slotstream.local.redis_server import LocalRedis
from slotstream.local.stack import LocalStack
from slotstream.memory.limits import MAX_OPS_PER_TURN
from slotstream.state.digest import digest_namespace
from slotstream.streams.producer import SlotstreamProducer
from slotstream.streams.topics import CHANGES, DLQ, OPS, TURNS, user_key

from support import read_topic, start_stack, worker_logs
from workloads import T0, Workload, build, reference_digest, send

pytestmark = [pytest.mark.kafka, pytest.mark.integration]


@pytest.fixture(scope="module")
def fault_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalRedis]:
    server = LocalRedis(data_dir=tmp_path_factory.mktemp("fault-redis")).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def fault_kafka() -> Iterator[LocalKafka]:
    broker = LocalKafka(num_partitions=4, startup_timeout=120)
    broker.start()
    yield broker
    broker.stop()


@pytest.fixture(scope="module")
def make_stack(
    fault_redis: LocalRedis, fault_kafka: LocalKafka, tmp_path_factory: pytest.TempPathFactory, runtime: str
) -> Iterator[Callable[..., LocalStack]]:
    started: list[LocalStack] = []

    def make(tag: str, workers: int = 1, **overrides: Any) -> LocalStack:
        name = f"f-{tag}-{uuid.uuid4().hex[:6]}"
        overrides.setdefault("batch_size", 20)
        overrides.setdefault("session_timeout", 6.0)
        overrides.setdefault("runtime", runtime)
        stack = start_stack(
            fault_redis.url, fault_kafka.bootstrap, name, tmp_path_factory.mktemp(name), workers, **overrides
        )
        started.append(stack)
        return stack

    yield make
    for stack in started:
        stack.stop()


def digest(stack: LocalStack) -> tuple[str, int, int]:
    d = digest_namespace(stack.client, stack.settings.namespace)
    return d.digest, d.users, d.records


def expected(stack: LocalStack, workload: Workload) -> tuple[str, int, int]:
    d = reference_digest(stack.client, workload)
    assert d.records > 0
    return d.digest, d.users, d.records


def applied_ops(stack: LocalStack) -> int:
    return sum(stack.progress.offsets(stack.settings.topics[OPS]).values())


def alive(stack: LocalStack) -> bool:
    return bool(stack.workers) and all(w.poll() is None for w in stack.workers)


# --- poison -----------------------------------------------------------------------------------------


def _poison(tenant: str) -> list[tuple[str, bytes | None, bytes, str]]:
    """(topic role, key, raw value, expected reason) for every kind of bad input we know."""
    key = user_key(tenant, "mallory")
    at = "2026-10-01T09:30:00Z"

    def op(record: dict[str, Any] | None = None, **envelope: Any) -> bytes:
        body = {
            "tenant": tenant,
            "user": "mallory",
            "kind": "knowledge",
            "attribute": "knowledge.x",
            "value": "y",
            **(record or {}),
        }
        return orjson.dumps({"at": at, "op_id": f"poison-{uuid.uuid4().hex[:8]}", "record": body, **envelope})

    def turn(**fields: Any) -> bytes:
        return orjson.dumps(
            {"tenant": tenant, "user": "mallory", "role": "user", "text": "I moved to Rome.", "at": at, **fields}
        )

    deep: Any = "x"
    for _ in range(250):
        deep = [deep]
    many = " ".join(f"I moved to City{i}." for i in range(MAX_OPS_PER_TURN + 8))
    return [
        (OPS, key, b'{"at": "2026-10-01T09:00:00Z", "record": {"tenant": ', "invalid_json"),
        (OPS, key, b"[1, 2, 3]", "invalid_field"),
        (OPS, key, op({"value": deep}), "too_deep"),
        (OPS, key, op({"statement": "x" * 300_000}), "too_large"),
        (OPS, key, op({"value": "v" * 5_000}), "too_large"),
        (OPS, key, op(at="9999-12-31T23:59:59Z"), "time_out_of_range"),
        (OPS, key, op({"valid_until": "9999-12-31T23:59:59Z"}), "time_out_of_range"),
        (OPS, key, op(at="2150-01-01T00:00:00Z"), "event_time_in_future"),
        (OPS, user_key("B" + tenant, "mallory"), op(), "tenant_mismatch"),
        (OPS, None, op(), "tenant_mismatch"),
        (OPS, f"{tenant} /mallory".encode(), op({"tenant": f"{tenant} "}), "invalid_id"),
        (OPS, f"\t{tenant}/mallory".encode(), op({"tenant": f"\t{tenant}"}), "invalid_id"),
        (OPS, f"{tenant}\n/mallory".encode(), op({"tenant": f"{tenant}\n"}), "invalid_id"),
        (OPS, key, op({"attribute": "knowledge.a|b"}), "invalid_attribute"),
        (OPS, key, op({"subject": "user|knowledge.a", "attribute": "b"}), "invalid_attribute"),
        (OPS, key, op({"attribute": "account.password", "value": "correct horse"}), "secret_value"),
        (TURNS, key, turn(text="x" * 100_000), "too_large"),
        (TURNS, key, turn(text=many), "too_many_ops"),
        (TURNS, key, turn(at="9999-12-31T23:59:59Z"), "time_out_of_range"),
        (TURNS, key, turn(at="2150-01-01T00:00:00Z"), "event_time_in_future"),
        (TURNS, user_key("B" + tenant, "mallory"), turn(), "tenant_mismatch"),
        (TURNS, f"{tenant} /mallory".encode(), turn(tenant=f"{tenant} "), "invalid_id"),
        (
            TURNS,
            key,
            orjson.dumps({"tenant": tenant, "user": "mallory", "text": "hi", "at": at, "x": deep}),
            "too_deep",
        ),
        (TURNS, key, b"\xff\xfe not json", "invalid_json"),
    ]


def test_poison_interleaved_with_good_messages_on_both_topics(make_stack: Callable[..., LocalStack]) -> None:
    stack = make_stack("poison")
    work = build()
    poison = _poison(work.tenant)
    sent: list[tuple[str, int, int, str]] = []
    good = work.items
    step = max(1, len(good) // len(poison))
    for n, (role, key, value, reason) in enumerate(poison):
        send(stack.producer, good[n * step : (n + 1) * step])
        meta = stack.producer.send_raw(role, key, value).get(timeout=30)
        sent.append((meta.topic, meta.partition, meta.offset, reason))
    send(stack.producer, good[len(poison) * step :])
    stack.barrier()

    from slotstream.state.digest import users_of

    extra = [u for u in users_of(stack.client, stack.settings.namespace) if u[1].startswith(("mallory",))]
    assert not extra, [(u, stack.engine.records(*u)) for u in extra]
    assert digest(stack) == expected(stack, work), "the good messages' state differs from a clean run"
    letters = {}
    for m in read_topic(stack, DLQ):
        dl = orjson.loads(m.value)
        letters.setdefault((dl["source"]["topic"], dl["source"]["partition"], dl["source"]["offset"]), []).append(dl)
        assert len(m.value) < 4_000, "a dead letter is bounded"
    for topic, partition, offset, reason in sent:
        got = letters.get((topic, partition, offset), [])
        assert [dl["reason"] for dl in got] == [reason], (topic, offset, reason, got)
    assert len(letters) == len(poison), "only the poison was dead-lettered"
    assert alive(stack)


# --- a worker killed mid-stream ---------------------------------------------------------------------


def test_worker_killed_mid_stream_and_restarted(make_stack: Callable[..., LocalStack]) -> None:
    stack = make_stack("kill", workers=0, batch_size=5)
    work = build(turn_users=40, op_users=40)
    send(stack.producer, work.items)
    total = sum(stack.end_offsets(OPS).values())
    worker = stack.add_worker()
    deadline = time.monotonic() + 90
    while applied_ops(stack) < total // 4:
        assert time.monotonic() < deadline and worker.poll() is None
        time.sleep(0.002)
    stack.stop_worker(worker, kill=True)
    assert applied_ops(stack) < sum(stack.end_offsets(OPS).values()), "the kill came after the end"
    stack.add_worker()
    stack.barrier(timeout=180)
    assert digest(stack) == expected(stack, work)


def test_sigterm_mid_stream_stops_cleanly_and_the_next_worker_goes_on(
    make_stack: Callable[..., LocalStack], runtime: str
) -> None:
    """SIGTERM while batches are in flight: the worker takes no new batch, finishes the ones it
    holds (their records delivered, their positions recorded), leaves the group and exits 0; the
    next worker goes on from the recorded positions."""
    stack = make_stack("sigterm", workers=0, batch_size=5)
    work = build(turn_users=40, op_users=40)
    send(stack.producer, work.items)
    worker = stack.add_worker()
    deadline = time.monotonic() + 90
    while applied_ops(stack) < sum(stack.end_offsets(OPS).values()) // 4:
        assert time.monotonic() < deadline and worker.poll() is None
        time.sleep(0.002)
    started = time.monotonic()
    stack.stop_worker(worker)  # SIGTERM, then up to 30 s before a SIGKILL
    assert worker.returncode == 0, worker.returncode
    assert time.monotonic() - started < 25, "the worker did not stop within its grace"
    assert applied_ops(stack) < sum(stack.end_offsets(OPS).values()), "the stop came after the end"
    stack.add_worker()
    stack.barrier(timeout=180)
    assert digest(stack) == expected(stack, work)
    if runtime == "lean":
        # a clean flush: every batch it applied was recorded, so none is applied again
        assert stack.progress.counters().get("ops_applied:duplicate", 0) == 0


# --- Redis and Kafka outages ---------------------------------------------------------------------------


def test_redis_gone_for_five_seconds_mid_stream(make_stack: Callable[..., LocalStack], fault_redis: LocalRedis) -> None:
    stack = make_stack("redis")
    work = build()
    first, before, during, after = work.waves(4)
    send(stack.producer, first)
    stack.barrier()
    send(stack.producer, before)  # being applied when Redis stops
    fault_redis.halt()
    # consumed while Redis is gone; the stack's producer seals with users' keys held in Redis, so
    # this wave goes through one that does not seal (as a producer outside the repository would)
    plain = SlotstreamProducer(stack.bootstrap or "", stack.settings.topic_prefix)
    send(plain, during)
    plain.close()
    time.sleep(5)
    fault_redis.start()
    send(stack.producer, after)
    stack.barrier(timeout=180)
    assert digest(stack) == expected(stack, work)
    assert alive(stack)
    log = worker_logs(stack)
    assert "waiting for Redis" in log and "resumed after" in log


def test_redis_coming_back_behind_what_it_acknowledged(
    make_stack: Callable[..., LocalStack], fault_redis: LocalRedis
) -> None:
    """A Redis that comes back without its last acknowledged writes (restored from an older
    append-only file, or failed over to a lagging replica): the worker finds its positions
    behind what it recorded, restarts itself, and re-reads from there."""
    stack = make_stack("behind")
    work = build()
    first, second, third = work.waves(3)
    send(stack.producer, first)
    stack.barrier()
    fault_redis.halt()
    older = fault_redis.folder.parent / (fault_redis.folder.name + "-older")
    shutil.rmtree(older, ignore_errors=True)
    shutil.copytree(fault_redis.folder, older)
    fault_redis.start()
    send(stack.producer, second)
    stack.barrier(timeout=180)
    fault_redis.halt(kill=True)
    shutil.rmtree(fault_redis.folder)
    shutil.copytree(older, fault_redis.folder)  # what Redis holds now: the state after `first` only
    fault_redis.start()
    send(stack.producer, third)
    stack.barrier(timeout=180)
    assert digest(stack) == expected(stack, work)
    assert alive(stack)
    log = worker_logs(stack)
    assert "restarting the worker to re-read" in log


def test_broker_gone_for_five_seconds_mid_stream(
    make_stack: Callable[..., LocalStack], fault_kafka: LocalKafka
) -> None:
    stack = make_stack("broker")
    work = build()
    first, before, during, after = work.waves(4)
    send(stack.producer, first)
    stack.barrier()
    for item in before:  # in flight when the broker stops: the worker is consuming and producing
        send(stack.producer, [item])
    fault_kafka.halt()
    # sent while the broker is down: the producer holds them until it is back
    sender = threading.Thread(target=send, args=(stack.producer, during))
    sender.start()
    time.sleep(5)
    fault_kafka.resume()
    sender.join(timeout=120)
    assert not sender.is_alive()
    send(stack.producer, after)
    stack.barrier(timeout=180)
    assert digest(stack) == expected(stack, work)
    assert alive(stack)


# --- an unexpected error on one message ---------------------------------------------------------------


def test_handler_error_on_one_message_dead_letters_it_and_applies_the_rest(
    make_stack: Callable[..., LocalStack],
) -> None:
    marker = f"FAULT-{uuid.uuid4().hex[:8]}"
    stack = make_stack("handler", fault_markers=marker)
    work = build()
    victim = next(i for i in work.items[len(work.items) // 2 :] if i.kind == "record")
    victim.body = {**victim.body, "statement": f"{victim.body['statement']} {marker}"}
    send(stack.producer, work.items)
    stack.barrier()
    assert digest(stack) == expected(stack, work.without(str(victim.op_id)))
    letters = [orjson.loads(m.value) for m in read_topic(stack, DLQ)]
    assert [(dl["reason"], dl["error"]) for dl in letters] == [("internal_error", "InjectedFault")]
    assert alive(stack)


# --- lost state --------------------------------------------------------------------------------------


def test_a_namespace_that_lost_its_state_stops_the_worker_and_rebuild_restores_it(
    make_stack: Callable[..., LocalStack],
) -> None:
    stack = make_stack("lost")
    work = build()
    first, second = work.waves(2)
    send(stack.producer, first)
    stack.barrier()
    from slotstream.streams.admin import committed_offsets

    names = [stack.settings.topics[role] for role in (TURNS, OPS)]
    deadline = time.monotonic() + 30
    while not all(committed_offsets(stack.bootstrap or "", stack.settings.group, names).values()):
        assert time.monotonic() < deadline, "the worker never committed its offsets"
        time.sleep(0.1)
    for key in stack.client.scan_iter(match=f"{stack.settings.namespace}:*", count=1000):
        stack.client.delete(key)  # what a Redis restarted without persistence looks like
    send(stack.producer, second)
    (worker,) = stack.workers
    assert worker.wait(timeout=60) == 3, "the worker carried on over lost state"
    stack.workers.clear()

    again = stack.add_worker()
    assert again.wait(timeout=60) == 3, "a new worker started over lost state"
    stack.workers.clear()
    logs = worker_logs(stack)
    assert "has no state" in logs and "slotstream worker --rebuild" in logs

    for key in stack.client.scan_iter(match=f"{stack.settings.namespace}:*", count=1000):
        stack.client.delete(key)  # the partial writes of the batch that found the state gone
    stack.add_worker(extra_args=["--rebuild"])
    stack.barrier(timeout=180)
    assert digest(stack) == expected(stack, work)


# --- the main job survives a restart -------------------------------------------------------------------


def test_the_main_jobs_embedded_servers_keep_state_across_a_restart(tmp_path: Path, default_runtime: str) -> None:
    settings = Settings(
        data_dir=str(tmp_path / "var"),
        namespace="ss",
        topic_prefix="main",
        partitions=2,
        batch_size=20,
        runtime=default_runtime,
    )
    work = build(turn_users=8, op_users=8)
    first, second = work.waves(2)
    with LocalStack(settings, workers=1, persistent=True, log_dir=tmp_path / "logs") as stack:
        send(stack.producer, first)
        stack.barrier()
        before = digest(stack)
    assert (tmp_path / "var" / "redis" / "appendonlydir").is_dir()
    with LocalStack(settings, workers=1, persistent=True, log_dir=tmp_path / "logs") as stack:
        assert digest(stack) == before, "the restarted main job lost its state"
        send(stack.producer, second)
        stack.barrier()
        assert digest(stack) == expected(stack, work)


# --- secrets ----------------------------------------------------------------------------------------

JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
SECRETS = {
    "hunter2222": "My password is hunter2222. I prefer short answers.",
    "sk-abcdefghijklmnop1234": "My API key is sk-abcdefghijklmnop1234.",
    JWT: f"the session token {JWT}",
    "S3cretPw": "connect with postgres://app:S3cretPw@db.internal:5432/main please",
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY": "aws secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "Xy9!qqzz": "my pass Xy9!qqzz",
    "abc12345": "密码 abc12345，以后回答详细一点。",
    "73916482": "验证码 73916482",
    "4111111111111111": "card 4111111111111111",
}


def test_a_run_full_of_secrets_leaves_none_at_rest(make_stack: Callable[..., LocalStack]) -> None:
    stack = make_stack("secrets")
    tenant = f"s{uuid.uuid4().hex[:6]}"
    p = stack.producer
    for n, text in enumerate(SECRETS.values()):
        p.send_turn(T0, {"tenant": tenant, "user": f"u{n}", "session": "s1", "role": "user", "text": text})
        p.send_record(
            T0,
            {
                "tenant": tenant,
                "user": f"u{n}",
                "kind": "knowledge",
                "attribute": "knowledge.note",
                "value": text,
                "statement": text,
            },
        )
        p.send_record(
            T0,
            {
                "tenant": tenant,
                "user": f"u{n}",
                "kind": "knowledge",
                "attribute": "knowledge.ok",
                "value": "fine",
                "statement": "fine",
                "evidence": [{"source_id": "turn-1", "quote": text}],
            },
        )
    p.send_record(
        T0,
        {
            "tenant": tenant,
            "user": "v",
            "kind": "knowledge",
            "attribute": "account.password",
            "value": "correcthorsebattery",
        },
    )
    p.send_record(
        T0,
        {
            "tenant": tenant,
            "user": "v",
            "kind": "knowledge",
            "attribute": "knowledge.creds",
            "value": {"password": "zebra-horse-42"},
        },
    )
    p.send_command(
        T0,
        {"op": "correct", "tenant": tenant, "user": "v", "record_id": "r_x", "value": "sk-live-abcdefghijklmnopqrst"},
    )
    p.flush()
    stack.barrier()
    needles = [*SECRETS, "correcthorsebattery", "zebra-horse-42", "sk-live-abcdefghijklmnopqrst"]

    blobs: list[bytes] = []
    for key in stack.client.scan_iter(match=f"{stack.settings.namespace}:*", count=1000):
        blobs.append(key)
        kind = stack.client.type(key)
        if kind == b"hash":
            blobs += [x for kv in stack.client.hgetall(key).items() for x in kv]
        elif kind == b"list":
            blobs += stack.client.lrange(key, 0, -1)
        elif kind == b"zset":
            blobs += stack.client.zrange(key, 0, -1)
        elif kind == b"set":
            blobs += list(stack.client.smembers(key))
        else:
            blobs.append(stack.client.get(key) or b"")
    assert any(b"fine" in b for b in blobs), "the clean records were stored"
    for role in (TURNS, OPS, CHANGES, DLQ):
        for m in read_topic(stack, role):
            blobs += [m.key or b"", m.value or b""]
    for log in stack.log_dir.glob("worker-*.log"):  # type: ignore[union-attr]
        blobs.append(log.read_bytes())
    everything = b"\n".join(blobs).decode("utf-8", errors="replace")
    leaked = [n for n in needles if n in everything]
    assert not leaked, f"secrets at rest: {leaked}"
