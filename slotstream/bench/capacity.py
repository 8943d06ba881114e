"""`slotstream bench capacity`: what a large population costs in Redis's RAM, and what it does
to applying and reading.

Through the engine, into a namespace of its own: `users` users over several tenants, each with a
realistic mix of `records_per_user` records (slotstream/bench/population.py; by default 200,000
users x 25 = 5,000,000 records), streamed in batches with a progress line on stderr; then a
correction of one record in five. The same on a namespace of `baseline_users` users (1,000), the
size context lookups are compared with.

For each deployment (one Redis server, and a Redis Cluster of three masters; each started here,
without persistence, unless SLOTSTREAM_REDIS_URL names one) it prints: used_memory before, after
the load and after the corrections, in bytes per record and per user; the time to load and the
apply rate; context lookup p50/p99 on random users at full size and at the baseline size; and the
bytes by key kind (MEMORY USAGE of every key, or of the keys of a sample of users, scaled up,
when there are many). Prints figures; asserts nothing.
"""

from __future__ import annotations

import contextlib
import random
import time
import zlib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import redis

from slotstream.bench.memory import bytes_by_kind, key_kind
from slotstream.bench.population import (
    RECORDS_PER_USER,
    REQUESTS,
    TENANTS,
    context_request,
    corrected,
    correction,
    user_records,
)
from slotstream.bench.progress_line import ProgressLine
from slotstream.config.settings import Settings
from slotstream.eval.scenarios import fresh_namespace
from slotstream.local.redis_server import LocalRedis, LocalRedisCluster, describe_server
from slotstream.memory.models import ContextRequest, OpIn, Outcome
from slotstream.state.client import connect, is_cluster_url
from slotstream.state.compaction import Compactor
from slotstream.state.keys import Keys
from slotstream.state.namespaces import drop_namespace, used_memory

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
CORRECTED_AT = T0 + timedelta(hours=3)  # after the whole load (one op a millisecond: 5M in 83 minutes)
ASKED_AT = T0 + timedelta(hours=6)  # within every record's lifetime (a session task lives a day)
OPS_PER_BATCH = 1000  # ops a batch, whole users each
CLUSTER_MASTERS = 3
# MEMORY USAGE of every key up to this many users (a user of 25 records has about 90 keys);
# above, of the keys of about SAMPLED_USERS of them
EXACT_USERS_UP_TO = 4000
SAMPLED_USERS = 2000
LOOKUP_ROUNDS = 5  # the lookups alternate between the two namespaces in this many rounds


@dataclass
class Loaded:
    """What loading one namespace did."""

    users: int
    records: int = 0
    applied: int = 0
    corrections: int = 0
    corrections_applied: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    load_s: float = 0.0
    correct_s: float = 0.0


@dataclass
class CapacityReport:
    """One deployment's figures (the integration test checks they add up)."""

    deployment: str
    server: str
    full: Loaded
    baseline: Loaded
    memory_before: int
    memory_loaded: int
    memory_corrected: int
    # used_memory after the compaction pass (`slotstream state compact`), and the users it rewrote
    memory_trimmed: int
    compacted: int
    lookups: int
    full_ms: list[float]
    baseline_ms: list[float]
    kind_bytes: Counter[str]
    kind_keys: Counter[str]
    keys_sampled_share: float  # 1.0: every key's MEMORY USAGE; else the share of users whose keys were

    @property
    def bytes_per_record(self) -> float:
        return (self.memory_corrected - self.memory_before) / max(1, self.full.records)

    @property
    def bytes_per_user(self) -> float:
        return (self.memory_corrected - self.memory_before) / max(1, self.full.users)


def trim_pass(client: redis.Redis, namespace: str) -> int:
    """The compaction pass (`slotstream state compact`) over `namespace`; the users it rewrote."""
    return Compactor(client, namespace).run().compacted


def pct(samples: list[float], q: float) -> float:
    s = sorted(samples)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))] if s else float("nan")


def _batches(users: int, per_user: int) -> Iterator[range]:
    step = max(1, OPS_PER_BATCH // max(1, per_user))
    for first in range(0, users, step):
        yield range(first, min(users, first + step))


def load_records(engine: Any, done: Loaded, per_user: int, label: str, seed: int) -> None:
    """`done.users` users' records through `engine`, in batches of whole users."""
    bar = ProgressLine(f"{label}: load", done.users * per_user)
    started = time.perf_counter()
    for chunk in _batches(done.users, per_user):
        ops = []
        for u in chunk:
            at = T0 + timedelta(milliseconds=u * per_user)
            ops += [OpIn(at=at, op_id=p.op_id, record=p.record) for p in user_records(u, per_user, at, seed)]
        results = engine.apply_many(ops)
        done.records += len(ops)
        done.outcomes.update(f"record {r.outcome.value}" for r in results)
        done.applied += sum(r.outcome == Outcome.APPLIED for r in results)
        bar.advance(len(ops))
    done.load_s = time.perf_counter() - started
    bar.finish()


def load_corrections(engine: Any, done: Loaded, per_user: int, label: str, seed: int) -> None:
    """A `correct` command for one record in five of every user (the records' ids are planned,
    so nothing of the load is kept)."""
    bar = ProgressLine(
        f"{label}: corrections", done.users * sum(1 for _ in corrected(user_records(0, per_user, T0, seed)))
    )
    started = time.perf_counter()
    for chunk in _batches(done.users, per_user):
        ops: list[OpIn] = []
        for u in chunk:
            planned = user_records(u, per_user, T0 + timedelta(milliseconds=u * per_user), seed)
            for p in corrected(planned):
                n = done.corrections + len(ops)
                ops.append(
                    OpIn(at=CORRECTED_AT + timedelta(milliseconds=n), op_id=f"fix:{p.op_id}", command=correction(p, n))
                )
        results = engine.apply_many(ops)
        done.corrections += len(ops)
        done.outcomes.update(f"correct {r.outcome.value}" for r in results)
        done.corrections_applied += sum(r.outcome == Outcome.APPLIED for r in results)
        bar.advance(len(ops))
    done.correct_s = time.perf_counter() - started
    bar.finish()


def load(engine: Any, users: int, per_user: int, label: str, seed: int) -> Loaded:
    done = Loaded(users=users)
    load_records(engine, done, per_user, label, seed)
    load_corrections(engine, done, per_user, label, seed)
    return done


def sampled_bytes_by_kind(client: redis.Redis, namespace: str, users: int) -> tuple[Counter[str], Counter[str], float]:
    """Bytes and keys by key kind: of every key (`bytes_by_kind`) when the namespace holds few;
    else of the keys of about SAMPLED_USERS users (chosen by a hash of their id), scaled up by
    the share they are, and of every key of the namespace's own bookkeeping. One pass of SCAN."""
    keys = Keys(namespace)
    if users <= EXACT_USERS_UP_TO:
        exact_size, exact_count = bytes_by_kind(client, namespace)
        return exact_size, exact_count, 1.0
    every = max(1, users // SAMPLED_USERS)
    picked: set[tuple[str, str]] = set()
    chosen: list[tuple[str, bool]] = []  # (key, belongs to a sampled user)
    for raw in client.scan_iter(match=keys.pattern(), count=5000):
        name = raw.decode() if isinstance(raw, bytes) else str(raw)
        owner = keys.user_of_key(name)
        if owner is None:
            chosen.append((name, False))
        elif zlib.crc32(f"{owner[0]}:{owner[1]}".encode()) % every == 0:
            picked.add(owner)
            chosen.append((name, True))
    scale = users / max(1, len(picked))
    size: dict[str, float] = {}
    count: dict[str, float] = {}
    for start in range(0, len(chosen), 1000):
        chunk = chosen[start : start + 1000]
        pipe = client.pipeline(transaction=False)
        for name, _ in chunk:
            pipe.memory_usage(name, samples=0)
        for (name, of_user), used in zip(chunk, pipe.execute(), strict=True):
            kind, weight = key_kind(name), scale if of_user else 1.0
            size[kind] = size.get(kind, 0.0) + int(used or 0) * weight
            count[kind] = count.get(kind, 0.0) + weight
    rounded = (Counter({k: round(v) for k, v in size.items()}), Counter({k: round(v) for k, v in count.items()}))
    return *rounded, len(picked) / max(1, users)


def lookups(engines: tuple[Any, Any], sizes: tuple[int, int], n: int, seed: int = 3) -> tuple[list[float], list[float]]:
    """`n` context lookups on random users of each namespace, alternating in rounds (ms each)."""
    rng = random.Random(seed)
    out: tuple[list[float], list[float]] = ([], [])
    per_round = max(1, n // LOOKUP_ROUNDS)
    while len(out[1]) < n:
        for side in (0, 1):
            for _ in range(min(per_round, n - len(out[side]))):
                req = ContextRequest.model_validate(context_request(rng.randrange(sizes[side]), rng))
                started = time.perf_counter()
                engines[side].context(req, ASKED_AT)
                out[side].append((time.perf_counter() - started) * 1000)
    return out


@dataclass(frozen=True)
class CapacityArgs:
    users: int
    records_per_user: int
    baseline_users: int
    lookups: int
    seed: int = 1
    drop: bool = True  # drop the bench's namespaces afterwards (not needed on a server the bench started)


def measure(client: redis.Redis, deployment: str, server: str, args: CapacityArgs) -> CapacityReport:
    from slotstream.state.engine import Engine

    full_ns, base_ns = fresh_namespace("cap"), fresh_namespace("capbase")
    try:
        engine = Engine(client, namespace=full_ns)
        full = Loaded(users=args.users)
        before = used_memory(client)
        load_records(engine, full, args.records_per_user, deployment, args.seed)
        loaded = used_memory(client)
        load_corrections(engine, full, args.records_per_user, deployment, args.seed)
        corrected_mem = used_memory(client)
        compacted = trim_pass(client, full_ns)
        trimmed = used_memory(client)
        base = load(
            Engine(client, namespace=base_ns), args.baseline_users, args.records_per_user, "baseline", args.seed
        )
        full_ms, base_ms = lookups(
            (Engine(client, namespace=full_ns), Engine(client, namespace=base_ns)),
            (args.users, args.baseline_users),
            args.lookups,
        )
        size, count, share = sampled_bytes_by_kind(client, full_ns, args.users)
        return CapacityReport(
            deployment=deployment,
            server=server,
            full=full,
            baseline=base,
            memory_before=before,
            memory_loaded=loaded,
            memory_corrected=corrected_mem,
            memory_trimmed=trimmed,
            compacted=compacted,
            lookups=args.lookups,
            full_ms=full_ms,
            baseline_ms=base_ms,
            kind_bytes=size,
            kind_keys=count,
            keys_sampled_share=share,
        )
    finally:
        if args.drop:
            drop_namespace(client, full_ns)
            drop_namespace(client, base_ns)


def _server(client: redis.Redis) -> str:
    """The server's build; of the first master, on a cluster (INFO answers per node there)."""
    info = client.info()
    nodes = [v for v in info.values() if isinstance(v, dict)] if "redis_version" not in info else []
    return describe_server(nodes[0] if nodes else info)


@contextlib.contextmanager
def deployment(settings: Settings, which: str) -> Iterator[tuple[redis.Redis, str, bool]]:
    """(client, label, started here) for one deployment: the configured Redis when
    SLOTSTREAM_REDIS_URL is set, else a server or a cluster started now without persistence (the
    question is RAM; an AOF would add its rewrites' forks to the timings)."""
    if settings.redis_url:
        client = connect(settings.redis_url)
        label = "configured cluster" if is_cluster_url(settings.redis_url) else "configured server"
        try:
            yield client, label, False
        finally:
            client.close()
        return
    local: LocalRedis | LocalRedisCluster
    if which == "single":
        local = LocalRedis(persist=False)
    else:
        local = LocalRedisCluster(masters=CLUSTER_MASTERS, persist=False)
    with local:
        client = connect(local.url)
        try:
            yield client, "single" if which == "single" else f"cluster of {CLUSTER_MASTERS}", True
        finally:
            client.close()


def _mb(n: float) -> str:
    return f"{n / 1e6:,.1f} MB"


def print_report(r: CapacityReport, per_user: int) -> None:
    full, base = r.full, r.baseline
    print(f"\n== {r.deployment}: {r.server} ==")
    print(
        f"load: {full.users:,} users over {min(TENANTS, full.users)} tenants x {per_user} records = "
        f"{full.records:,} records, {full.applied:,} applied, in {full.load_s:,.1f} s: "
        f"{full.records / max(1e-9, full.load_s):,.0f} ops/s"
    )
    print(
        f"corrections (one record in five): {full.corrections:,}, {full.corrections_applied:,} applied, in "
        f"{full.correct_s:,.1f} s: {full.corrections / max(1e-9, full.correct_s):,.0f} ops/s"
    )
    unexpected = {k: v for k, v in sorted(full.outcomes.items()) if not k.endswith(" applied")}
    if unexpected:
        print(f"  outcomes other than applied: {unexpected}")
    added = r.memory_loaded - r.memory_before
    print(
        f"used_memory: {_mb(r.memory_before)} before, {_mb(r.memory_loaded)} loaded, "
        f"{_mb(r.memory_corrected)} after the corrections"
    )
    print(
        f"  per record: {added / max(1, full.records):,.0f} B loaded, {r.bytes_per_record:,.0f} B with the corrections"
    )
    print(f"  per user:   {added / max(1, full.users):,.0f} B loaded, {r.bytes_per_user:,.0f} B with the corrections")
    trimmed = (r.memory_trimmed - r.memory_before) / max(1, full.records)
    print(
        f"  after the compaction pass ({r.compacted:,} users rewritten): {_mb(r.memory_trimmed)}, "
        f"{trimmed:,.0f} B per record"
    )
    print(
        f"context lookups, {r.lookups:,} on random users each (a project, a session, one of "
        f"{len(REQUESTS)} everyday requests, 8 items, 2,000 chars):"
    )
    for label, ms in (
        (f"{full.users:,} users", r.full_ms),
        (f"{base.users:,} users", r.baseline_ms),
    ):
        print(f"  {label:>16}: p50 {pct(ms, 0.5):7.3f} ms  p99 {pct(ms, 0.99):7.3f} ms  ({len(ms):,} lookups)")
    how = (
        "MEMORY USAGE of every key"
        if r.keys_sampled_share >= 1.0
        else f"MEMORY USAGE of the keys of {r.keys_sampled_share:.2%} of the users, scaled up; "
        "the namespace's own keys whole"
    )
    print(f"bytes by key kind ({how}):")
    print(f"  {'key kind':<12} {'keys':>12} {'MB':>10} {'B per record':>13}")
    for kind, used in r.kind_bytes.most_common():
        print(f"  {kind:<12} {r.kind_keys[kind]:>12,} {used / 1e6:>10.1f} {used / max(1, full.records):>13,.0f}")
    total = sum(r.kind_bytes.values())
    print(f"  {'all':<12} {sum(r.kind_keys.values()):>12,} {total / 1e6:>10.1f} {total / max(1, full.records):>13,.0f}")


def print_summary(reports: list[CapacityReport]) -> None:
    print(
        f"\n{'deployment':<14} {'B/record':>9} {'B/user':>9} {'load s':>8} {'apply ops/s':>12} "
        f"{'ctx p50':>8} {'ctx p99':>8} {'base p50':>9} {'base p99':>9}  (ms; base: the baseline namespace)"
    )
    for r in reports:
        print(
            f"{r.deployment:<14} {r.bytes_per_record:>9,.0f} {r.bytes_per_user:>9,.0f} {r.full.load_s:>8,.1f} "
            f"{r.full.records / max(1e-9, r.full.load_s):>12,.0f} {pct(r.full_ms, 0.5):>8.3f} "
            f"{pct(r.full_ms, 0.99):>8.3f} {pct(r.baseline_ms, 0.5):>9.3f} {pct(r.baseline_ms, 0.99):>9.3f}"
        )


def run_capacity_bench(settings: Settings, redis_choice: str, args: CapacityArgs) -> list[CapacityReport]:
    """Each deployment `redis_choice` names (single, cluster, both; the configured one alone when
    SLOTSTREAM_REDIS_URL is set), loaded and measured; prints as it goes and returns the reports."""
    which = ["single", "cluster"] if redis_choice == "both" else [redis_choice]
    if settings.redis_url:
        which = which[:1]
    print(
        f"capacity bench: {args.users:,} users x {args.records_per_user} records = "
        f"{args.users * args.records_per_user:,} records (the mix of {RECORDS_PER_USER} a user), "
        f"then a correction of one record in five; context lookups compared with {args.baseline_users:,} users",
        flush=True,
    )
    reports = []
    for name in which:
        with deployment(settings, name) as (client, label, started_here):
            run_args = args if not started_here else CapacityArgs(**{**args.__dict__, "drop": False})
            report = measure(client, label, _server(client), run_args)
        print_report(report, args.records_per_user)
        reports.append(report)
    if len(reports) > 1:
        print_summary(reports)
    print(
        "\nused_memory: INFO memory, summed over a cluster's masters; B/record and B/user: its growth over "
        "the load and the corrections, divided by the records and the users loaded"
    )
    return reports
