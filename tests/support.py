"""Helpers shared by test modules (on the path through pytest's `pythonpath = ["tests"]`)."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from slotstream.local.redis_server import free_port
from slotstream.local.stack import LocalStack
from slotstream.sidecar.keys import create_key
from slotstream.streams.topics import OPS, TURNS


def dump_namespace(client: Any, ns: str, exclude: tuple[str, ...] = ()) -> dict[str, Any]:
    """Every key of a namespace (prefix stripped, so two namespaces compare) with its content,
    skipping keys that end with one of `exclude`, and the write time each apply stamps on a
    user's meta hash (a wall-clock reading, never the same twice)."""
    out: dict[str, Any] = {}
    for key in client.scan_iter(match=f"{ns}:*", count=1000):
        name = key.decode()[len(ns) + 1 :]
        if any(name.endswith(suffix) for suffix in exclude):
            continue
        kind = client.type(key)
        if kind == b"hash":
            out[name] = client.hgetall(key)
            if name.endswith(":meta"):
                out[name].pop(b"written", None)
        elif kind == b"list":
            out[name] = client.lrange(key, 0, -1)
        elif kind == b"set":
            out[name] = sorted(client.smembers(key))
        elif kind == b"zset":
            out[name] = client.zrange(key, 0, -1, withscores=True)
        else:
            out[name] = client.get(key)
    return out


def start_stack(redis_url: str, bootstrap: str, name: str, log_dir: Any, workers: int = 1, **overrides: Any) -> Any:
    """A pipeline on given servers with topics, consumer group and Redis namespace of its own
    (`name`), a fast expiry timer, and `workers` worker processes logging into `log_dir`."""
    from slotstream.config.settings import Settings
    from slotstream.local.stack import LocalStack

    settings = Settings(
        **{
            "redis_url": redis_url,
            "kafka_bootstrap": bootstrap,
            "namespace": name,
            "topic_prefix": name,
            "partitions": 4,
            "expiry_interval": 0.2,
            **overrides,
        }
    )
    stack = LocalStack(settings, workers=0, log_dir=log_dir).start()
    for i in range(workers):
        stack.add_worker(i)
    return stack


def worker_logs(stack: Any) -> str:
    return "\n".join(p.read_text(errors="replace") for p in sorted(stack.log_dir.glob("worker-*.log")))


def record(tenant: str, user: str, attribute: str, value: Any, kind: str = "knowledge", **extra: Any) -> dict[str, Any]:
    """A record as producers send it: explicit, with a statement naming its value."""
    return {
        "tenant": tenant,
        "user": user,
        "kind": kind,
        "attribute": attribute,
        "value": value,
        "statement": f"{attribute} is {value}",
        "authority": "user_explicit",
        **extra,
    }


def stored_record(status: Any = None, at: Any = None, **fields: Any) -> Any:
    """A record as the engine stores it (validated and built from its wire form), then given
    `status`: by default a user's diet, said at 2026-01-01."""
    from datetime import UTC, datetime

    from slotstream.memory.models import Status
    from slotstream.memory.validation import build_record, parse_record

    data: dict[str, Any] = {"tenant": "t1", "user": "u1", "attribute": "profile.diet", "value": "vegetarian", **fields}
    built = build_record(
        parse_record(data), op_id=f"op-{next(_RECORD_NUMBERS)}", at=at or datetime(2026, 1, 1, tzinfo=UTC)
    )
    return built.model_copy(update={"status": status or Status.ACTIVE})


_RECORD_NUMBERS = itertools.count(1)


class Service:
    """A running sidecar over its own pipeline: keys for any tenant, HTTP clients with a key."""

    def __init__(self, stack: LocalStack, keys_file: Path) -> None:
        self.stack, self.keys_file = stack, keys_file
        self.url = stack.sidecar_url

    def key(self, tenant: str, scopes: str = "read,write,admin", roles: str = "") -> str:
        return create_key(self.keys_file, tenant, scopes.split(","), roles.split(",") if roles else [])[1]

    def http(self, key: str | None = None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30)

    def ends(self) -> dict[str, dict[int, int]]:
        return {role: self.stack.end_offsets(role) for role in (TURNS, OPS)}


def start_service(kafka_bootstrap: str, redis_url: str, log_dir: Path, name: str, **overrides: Any) -> Service:
    """A pipeline (start_stack) with the sidecar in front: two server processes, its own keys file."""
    keys_file = log_dir / f"{name}-keys.json"
    stack = start_stack(
        redis_url,
        kafka_bootstrap,
        name,
        log_dir / name,
        1,
        keys_file=str(keys_file),
        sidecar_port=free_port(),
        **{"sidecar_workers": 2, **overrides},
    )
    stack.start_sidecar()
    return Service(stack, keys_file)


def read_topic(stack: LocalStack, role: str, timeout: float = 60.0) -> list[Any]:
    """Every message on one of the stack's topics up to its end offsets now, from the beginning
    (partitions assigned, no group, nothing committed)."""
    from kafka import KafkaConsumer, TopicPartition

    name = stack.settings.topics[role]
    consumer = KafkaConsumer(
        bootstrap_servers=stack.bootstrap, enable_auto_commit=False, group_id=None, client_id="it-reader"
    )
    try:
        tps = [TopicPartition(name, p) for p in sorted(consumer.partitions_for_topic(name) or ())]
        assert tps, f"no partitions for {name}"
        consumer.assign(tps)
        consumer.seek_to_beginning(*tps)
        end = consumer.end_offsets(tps)
        out: list[Any] = []
        deadline = time.monotonic() + timeout
        while any(consumer.position(tp) < end[tp] for tp in tps):
            assert time.monotonic() < deadline, f"{name}: could not read up to {end}"
            for batch in consumer.poll(timeout_ms=200).values():
                out.extend(m for m in batch if m.offset < end[TopicPartition(m.topic, m.partition)])
        return out
    finally:
        consumer.close()


def wait_until(check: Callable[[], Any], timeout: float, what: str, every: float = 0.05) -> Any:
    """Poll `check` until it returns something true (returned), or fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}; last: {value!r}")
        time.sleep(every)
