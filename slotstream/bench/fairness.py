"""`slotstream bench fairness`: what one noisy tenant does to the others' freshness, with the
per-tenant ingest quota on and off.

A real stack (embedded Redis and Kafka, one worker, the sidecar with several server processes).
Quiet tenants each send `rate` turns/s over HTTP; one more tenant sends `factor` times that. Each
quiet tenant also keeps one probe in flight: a turn stating a new city, sent with `?wait=`, timed
from its send until the sidecar saw its ops applied in Redis (the point a context lookup shows
it). Printed per run: the quiet tenants' probe freshness p50/p99, and the noisy tenant's turns
accepted and refused. The quota run goes first; the worker catches up before the next run.
Prints figures; asserts nothing.
"""

from __future__ import annotations

import asyncio
import random
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from slotstream.bench.pipeline import CITIES, PHRASES, WORDS, _pct
from slotstream.config.settings import Settings
from slotstream.local.redis_server import free_port, server_build, stop_process
from slotstream.local.stack import LocalStack
from slotstream.sidecar.keys import create_key
from slotstream.sidecar.schemas import MAX_TURNS_PER_REQUEST
from slotstream.state.namespaces import drop_namespace

PROBE_WAIT = 30.0  # seconds a probe waits for its outcome (a longer one is counted as timed out)
SENDS_PER_SECOND = 10  # a tenant's turns go out in this many requests a second
USERS = 50  # per tenant


@dataclass
class Run:
    """One run's counts: the quiet tenants' probe latencies (ms), the noisy tenant's turns."""

    probes: list[float] = field(default_factory=list)
    timed_out: int = 0
    accepted: int = 0
    refused: int = 0
    quiet_refused: int = 0
    errors: dict[str, int] = field(default_factory=dict)

    def error(self, what: str) -> None:
        self.errors[what] = self.errors.get(what, 0) + 1


def _text(rng: random.Random) -> str:
    phrase = rng.choice(PHRASES)
    return phrase.format(w=rng.choice(WORDS), c=rng.choice(CITIES), d=rng.choice("ABC"), n=rng.randrange(1, 12))


async def _sender(client: httpx.AsyncClient, rate: float, until: float, run: Run, noisy: bool, seed: int) -> None:
    """`rate` turns/s in SENDS_PER_SECOND batches a second, on schedule whatever the answers."""
    rng = random.Random(seed)
    per_send = max(1, min(MAX_TURNS_PER_REQUEST, round(rate / SENDS_PER_SECOND)))
    every = per_send / rate
    next_at = time.perf_counter()
    while next_at < until:
        turns = [{"user": f"u{rng.randrange(USERS)}", "text": _text(rng)} for _ in range(per_send)]
        try:
            res = await client.post("/v1/turns", json={"turns": turns})
        except httpx.HTTPError as err:
            run.error(type(err).__name__)
        else:
            if res.status_code == 202:
                run.accepted += per_send if noisy else 0
            elif res.status_code == 429:
                if noisy:
                    run.refused += per_send
                else:
                    run.quiet_refused += per_send
            else:
                run.error(f"{res.status_code} {res.json().get('reason')}")
        next_at += every
        await asyncio.sleep(max(0.0, next_at - time.perf_counter()))


async def _prober(client: httpx.AsyncClient, until: float, run: Run, tag: str) -> None:
    """One probe at a time: a new city for the probe user, timed until applied."""
    k = 0
    while time.perf_counter() < until:
        k += 1
        turn = {"user": "probe", "text": f"Actually, I moved to Probe{tag}x{k}."}
        start = time.perf_counter()
        try:
            res = await client.post("/v1/turns", params={"wait": PROBE_WAIT}, json=turn, timeout=PROBE_WAIT + 10)
        except httpx.HTTPError as err:
            run.error(type(err).__name__)
            continue
        took = (time.perf_counter() - start) * 1000
        if res.status_code == 429:
            run.quiet_refused += 1
        elif res.status_code != 202:
            run.error(f"{res.status_code} {res.json().get('reason')}")
        elif res.json().get("complete"):
            run.probes.append(took)
        else:
            run.timed_out += 1
        await asyncio.sleep(0.02)


async def _load(url: str, keys: dict[str, str], quiet_rate: float, noisy_rate: float, seconds: float) -> Run:
    run = Run()
    clients = {
        tenant: httpx.AsyncClient(base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=PROBE_WAIT + 10)
        for tenant, key in keys.items()
    }
    until = time.perf_counter() + seconds
    tasks = []
    for n, (tenant, client) in enumerate(clients.items()):
        if tenant == "noisy":
            tasks.append(_sender(client, noisy_rate, until, run, True, n))
        else:
            tasks.append(_sender(client, quiet_rate, until, run, False, n))
            tasks.append(_prober(client, until, run, tenant))
    try:
        await asyncio.gather(*tasks)
    finally:
        for client in clients.values():
            await client.aclose()
    return run


def _settings(settings: Settings, keys_file: Path, processes: int) -> Settings:
    stamp = int(time.time())
    return settings.replace(
        namespace=f"bench-fair-{stamp}",
        topic_prefix=f"bench-fair-{stamp}",
        keys_file=str(keys_file),
        sidecar_port=free_port(),
        sidecar_workers=processes,
        rate_limit=1e9,  # the request rate is not what this bench is about
        rate_burst=1e9,
    )


def _print_run(label: str, run: Run, seconds: float) -> None:
    lat = run.probes
    fresh = f"p50 {_pct(lat, 0.5):8.1f}  p99 {_pct(lat, 0.99):8.1f}" if lat else f"{'no probe completed':>27}"
    errors = ", ".join(f"{what} x{n}" for what, n in sorted(run.errors.items())) or "none"
    print(
        f"{label:<34} {fresh}  {len(lat):>6} {run.timed_out:>8}  {run.accepted:>8} {run.refused:>8} "
        f"{run.accepted / seconds:>9.0f}  {run.quiet_refused:>6}  errors: {errors}",
        flush=True,
    )


def run_fairness_bench(
    settings: Settings,
    seconds: float,
    quiet: int,
    rate: float,
    factor: float,
    ingest_rate: float,
    ingest_burst: float,
    processes: int,
    modes: list[str],
) -> int:
    keys_dir = tempfile.TemporaryDirectory(prefix="slotstream-bench-keys-")
    base = _settings(settings, Path(keys_dir.name) / "keys.json", processes)
    tenants = ["noisy", *(f"quiet{n}" for n in range(quiet))]
    keys = {t: create_key(base.keys_file, t, ["read", "write"], name="bench")[1] for t in tenants}
    noisy_rate = rate * factor
    with LocalStack(base, workers=1) as stack:
        print(
            f"{server_build(stack.client)}; one worker; the sidecar with {processes} server processes; "
            f"{quiet} quiet tenants at {rate:g} turns/s each (and one probe each in flight), one noisy tenant "
            f"at {noisy_rate:g} turns/s; {seconds:g} s a run",
            flush=True,
        )
        print(
            f"\n{'run':<34} {'quiet probes: sent -> applied, ms':>27}  {'probes':>6} {'timedout':>8}  "
            f"{'noisy: accepted':>8} {'refused':>8} {'accepted/s':>9}  {'quiet refused':>6}",
            flush=True,
        )
        started = stack.settings  # with the stack's servers
        for mode in modes:
            on = mode == "on"
            stack.settings = started.replace(
                ingest_rate=ingest_rate if on else 1e9, ingest_burst=ingest_burst if on else 1e9
            )
            url = stack.start_sidecar()
            try:
                # warm-up: the worker's first batch, each tenant's first request
                asyncio.run(_load(url, keys, rate, rate, 2.0))
                stack.barrier(timeout=300)
                run = asyncio.run(_load(url, keys, rate, noisy_rate, seconds))
            finally:
                if stack.sidecar is not None:
                    stop_process(stack.sidecar, 15)
                    stack.sidecar = None
            label = f"quota on ({ingest_rate:g}/s, burst {ingest_burst:g})" if on else "quota off"
            _print_run(label, run, seconds)
            stack.barrier(timeout=600)  # the next run starts with no backlog
        drop_namespace(stack.client, base.namespace)
    keys_dir.cleanup()
    print(
        "\nquiet probes: one turn per quiet tenant at a time, stating a new city, sent with ?wait= and timed\n"
        "until the sidecar saw its ops applied in Redis (visible to /v1/context), polled every 3-50 ms;\n"
        f"timedout: not applied within {PROBE_WAIT:g} s. noisy: turns the noisy tenant had accepted (202) and\n"
        "refused (429 ingest_rate_limited). quiet refused: the quiet tenants' turns refused (expected 0)."
    )
    return 0
