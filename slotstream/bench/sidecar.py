"""`slotstream bench sidecar`: context lookups over HTTP on loopback, next to the same lookup in
process and a plain GET round trip, all in one run.

For each read path of the sidecar (async Redis on the event loop, the default; the synchronous
engine on a thread pool; async with the context cache off, as right after a user's state
changed), users with 100 and 1,000 active records, at concurrency 1 and 16: p50/p99 latency and
requests/s, measured by a load generator in its own process (slotstream.bench.loadgen), with the CPU the
server processes, Redis and the generator itself used. Rounds interleave the read paths and the
medians are printed. Prints figures; asserts nothing.
"""

from __future__ import annotations

import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import orjson

from slotstream.bench.engine import T0, _pct, _record
from slotstream.config.settings import Settings
from slotstream.local.redis_server import server_build, stop_process
from slotstream.local.stack import LocalStack
from slotstream.memory.models import ContextRequest, OpIn, iso
from slotstream.sidecar.keys import create_key
from slotstream.state.context_cache import ContextCache
from slotstream.state.namespaces import drop_namespace

TENANT = "bench"
QUERY = "what did we decide about the api latency budget"


def _load_users(stack: LocalStack, sizes: list[int]) -> None:
    rng = random.Random(11)
    for size in sizes:
        user = f"size{size}"
        recs = [OpIn(at=T0, op_id=f"{user}:{i}", record=_record(TENANT, user, i, rng)) for i in range(size)]
        for start in range(0, size, 1000):
            stack.engine.apply_many(recs[start : start + 1000])


def _request(size: int) -> ContextRequest:
    return ContextRequest(
        tenant=TENANT, user=f"size{size}", session="s1", project="p1", text=QUERY, max_items=8, max_chars=2000
    )


def _timed(call: Callable[[], Any], n: int) -> list[float]:
    out = []
    for _ in range(n):
        start = time.perf_counter()
        call()
        out.append((time.perf_counter() - start) * 1000)
    return out


def _in_process(stack: LocalStack, size: int, n: int, cache_records: int) -> dict[str, list[float]]:
    """The lookup without HTTP: the synchronous engine; the async reader the server runs, reading
    every time and with the server's context cache."""
    import redis.asyncio as aioredis
    import uvloop

    from slotstream.state.reader import AsyncReader

    req, at = _request(size), T0 + timedelta(days=1)
    out = {"engine": _timed(lambda: stack.engine.context(req, at), n)}

    async def run(cache: ContextCache | None) -> list[float]:
        client = aioredis.Redis.from_url(stack.settings.redis_url or "")
        reader = AsyncReader(client, stack.settings.namespace, cache)
        lat = []
        for _ in range(n):
            start = time.perf_counter()
            await reader.context(req, at)
            lat.append((time.perf_counter() - start) * 1000)
        await client.aclose()
        return lat

    out["async"] = uvloop.run(run(None))
    out["async+cache"] = uvloop.run(run(ContextCache(cache_records)))
    return out


def _generate(
    stack: LocalStack, method: str, path: str, key: str, body: dict[str, Any] | None, concurrency: int, n: int
) -> dict[str, Any]:
    settings = stack.settings
    watch = {"server": [stack.sidecar.pid] if stack.sidecar is not None else []}
    if stack.redis_pid is not None:
        watch["redis"] = [stack.redis_pid]
    args = {
        "watch": watch,
        "host": settings.sidecar_host,
        "port": settings.sidecar_port,
        "method": method,
        "path": path,
        "headers": {"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
        "body": orjson.dumps(body).decode() if body is not None else "",
        "concurrency": concurrency,
        "requests": n,
        "warmup": max(200, n // 10),
    }
    done = subprocess.run(
        [sys.executable, "-P", "-m", "slotstream.bench.loadgen", json.dumps(args)],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _figures(res: dict[str, Any]) -> dict[str, float]:
    lat = res["latencies_ms"]
    return {
        **{f"{name}_cpu": share for name, share in res["cpu_shares"].items()},
        "p50": _pct(lat, 0.5),
        "p99": _pct(lat, 0.99),
        "rate": len(lat) / res["seconds"],
        "gen_us": res["cpu_seconds"] / res["sent"] * 1e6,
        "gen_cpu": res["cpu_seconds"] / res["wall_seconds"],
        "errors": float(sum(res["errors"].values())),
    }


def _row(label: str, rounds: list[dict[str, float]], base_p50: float | None) -> str:
    """The median of each figure over the rounds; p99's range over them in brackets."""
    med = {name: statistics.median(r[name] for r in rounds) for name in rounds[0]}
    p99s = [r["p99"] for r in rounds]
    added = f"{med['p50'] - base_p50:+8.3f}" if base_p50 is not None else f"{'':>8}"
    spread = f"({min(p99s):.1f}-{max(p99s):.1f})"
    cores = f"{med.get('server_cpu', 0):.2f} {med.get('redis_cpu', float('nan')):.2f} {med['gen_cpu']:.2f}"
    return (
        f"{label:<31} {med['p50']:>7.3f} {med['p99']:>7.3f} {spread:>12} {added} {med['rate']:>8,.0f} "
        f"{cores:>16} {med['gen_us']:>6.0f} {int(sum(r['errors'] for r in rounds)):>6}"
    )


InProcess = dict[int, dict[str, list[float]]]  # size -> read path -> [p50, p99, p50, p99, ...]
OverHttp = dict[str, dict[Any, list[dict[str, float]]]]  # mode -> "floor" or (size, concurrency) -> rounds


def _http_round(stack: LocalStack, mode: str, key: str, cells: list[tuple[int, int]], requests: int) -> dict[Any, Any]:
    """One round of one read mode over HTTP: the floor, then every (size, concurrency) cell."""
    base_cache = stack.settings.context_cache_records
    # "uncached": the async reader with the context cache off, the path of a lookup right after its
    # user's state changed
    uncached = mode == "uncached"
    stack.settings = stack.settings.replace(
        sidecar_read="async" if uncached else mode, context_cache_records=0 if uncached else base_cache
    )
    stack.start_sidecar()
    out: dict[Any, Any] = {}
    try:
        out["floor"] = _figures(_generate(stack, "GET", "/healthz", key, None, 1, requests))
        for size, conc in cells:
            body = {"user": f"size{size}", "session": "s1", "project": "p1", "query": QUERY}
            body["at"] = iso(T0 + timedelta(days=1))
            n = requests if conc == 1 else requests * 4
            out[(size, conc)] = _figures(_generate(stack, "POST", "/v1/context", key, body, conc, n))
    finally:
        stack.settings = stack.settings.replace(context_cache_records=base_cache)
        if stack.sidecar is not None:
            stop_process(stack.sidecar, 15)
            stack.sidecar = None
    return out


def _print_in_process(sizes: list[int], in_process: InProcess) -> dict[str, dict[int, float]]:
    """The in-process table; the p50s HTTP is compared with (cached and uncached, per size)."""
    print("\nin process (no HTTP), concurrency 1, median p50 / p99 ms:")
    served: dict[str, dict[int, float]] = {"cached": {}, "uncached": {}}
    for size in sizes:
        parts = []
        for name, pairs in in_process[size].items():
            p50, p99 = statistics.median(pairs[0::2]), statistics.median(pairs[1::2])
            parts.append(f"{name} {p50:.3f} / {p99:.3f}")
            if name in ("async+cache", "async"):
                served["cached" if name == "async+cache" else "uncached"][size] = p50
        print(f"  {size:>5,} records  " + "   ".join(parts))
    return served


def _print_http(
    modes: list[str], cells: list[tuple[int, int]], http: OverHttp, served: dict[str, dict[int, float]]
) -> None:
    for mode in modes:
        print(
            f"\n{'over HTTP (loopback), ' + mode:<31} {'p50 ms':>7} {'p99 ms':>7} {'p99 range':>12} {'+p50 ms':>8} "
            f"{'req/s':>8} {'cores: srv redis gen':>20} {'gen us':>6} {'errors':>6}"
        )
        print(_row("GET /healthz (the floor), c=1", http[mode]["floor"], None))
        for size, conc in cells:
            base_p50 = served["uncached" if mode == "uncached" else "cached"][size] if conc == 1 else None
            print(_row(f"context {size:>5,} records, c={conc}", http[mode][(size, conc)], base_p50))
    print(
        "\n+p50: the HTTP p50 minus the in-process p50 of the async reader for the same user (with the\n"
        "context cache; without it for `uncached`): what HTTP adds. async: the default read path;\n"
        "thread: the synchronous engine on a thread pool; uncached: async with the cache off (a\n"
        "lookup right after its user's state changed). cores: the CPU the sidecar's processes,\n"
        "the Redis server and the load generator used during the row, in cores of this machine (the\n"
        "load generator runs on the same cores). gen us: the load generator's CPU per request."
    )


def bench_settings(settings: Settings, name: str, keys_dir: Path) -> tuple[Settings, str]:
    """A sidecar bench's settings (a namespace and topics of its own, keys in `keys_dir`, no rate
    limit) and a read key of the bench tenant."""
    stamp = int(time.time())
    base = settings.replace(
        namespace=f"{name}-{stamp}",
        topic_prefix=f"{name}-{stamp}",
        keys_file=str(keys_dir / "keys.json"),
        rate_limit=1e9,
        rate_burst=1e9,
    )
    return base, create_key(base.keys_file, TENANT, ["read"], name="bench")[1]


def run_sidecar_bench(
    settings: Settings, sizes: list[int], modes: list[str], requests: int, concurrency: list[int], rounds: int = 3
) -> int:
    keys_dir = tempfile.TemporaryDirectory(prefix="slotstream-bench-keys-")
    base, key = bench_settings(settings, "bench-sc", Path(keys_dir.name))
    cells = [(size, conc) for size in sizes for conc in concurrency]
    in_process: InProcess = {size: {} for size in sizes}
    http: OverHttp = {mode: {} for mode in modes}
    with LocalStack(base, workers=0) as stack:
        _load_users(stack, sizes)
        print(
            f"{server_build(stack.client)} at {stack.redis_url}; sidecar with "
            f"{base.sidecar_workers} server processes on {base.sidecar_host}; {requests} requests per row at "
            f"concurrency 1, {requests * 4} above it; {rounds} rounds, modes interleaved; medians over the rounds"
        )
        for _ in range(rounds):
            for size in sizes:
                for name, lat in _in_process(stack, size, requests, base.context_cache_records).items():
                    in_process[size].setdefault(name, []).extend([_pct(lat, 0.5), _pct(lat, 0.99)])
            for mode in modes:
                for cell, figures in _http_round(stack, mode, key, cells, requests).items():
                    http[mode].setdefault(cell, []).append(figures)
        drop_namespace(stack.client, base.namespace)
    keys_dir.cleanup()
    _print_http(modes, cells, http, _print_in_process(sizes, in_process))
    return 0
