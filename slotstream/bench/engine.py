"""`slotstream bench engine`: apply throughput and context latency, next to a plain GET (the floor).

Prints figures; asserts nothing. Run on a quiet machine: the Redis server and this process each
take one core.
"""

from __future__ import annotations

import functools
import random
import statistics
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import redis

from slotstream.config.settings import Settings
from slotstream.eval.corpus import corpus_path
from slotstream.eval.open_language import load
from slotstream.eval.scenarios import fresh_namespace
from slotstream.local.redis_server import configured_or_local, server_build
from slotstream.memory.models import ContextRequest, OpIn
from slotstream.memory.semantics.topics import main_area
from slotstream.state.keys import Keys
from slotstream.state.namespaces import drop_namespace

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
WORDS = [
    "deploy",
    "review",
    "budget",
    "launch",
    "design",
    "api",
    "latency",
    "report",
    "client",
    "schedule",
    "migration",
    "test",
    "invoice",
    "contract",
    "roadmap",
    "hiring",
    "security",
    "backup",
]


# issue targets: context p99 as a multiple of a plain GET's p99, by active records
READ_TARGETS = {100: 5, 1000: 10, 10000: 20}


def _timed(call: Any, n: int) -> list[float]:
    out = []
    for _ in range(n):
        started = time.perf_counter()
        call()
        out.append((time.perf_counter() - started) * 1000)
    return out


def _pct(samples: list[float], q: float) -> float:
    s = sorted(samples)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))]


def _record(tenant: str, user: str, i: int, rng: random.Random) -> dict[str, Any]:
    words = rng.sample(WORDS, 3)
    return {
        "tenant": tenant,
        "user": user,
        "kind": "knowledge",
        "attribute": f"knowledge.item_{i}",
        "value": f"{words[0]} {words[1]} {i}",
        "statement": f"Decision {i}: {' '.join(words)}.",
        "importance": round(rng.random(), 2),
        "evidence": [{"source_type": "conversation", "source_id": f"turn-{i}"}],
    }


def _stated(tenant: str, user: str, i: int, statements: list[str]) -> dict[str, Any]:
    """What a user said of themself in their own words (the open-language corpus's statements):
    a record used only for a request related to it by meaning."""
    text = statements[i % len(statements)]
    return {
        "tenant": tenant,
        "user": user,
        "kind": "preference",
        "attribute": f"preference.stated.{main_area(text) or 'general'}",
        "value": text,
        "statement": text,
        "evidence": [{"source_type": "conversation", "source_id": f"turn-{i}"}],
    }


def read_bench_user(engine: Any, size: int, rng: random.Random, stated: float = 0.0) -> ContextRequest:
    """The read rows' user: `size` active records applied (user "size<size>"), `stated` of them
    statements in the user's words, and the request asked for them (a day after they were written)."""
    user = f"size{size}" + (f"-stated{stated:g}" if stated else "")
    statements = [s.statement for s in load(corpus_path("open_language_dev"))[0] if s.lang == "en"] if stated else []
    recs = [
        OpIn(
            at=T0,
            op_id=f"{user}:{i}",
            record=_stated("bench", user, i, statements) if rng.random() < stated else _record("bench", user, i, rng),
        )
        for i in range(size)
    ]
    for first in range(0, size, 1000):
        engine.apply_many(recs[first : first + 1000])
    return ContextRequest(
        tenant="bench",
        user=user,
        session="s1",
        project="p1",
        text="what did we decide about the api latency budget",
        max_items=8,
        max_chars=2000,
    )


def apply_bench_ops(n_ops: int, users: int) -> list[OpIn]:
    """The apply line's ops: six attributes, four values, two authorities, over `users` users."""
    rng = random.Random(7)
    attrs = [
        "preference.response.detail",
        "preference.language",
        "profile.home_city",
        "goal.main",
        "knowledge.decision.api",
        "priority.focus",
    ]
    values = ["a", "b", "c", "d"]
    ops = []
    for i in range(n_ops):
        u = f"u{rng.randrange(users)}"
        ops.append(
            OpIn(
                at=T0 + timedelta(seconds=i),
                op_id=f"bench:{i}",
                record={
                    "tenant": "bench",
                    "user": u,
                    "attribute": rng.choice(attrs),
                    "value": rng.choice(values),
                    "authority": rng.choice(["user_explicit", "system_inferred"]),
                    "confidence": 0.8,
                    "evidence": [{"source_type": "conversation", "source_id": f"turn-{i}"}],
                },
            )
        )
    return ops


def _apply_throughput(engine: Any, n_ops: int, batch: int, users: int) -> tuple[float, float]:
    ops = apply_bench_ops(n_ops, users)
    t = time.perf_counter()
    cpu = time.process_time()
    for s in range(0, n_ops, batch):
        engine.apply_many(ops[s : s + batch])
    wall = time.perf_counter() - t
    return n_ops / wall, (time.process_time() - cpu) / wall


def _print_floor(settings: Settings, client: redis.Redis, probe: str, requests: int) -> None:
    floor = _timed(lambda: client.get(probe), requests)
    print(f"{server_build(client)} at {settings.redis_url or 'embedded local server'}; {requests} requests per row")
    print(f"plain GET round trip (floor): p50 {_pct(floor, 0.5):.3f} ms  p99 {_pct(floor, 0.99):.3f} ms")


def _print_apply(client: redis.Redis, engine: Any, ops: int) -> None:
    client.config_resetstat()
    rate, cpu_share = _apply_throughput(engine, ops, batch=500, users=1000)
    scripts = client.info("commandstats").get("cmdstat_evalsha", {})
    print(
        f"apply: {ops} ops over 1000 users in batches of 500: {rate:,.0f} ops/s "
        f"(client process on {cpu_share:.2f} of a core = {cpu_share / rate * 1e6:.0f} us of client CPU "
        f"per op; Lua load+apply on the server: {scripts.get('usec', 0) / ops:.0f} us per op; "
        f"users loaded: {engine.users_loaded})"
    )
    print("  targets: >= 10,000 ops/s, <= 70 us of client CPU and <= 28 us of Lua per op")


def _print_read_row(
    client: redis.Redis,
    engines: tuple[Any, Any],
    probe: str,
    size: int,
    requests: int,
    rounds: int,
    rng: random.Random,
    stated: float = 0.0,
) -> None:
    """One row of the read table: a user of `size` active records, `rounds` interleaved rounds (the
    engine's lookups, and the whole read's for comparison)."""
    engine, whole_engine = engines
    req = read_bench_user(engine, size, rng, stated)
    at = T0 + timedelta(days=1)
    n = min(requests, 300) if size >= 10000 else requests
    before = engine.read_stats.as_dict()
    p50s, p99s, ratios, whole_ratios = [], [], [], []
    for _ in range(rounds):
        floor_round = _timed(lambda: client.get(probe), n)
        lat = _timed(functools.partial(engine.context, req, at), n)
        whole = _timed(functools.partial(whole_engine.context, req, at), max(20, n // 10))
        p50s.append(_pct(lat, 0.5))
        p99s.append(_pct(lat, 0.99))
        ratios.append(_pct(lat, 0.99) / _pct(floor_round, 0.99))
        whole_ratios.append(_pct(whole, 0.99) / _pct(floor_round, 0.99))
    after = engine.read_stats.as_dict()
    answered = ("whole_small", "whole_unindexed", "whole_grown", "indexed")
    lookups = sum(after[k] - before[k] for k in answered)
    rows_read = (after["rows"] - before["rows"]) / max(1, lookups)
    target = READ_TARGETS.get(size)
    print(
        f"{size:>15,} {statistics.median(p50s):>8.3f} {statistics.median(p99s):>8.3f} "
        f"{statistics.median(ratios):>11.1f}x {f'<={target}x' if target else '':>7} "
        f"{statistics.median(whole_ratios):>13.1f}x {rows_read:>10.0f}"
    )


def _print_history_read(engine: Any, requests: int, rng: random.Random) -> None:
    """History does not count: 2,000 superseded versions behind 10 active records."""
    user = "history"
    hist = [
        OpIn(
            at=T0 + timedelta(seconds=i),
            op_id=f"{user}:{i}",
            record={**_record("bench", user, i % 10, rng), "value": f"v{i}", "corrects_current": i >= 10},
        )
        for i in range(2000)
    ]
    for s in range(0, len(hist), 500):
        engine.apply_many(hist[s : s + 500])
    req = ContextRequest(tenant="bench", user=user, text="api")
    lat = _timed(lambda: engine.context(req, T0 + timedelta(days=1)), requests)
    considered = engine.context(req, T0 + timedelta(days=1)).considered
    print(
        f"\n10 active + 1,990 superseded records: p50 {_pct(lat, 0.5):.3f} ms  p99 {_pct(lat, 0.99):.3f} ms "
        f"(considered {considered} records)"
    )


def run_engine_bench(
    settings: Settings,
    sizes: list[int],
    requests: int = 2000,
    ops: int = 50000,
    rounds: int = 3,
    read_whole_up_to: int | None = None,
    stated: float = 0.0,
) -> int:
    from slotstream.state.engine import Engine

    with configured_or_local(settings) as client:
        ns = fresh_namespace("bench")
        engine = Engine(client, namespace=ns)
        if read_whole_up_to is not None:  # e.g. 0: every lookup through the index (the threshold's figures)
            engine.read_whole_up_to = read_whole_up_to
        probe = Keys(ns).probe()
        try:
            client.set(probe, "x" * 200)
            _print_floor(settings, client, probe, requests)
            _print_apply(client, engine, ops)
            print(
                f"\n{'active records':>15} {'p50 ms':>8} {'p99 ms':>8} {'p99/GET p99':>12} {'target':>7} "
                f"{'whole p99/GET':>14} {'rows read':>10}  (medians of {rounds} interleaved rounds)"
            )
            engines = (engine, Engine(client, namespace=ns, read_whole_up_to=1 << 62))
            rng = random.Random(11)
            if stated:
                print(f"(a share of {stated:g} of each user's records are statements in their own words)")
            for size in sizes:
                _print_read_row(client, engines, probe, size, requests, rounds, rng, stated)
            print(f"lookups answered: {engine.read_stats.as_dict()}")
            _print_history_read(engine, requests, rng)
        finally:
            drop_namespace(client, ns)
    return 0
