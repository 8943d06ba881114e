"""Helpers shared by test modules (on the path through pytest's `pythonpath = ["tests"]`)."""

from __future__ import annotations

from typing import Any


def dump_namespace(client: Any, ns: str, exclude: tuple[str, ...] = ()) -> dict[str, Any]:
    """Every key of a namespace (prefix stripped, so two namespaces compare) with its content,
    skipping keys that end with one of `exclude`."""
    out: dict[str, Any] = {}
    for key in client.scan_iter(match=f"{ns}:*", count=1000):
        name = key.decode()[len(ns) + 1:]
        if any(name.endswith(suffix) for suffix in exclude):
            continue
        kind = client.type(key)
        if kind == b"hash":
            out[name] = client.hgetall(key)
        elif kind == b"list":
            out[name] = client.lrange(key, 0, -1)
        elif kind == b"set":
            out[name] = sorted(client.smembers(key))
        elif kind == b"zset":
            out[name] = client.zrange(key, 0, -1, withscores=True)
        else:
            out[name] = client.get(key)
    return out
