"""Redis namespaces for operators: a namespace's digest, the namespaces holding pipeline state, and
dropping one that is not in use. Each prints what it did; none prints data."""

from __future__ import annotations

import sys
from dataclasses import dataclass

import redis

from slotstream.config.history import history_archive
from slotstream.config.settings import Settings
from slotstream.state.archive import HistoryArchive
from slotstream.state.client import connect
from slotstream.state.compaction import CompactionStats, Compactor
from slotstream.state.deployment import read_pointer
from slotstream.state.digest import Digest, digest_namespace
from slotstream.state.keys import Keys
from slotstream.state.namespaces import drop_namespace, used_memory


def _print_digest(digest: Digest) -> None:
    print(f"namespace {digest.namespace}: digest {digest.digest}")
    print(f"  {digest.users} users, {digest.records} records")
    for tenant, counts in digest.per_tenant.items():
        print(f"  tenant {tenant}: {counts['users']} users, {counts['records']} records")


def state_digest(settings: Settings, namespace: str | None) -> int:
    assert settings.redis_url
    client = connect(settings.redis_url)
    archive = history_archive(settings, client)
    try:
        name = namespace or read_pointer(client, settings.namespace).namespace
        _print_digest(digest_namespace(client, name, archive))
    finally:
        if archive is not None:
            archive.close()
        client.close()
    return 0


def state_compact(settings: Settings, namespace: str | None) -> int:
    """`slotstream state compact`: the compaction pass (state/compaction.py), with Redis's memory
    before and after."""
    assert settings.redis_url
    client = connect(settings.redis_url)
    archive = history_archive(settings, client)
    try:
        name = namespace or read_pointer(client, settings.namespace).namespace
        before = used_memory(client)
        compactor = Compactor(
            client,
            name,
            change_log_max=settings.change_log_max,
            history_hot=settings.history_hot,
            archive=archive,
            archive_after=settings.engine_options()["archive_after"],
        )

        def progress(stats: CompactionStats) -> None:
            print(f"  {stats.users:,} users, {stats.compacted:,} rewritten", file=sys.stderr, flush=True)

        stats = compactor.run(progress)
        after = used_memory(client)
    finally:
        if archive is not None:
            archive.close()
        client.close()
    print(f"namespace {name}: {stats.users:,} users, {stats.compacted:,} rewritten ({stats.retried:,} read again)")
    print(f"  records rewritten: {stats.records:,}; rows, ledger, log and suppression entries: {stats.entries:,}")
    print(
        f"  lineages rewritten: {stats.lineages:,}; retired records moved into cold histories: {stats.retired_moved:,}"
    )
    print(f"  read indexes dropped (small scopes): {stats.indexes_dropped:,}; built: {stats.indexes_built:,}")
    if stats.outages:
        print(f"  waited for the server {stats.outages:,} times (it did not answer for a moment)")
    print(f"  used_memory: {before:,} B before, {after:,} B after ({after - before:+,} B)")
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


def namespace_info(client: redis.Redis, name: str, archive: HistoryArchive | None = None) -> NamespaceInfo:
    count = sum(1 for _ in client.scan_iter(match=Keys(name).pattern(), count=1000))
    return NamespaceInfo(name, count, digest_namespace(client, name, archive))


def namespace_list(settings: Settings) -> int:
    assert settings.redis_url
    client = connect(settings.redis_url)
    archive = history_archive(settings, client)
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
            info = namespace_info(client, name, archive)
            digest = info.digest
            role = roles.get(name, "")
            print(f"{name:<24} {info.keys:>8} {digest.users:>7} {digest.records:>8}  {digest.digest[:16]}  {role}")
    finally:
        if archive is not None:
            archive.close()
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
