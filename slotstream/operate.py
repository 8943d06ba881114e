"""Operator commands: topics, state digests, namespaces (and, in replay.py and promote.py,
rebuilding one from the topics and switching to it). Each prints what it did; none prints data."""

from __future__ import annotations

import sys
from dataclasses import dataclass

import redis

from slotstream.state.client import connect
from slotstream.state.deploy import read_pointer
from slotstream.state.digest import Digest, digest_namespace
from slotstream.state.keys import Keys
from slotstream.state.namespaces import drop_namespace
from slotstream.streams.admin import apply_topic_configs, create_topics, describe_topics

from .settings import Settings


def topics_create(settings: Settings) -> int:
    assert settings.kafka_bootstrap
    specs = settings.topic_specs().values()
    created = create_topics(settings.kafka_bootstrap, specs)
    print("created: " + (", ".join(created) or "nothing (all exist)"))
    changed = apply_topic_configs(settings.kafka_bootstrap, specs)
    for name, diff in changed.items():
        print(f"updated {name}: " + ", ".join(f"{k} {was} -> {now}" for k, (was, now) in diff.items()))
    return 0


def topics_describe(settings: Settings) -> int:
    """Each topic's partitions and the configs the settings choose, as the broker holds them."""
    assert settings.kafka_bootstrap
    states = describe_topics(settings.kafka_bootstrap, settings.topic_specs().values())
    print(f"{'topic':<34} {'partitions':>10}  configs (broker value; * differs from the settings)")
    mismatches = 0
    for state in states:
        if not state.exists:
            print(f"{state.spec.name:<34} {'-':>10}  missing: `slotstream topics create` creates it")
            mismatches += 1
            continue
        differs = state.differs
        mismatches += bool(differs) or state.partitions != state.spec.partitions
        shown = ", ".join(
            f"{k}={state.config.get(k)}" + (f" * (settings: {v})" if k in differs else "")
            for k, v in state.spec.config.items()
        )
        parts = f"{state.partitions}" + ("" if state.partitions == state.spec.partitions else "*")
        print(f"{state.spec.name:<34} {parts:>10}  {shown}")
    if mismatches:
        print("\n* `slotstream topics create` sets the configs; partition counts are not changed by it")
    return 0


def _print_digest(digest: Digest) -> None:
    print(f"namespace {digest.namespace}: digest {digest.digest}")
    print(f"  {digest.users} users, {digest.records} records")
    for tenant, counts in digest.per_tenant.items():
        print(f"  tenant {tenant}: {counts['users']} users, {counts['records']} records")


def state_digest(settings: Settings, namespace: str | None) -> int:
    assert settings.redis_url
    client = connect(settings.redis_url)
    try:
        _print_digest(digest_namespace(client, namespace or read_pointer(client, settings.namespace).namespace))
    finally:
        client.close()
    return 0


@dataclass
class NamespaceInfo:
    name: str
    keys: int
    digest: Digest


def namespaces(client: redis.Redis) -> list[str]:
    """The namespaces that hold pipeline state (those with a marker), sorted."""
    found = set()
    for key in client.scan_iter(match="*:namespace", count=1000):
        text = key.decode()
        name = text.split(":", 1)[0]
        if text == Keys(name).marker():
            found.add(name)
    return sorted(found)


def namespace_info(client: redis.Redis, name: str) -> NamespaceInfo:
    count = sum(1 for _ in client.scan_iter(match=Keys(name).pattern(), count=1000))
    return NamespaceInfo(name, count, digest_namespace(client, name))


def namespace_list(settings: Settings) -> int:
    assert settings.redis_url
    client = connect(settings.redis_url)
    try:
        names = namespaces(client)
        if not names:
            print("no namespace holds pipeline state yet")
            return 0
        pointer = read_pointer(client, settings.namespace)
        roles = {pointer.namespace: f"serves {settings.namespace}"}
        if pointer.previous:
            roles[pointer.previous] = "previous"
        print(f"{'namespace':<24} {'keys':>8} {'users':>7} {'records':>8}  {'digest':<16}  role")
        for name in names:
            info = namespace_info(client, name)
            digest = info.digest
            role = roles.get(name, "")
            print(f"{name:<24} {info.keys:>8} {digest.users:>7} {digest.records:>8}  {digest.digest[:16]}  {role}")
    finally:
        client.close()
    return 0


def namespace_drop(settings: Settings, name: str, yes: bool) -> int:
    assert settings.redis_url
    client = connect(settings.redis_url)
    try:
        pointer = read_pointer(client, settings.namespace)
        if name == pointer.namespace:
            print(f"slotstream namespace drop: {name} serves {settings.namespace}; refusing", file=sys.stderr)
            return 1
        if name not in namespaces(client):
            print(f"slotstream namespace drop: no namespace {name} holds pipeline state", file=sys.stderr)
            return 1
        if not yes:
            print(f"slotstream namespace drop: deletes every key of {name}; add --yes to do it", file=sys.stderr)
            return 2
        print(f"dropped {name}: {drop_namespace(client, name)} keys")
    finally:
        client.close()
    return 0
