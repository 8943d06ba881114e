"""Helpers shared by test modules (on the path through pytest's `pythonpath = ["tests"]`)."""

from __future__ import annotations

from typing import Any


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
