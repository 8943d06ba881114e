"""`slotstream bench sustained`: does Redis's memory level off under a steady stream of ops on a
fixed population?

A real stack (the embedded Kafka broker and Redis unless configured; one worker process, run with
the environment given, so the state's bounds are whatever it sets). First each of `users` users
gets `records_per_user` records of the capacity bench's mix (slotstream/bench/population.py),
through the ops topic. Then for `minutes`, `rate` ops a second (`STREAM_MIX`): new values for the
users' existing single-valued slots, said plainly or as a correction; forgets of such slots (the
next new value brings the slot back); and short-lived session notes added then forgotten by id,
at most `SHORT_LIVED` live a user. The live state stays the same size, so what grows is what the
state keeps of the past (the op ledger, the change log, superseded versions, suppressions).

Every `every` seconds it samples Redis's used_memory and the ingest lag (ops on the topic not yet
applied) and prints a row; at the end a summary: used_memory at each minute, its growth over the
second half of the run in bytes a minute and as a share of used_memory, and the worker's applied
ops a second. Prints figures; asserts nothing.

A command of its own rather than a mode of `bench capacity`: that one measures the engine in
this process at a size; this one runs the pipeline for a time, with a broker and a worker process.
"""

from __future__ import annotations

import random
import threading
import time
from collections import Counter, deque
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from slotstream.bench.memory import bytes_by_kind
from slotstream.bench.population import Planned, user_records
from slotstream.bench.progress_line import ProgressLine
from slotstream.config.settings import Settings
from slotstream.local.redis_server import server_build
from slotstream.local.stack import LocalStack
from slotstream.memory.models import iso
from slotstream.memory.validation import derive_id
from slotstream.state.namespaces import drop_namespace, used_memory
from slotstream.streams.topics import OPS

# the stream's ops, by weight: (what, weight)
STREAM_MIX = (
    ("restate", 40),  # a new value for an existing slot
    ("correct", 20),  # the same, marked as a correction of the slot's current value
    ("forget", 10),  # an existing slot forgotten; its next new value brings it back
    ("add_short", 15),  # a short-lived session note
    ("forget_short", 15),  # the oldest live note forgotten by its id
)
SHORT_LIVED = 3  # live notes a user holds at most (their slots' names recur in turn)
VALUES_PER_SLOT = 4  # values a slot takes in turn: the live state is bounded, values included
SENDS_PER_SECOND = 10
SEED_BATCH = 2000


@dataclass(frozen=True)
class SustainedArgs:
    minutes: float = 10.0
    rate: float = 300.0
    users: int = 2000
    records_per_user: int = 10
    every: float = 10.0
    log_dir: Path | None = None
    seed: int = 1


@dataclass
class Sample:
    seconds: float  # since the stream started
    used_memory: int
    sent: int  # stream ops produced so far
    applied: int  # ops applied by the worker since the stream started (its positions on the ops topic)
    lag: int  # ops on the topic not yet applied
    keys: int | None


@dataclass
class SustainedReport:
    seeded: int
    samples: list[Sample] = field(default_factory=list)
    stream_s: float = 0.0
    sent: int = 0
    applied_during: int = 0  # applied while the stream ran
    applied_total: int = 0  # on the topic and applied, once the worker caught up
    produced_total: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)
    # bytes by key kind (bench/memory.py) at the stream's half and at its end, with when they were taken
    kinds_half: Counter[str] = field(default_factory=Counter)
    kinds_end: Counter[str] = field(default_factory=Counter)
    kinds_s: tuple[float, float] = (0.0, 0.0)


@dataclass
class _User:
    tenant: str
    user: str
    slots: list[tuple[str, str, str]]  # (kind, attribute, scope) of its single-valued records
    said: dict[tuple[str, str], int] = field(default_factory=dict)  # new values said of each slot
    forgotten: set[tuple[str, str]] = field(default_factory=set)
    notes: deque[str] = field(default_factory=deque)  # live short-lived record ids, oldest first
    notes_added: int = 0


class OpStream:
    """The steady stream's ops, deterministic from a seed; each an (tenant, user, value) item as the
    producer prepares them."""

    def __init__(self, seeded: dict[int, list[Planned]], seed: int) -> None:
        self.rng = random.Random(seed)
        self.users = [
            _User(
                tenant=str(planned[0].record["tenant"]),
                user=str(planned[0].record["user"]),
                slots=[
                    (str(p.record["kind"]), str(p.record["attribute"]), str(p.record["scope"]))
                    for p in planned
                    if not p.multi
                ],
            )
            for planned in seeded.values()
            if planned
        ]
        self.kinds = [what for what, _ in STREAM_MIX]
        self.weights = [weight for _, weight in STREAM_MIX]
        self.made = 0

    def next(self) -> tuple[str, str, dict[str, Any]]:
        u = self.rng.choice(self.users)
        what = self.rng.choices(self.kinds, self.weights)[0]
        if what in ("restate", "correct", "forget") and not u.slots:
            what = "add_short"
        if what == "add_short" and len(u.notes) >= SHORT_LIVED:
            what = "forget_short"
        if what == "forget_short" and not u.notes:
            what = "add_short"
        self.made += 1
        op_id = f"sus:{self.made}"
        at = iso(datetime.now(UTC))
        if what == "forget":
            kind, attribute, scope = self.rng.choice(u.slots)
            u.forgotten.add((attribute, scope))
            command = {"op": "forget", "match": {"attribute": attribute, "scope": scope}}
            return u.tenant, u.user, self._command(u, command, at, op_id)
        if what == "forget_short":
            command = {"op": "forget", "record_id": u.notes.popleft()}
            return u.tenant, u.user, self._command(u, command, at, op_id)
        if what == "add_short":
            record_id = derive_id("r_", op_id)
            n = u.notes_added
            u.notes_added += 1
            u.notes.append(record_id)
            value = f"note {n % VALUES_PER_SLOT}"
            record: dict[str, Any] = {
                "id": record_id,
                "kind": "session_context",
                "attribute": f"session.scratch_{n % SHORT_LIVED}",
                "scope": "session:s1",
                "value": value,
                "statement": f"For this chat, remember {value}.",
            }
            return u.tenant, u.user, self._record(u, record, at, op_id)
        kind, attribute, scope = self.rng.choice(u.slots)
        n = u.said.get((attribute, scope), 0) + 1
        u.said[(attribute, scope)] = n
        u.forgotten.discard((attribute, scope))
        value = f"choice {n % VALUES_PER_SLOT}"
        record = {
            "kind": kind,
            "attribute": attribute,
            "scope": scope,
            "value": value,
            "statement": f"Actually, make it {value}." if what == "correct" else f"It's {value} now.",
            "corrects_current": what == "correct",
        }
        return u.tenant, u.user, self._record(u, record, at, op_id)

    @staticmethod
    def _record(u: _User, record: dict[str, Any], at: str, op_id: str) -> dict[str, Any]:
        quote = record["statement"]
        evidence = [{"source_type": "conversation", "source_id": op_id, "quote": quote}]
        return {
            "at": at,
            "op_id": op_id,
            "record": {"tenant": u.tenant, "user": u.user, **record, "evidence": evidence},
        }

    @staticmethod
    def _command(u: _User, command: dict[str, Any], at: str, op_id: str) -> dict[str, Any]:
        return {"at": at, "op_id": op_id, "command": {"tenant": u.tenant, "user": u.user, **command}}


class Sender:
    """`rate` ops a second from `stream`, SENDS_PER_SECOND bursts a second, on a thread of its own."""

    def __init__(self, stack: LocalStack, stream: OpStream, rate: float) -> None:
        self.stack, self.stream, self.rate = stack, stream, rate
        self.sent = 0
        self.stop = threading.Event()
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, name="sustained-sender", daemon=True)

    def _run(self) -> None:
        try:
            started = time.perf_counter()
            while not self.stop.is_set():
                due = int((time.perf_counter() - started) * self.rate) - self.sent
                if due > 0:
                    items = [self.stream.next() for _ in range(due)]
                    self.stack.producer.send_prepared(OPS, self.stack.producer.prepare(items))
                    self.sent += due
                self.stop.wait(1 / SENDS_PER_SECOND)
            self.stack.producer.flush()
        except BaseException as err:  # noqa: BLE001 - reported by the main thread
            self.error = err

    def start(self) -> None:
        self.thread.start()

    def finish(self) -> int:
        self.stop.set()
        self.thread.join()
        if self.error is not None:
            raise self.error
        return self.sent


def _applied(stack: LocalStack) -> int:
    return sum(stack.progress.offsets(stack.settings.topics[OPS]).values())


def _produced(stack: LocalStack) -> int:
    return sum(stack.end_offsets(OPS).values())


def _keys(stack: LocalStack) -> int | None:
    try:
        return int(stack.client.dbsize())
    except Exception:  # noqa: BLE001 - a count some deployments do not give in one answer
        return None


def seed_population(stack: LocalStack, args: SustainedArgs) -> dict[int, list[Planned]]:
    """Each user's records through the ops topic, applied before the stream starts."""
    at = datetime.now(UTC)
    seeded = {u: user_records(u, args.records_per_user, at, args.seed) for u in range(args.users)}
    items = [
        (str(p.record["tenant"]), str(p.record["user"]), {"at": iso(at), "op_id": p.op_id, "record": p.record})
        for planned in seeded.values()
        for p in planned
    ]
    bar = ProgressLine("seed", len(items), unit="ops produced")
    for first in range(0, len(items), SEED_BATCH):
        chunk = items[first : first + SEED_BATCH]
        stack.producer.send_prepared(OPS, stack.producer.prepare(chunk))
        bar.advance(len(chunk))
    stack.producer.flush()
    bar.finish()
    stack.barrier(timeout=max(600.0, len(items) / 50))
    return seeded


def _print_sample(s: Sample, first: Sample, last: Sample | None, rate: float) -> None:
    since = s.seconds - last.seconds if last else 0.0
    applied_rate = (s.applied - last.applied) / since if last and since > 0 else 0.0
    keys = f"{s.keys:>10,}" if s.keys is not None else f"{'?':>10}"
    print(
        f"{s.seconds:>7.0f} {s.used_memory / 1e6:>10.2f} {(s.used_memory - first.used_memory) / 1e6:>+9.2f} "
        f"{keys} {s.sent:>9,} {s.applied:>9,} {applied_rate:>8.0f} {s.lag:>7,} {s.lag / rate:>8.1f}",
        flush=True,
    )


def growth_per_minute(samples: list[Sample]) -> float:
    """Least-squares slope of used_memory against time, in bytes a minute."""
    if len(samples) < 2:
        return 0.0
    xs = [s.seconds / 60 for s in samples]
    ys = [float(s.used_memory) for s in samples]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    var = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / var if var else 0.0


def print_summary(report: SustainedReport, args: SustainedArgs) -> None:
    samples = report.samples
    print("\nused_memory at each minute:")
    for minute in range(int(report.stream_s // 60) + 1):
        s = min(samples, key=lambda x: abs(x.seconds - 60 * minute))
        print(f"  {minute:>3} min: {s.used_memory / 1e6:>9.2f} MB  (sampled at {s.seconds:.0f} s)")
    if report.stream_s % 60 > args.every / 2:  # the last sample is not a minute's
        print(f"  the end: {samples[-1].used_memory / 1e6:>9.2f} MB  (sampled at {samples[-1].seconds:.0f} s)")
    half = [s for s in samples if s.seconds >= report.stream_s / 2]
    slope = growth_per_minute(half)
    mean = sum(s.used_memory for s in half) / max(1, len(half))
    print(
        f"growth over the second half ({len(half)} samples from {report.stream_s / 2:.0f} s): "
        f"{slope:+,.0f} B a minute = {100 * slope / mean if mean else 0.0:+.3f}% of used_memory a minute"
    )
    print(
        f"ops: {report.sent:,} sent in {report.stream_s:.0f} s ({report.sent / max(1e-9, report.stream_s):,.0f}/s, "
        f"asked {args.rate:g}/s); the worker applied {report.applied_during:,} meanwhile "
        f"({report.applied_during / max(1e-9, report.stream_s):,.0f} ops/s); after the catch-up "
        f"{report.applied_total:,} of the {report.produced_total:,} on the topic (with the {report.seeded:,} "
        "of the seed and any the worker's own sweep produced) applied"
    )
    if report.outcomes:
        print("outcomes: " + ", ".join(f"{k} {v:,}" for k, v in sorted(report.outcomes.items())))
    if report.kinds_end:
        minutes = max(1e-9, (report.kinds_s[1] - report.kinds_s[0]) / 60)
        print(
            f"bytes by key kind at {report.kinds_s[0]:.0f} s and {report.kinds_s[1]:.0f} s, "
            "and the growth a minute between:"
        )
        for kind, end in report.kinds_end.most_common():
            at_half = report.kinds_half.get(kind, 0)
            growth = (end - at_half) / minutes
            print(f"  {kind:<10} {at_half / 1e6:>9.2f} MB {end / 1e6:>9.2f} MB {growth:>+12,.0f} B/min")


def run_sustained_bench(settings: Settings, args: SustainedArgs) -> SustainedReport:
    stamp = int(time.time())
    s = settings.replace(namespace=f"bench-sus-{stamp}", topic_prefix=f"bench-sus-{stamp}")
    with LocalStack(s, workers=1, log_dir=args.log_dir) as stack:
        print(
            f"sustained bench: {server_build(stack.client)}; one worker; {args.users:,} users with "
            f"{args.records_per_user} records each, then {args.rate:g} ops/s for {args.minutes:g} min "
            f"({', '.join(f'{w}% {what}' for what, w in STREAM_MIX)}); a sample every {args.every:g} s",
            flush=True,
        )
        seeded = seed_population(stack, args)
        report = SustainedReport(seeded=sum(len(p) for p in seeded.values()))
        applied_before = _applied(stack)
        sender = Sender(stack, OpStream(seeded, args.seed), args.rate)
        print(
            f"\n{'s':>7} {'used MB':>10} {'delta MB':>9} {'keys':>10} {'sent':>9} {'applied':>9} "
            f"{'ops/s':>8} {'lag':>7} {'lag s':>8}",
            flush=True,
        )
        started = time.perf_counter()
        sender.start()
        last: Sample | None = None
        try:
            while True:
                now = time.perf_counter() - started
                applied = _applied(stack) - applied_before
                sample = Sample(
                    seconds=now,
                    used_memory=used_memory(stack.client),
                    sent=sender.sent,
                    applied=applied,
                    lag=max(0, _produced(stack) - applied - applied_before),
                    keys=_keys(stack),
                )
                report.samples.append(sample)
                _print_sample(sample, report.samples[0], last, args.rate)
                if not report.kinds_half and now >= args.minutes * 30:
                    report.kinds_half, _ = bytes_by_kind(stack.client, s.namespace)
                    report.kinds_s = (now, 0.0)
                last = sample
                if now >= args.minutes * 60 or sender.error is not None:
                    break
                next_at = min(len(report.samples) * args.every, args.minutes * 60)
                time.sleep(max(0.0, next_at - (time.perf_counter() - started)))
        finally:
            report.sent = sender.finish()
        report.stream_s = time.perf_counter() - started
        report.kinds_end, _ = bytes_by_kind(stack.client, s.namespace)
        report.kinds_s = (report.kinds_s[0], report.stream_s)
        report.applied_during = report.samples[-1].applied
        stack.barrier(timeout=600)
        report.applied_total = _applied(stack)
        report.produced_total = _produced(stack)
        report.outcomes = {k: v for k, v in stack.progress.counters().items() if k.startswith("ops_applied:")}
        print_summary(report, args)
        if settings.redis_url:  # a configured server keeps what the bench wrote otherwise
            drop_namespace(stack.client, s.namespace)
    return report
