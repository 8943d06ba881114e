"""`slotstream bench context-split`: where one context lookup's time goes — the script on the
server, the round trip, decoding and selection in Python — for a user with SIZE active records
(those of `slotstream bench engine`, a share `--stated` of them statements in the user's words).

Each figure is the best of seven runs of 300 calls (µs per call); the script's own time is the
server's `INFO commandstats` over 300 calls. For a whole read, the same rows read by the
transaction a lookup sends once the user was small at its last lookup (state/reader.py,
`queue_whole`) are timed too, and the engine's lookups by each path, alternately, three runs of
`--calls` (the client process's CPU time and the wall time). The last line times the steps of
`--calls` lookups one after the other, as a lookup runs them (medians). `--calls` below 300 is the
calls of every figure.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from datetime import timedelta

import redis

from slotstream.config.settings import Settings
from slotstream.local.redis_server import configured_or_local
from slotstream.memory.models import ContextRequest
from slotstream.memory.selection import select
from slotstream.state.engine import Engine
from slotstream.state.namespaces import drop_namespace
from slotstream.state.read_index import WHOLE_UP_TO, SmallScopes
from slotstream.state.reader import ROWS, ContextRead
from slotstream.worker.startup import tune_gc

from .engine import T0, read_bench_user

CALLS = 2000  # lookups a run of the interleaved steps and of each path
PART_CALLS = 300  # calls a run of the other figures


def best_of(call: Callable[[], object], calls: int, runs: int = 7) -> float:
    """µs per call, the best of `runs` runs."""
    timings = []
    for _ in range(runs):
        start = time.perf_counter()
        for _ in range(calls):
            call()
        timings.append((time.perf_counter() - start) / calls * 1e6)
    return min(timings)


class Split:
    """One user's lookup, taken apart."""

    def __init__(self, client: redis.Redis, size: int, whole_up_to: int, stated: float = 0.0) -> None:
        self.client, self.whole_up_to = client, whole_up_to
        self.engine = Engine(client, namespace=f"split{time.time_ns()}", read_whole_up_to=whole_up_to)
        self.request: ContextRequest = read_bench_user(self.engine, size, random.Random(11), stated)
        self.at = T0 + timedelta(days=1)
        self.read = self.new_read()
        self.reply = self.engine._context([self.read.meta], self.read.args())
        self.mode = "whole" if self.reply[2] in (b"whole", "whole") else "indexed"

    def new_read(self) -> ContextRead:
        return ContextRead(self.engine.keys, self.request, self.at, None, None, self.whole_up_to)

    def call(self) -> object:
        return self.engine._context([self.read.meta], self.read.args())

    def server_us(self, call: Callable[[], object], command: str | None, calls: int) -> float:
        """The server's µs per call over `calls` calls: one command's, or every command's."""
        call()
        self.client.config_resetstat()
        for _ in range(calls):
            call()
        stats = self.client.info("commandstats")
        if command is not None:
            return float(stats[command]["usec_per_call"])
        return sum(s["usec"] for name, s in stats.items() if name != "cmdstat_config|resetstat") / calls

    def whole_transaction(self) -> list[object]:
        pipe = self.client.pipeline(transaction=True)
        self.new_read().queue_whole(pipe)
        return list(pipe.execute())

    def decode_and_select(self) -> object:
        candidates = [c for joined in self.reply[6:] for c in ROWS.decode(joined)]
        return select(self.request, candidates, self.read.when, [])


def _parts(split: Split, size: int, calls: int) -> None:
    rows = sum(len(ROWS.decode(joined)) for joined in split.reply[6:])
    print(f"{size} active records, {rows} rows returned ({split.mode})")
    print(f"  the script on the server:       {split.server_us(split.call, 'cmdstat_evalsha', calls):7.0f} us")
    print(f"  round trip with the script:     {best_of(split.call, calls):7.0f} us")
    if split.mode == "whole":  # what a lookup of a user that was small at its last lookup sends instead
        server = split.server_us(split.whole_transaction, None, calls)
        print(f"  the same rows in a transaction, on the server: {server:7.0f} us")
        print(f"  round trip with the transaction: {best_of(split.whole_transaction, calls):7.0f} us")
    decoding = best_of(lambda: [ROWS.decode(joined) for joined in split.reply[6:]], calls)
    print(f"  decoding the rows:              {decoding:7.0f} us")
    print(f"  decoding and selecting:         {best_of(split.decode_and_select, calls):7.0f} us")
    print(
        f"  the reply to the answer:        {best_of(lambda: split.new_read().from_reply(split.reply), calls):7.0f} us"
    )
    whole = best_of(lambda: split.engine.context(split.request, split.at), calls)
    print(f"  the whole lookup:               {whole:7.0f} us")
    split.client.set("split:probe", "x" * 200)
    print(f"  a plain GET, for scale:         {best_of(lambda: split.client.get('split:probe'), calls):7.0f} us")


def _interleaved(split: Split, calls: int) -> None:
    """Run alone, each part finds the caches warm; one after the other, as in a real lookup, they
    take longer: the same steps interleaved, medians of `calls`."""
    steps: dict[str, list[float]] = {"setting up the read": [], "the call": [], "the reply to the answer": []}
    clock = time.perf_counter
    for _ in range(calls):
        started = clock()
        each = split.new_read()
        set_up = clock()
        answer = split.engine._context([each.meta], each.args())
        called = clock()
        each.from_reply(answer)
        done = clock()
        for name, seconds in zip(steps, (set_up - started, called - set_up, done - called), strict=True):
            steps[name].append(seconds * 1e6)
    parts = ", ".join(f"{name} {statistics.median(values):.0f} us" for name, values in steps.items())
    print(f"  interleaved (medians of {calls:,}): {parts}")


def _paths(split: Split, calls: int) -> None:
    """The engine's lookups by each path, alternately: what the client's process spends on them."""
    script_only = Engine(split.client, namespace=split.engine.keys.namespace, read_whole_up_to=split.whole_up_to)
    script_only.small_scopes = SmallScopes(max_entries=0)  # remembers no one: the script every time
    paths = {"by the script": script_only, "in a transaction": split.engine}
    spent: dict[str, list[tuple[float, float]]] = {name: [] for name in paths}
    for _ in range(3):
        for name, reader in paths.items():
            cpu, wall = time.process_time(), time.perf_counter()
            for _ in range(calls):
                reader.context(split.request, split.at)
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            spent[name].append((cpu / calls * 1e6, wall / calls * 1e6))
    for name, runs in spent.items():
        cpu_runs = " / ".join(f"{cpu:.0f}" for cpu, _ in runs)
        wall_runs = " / ".join(f"{wall:.0f}" for _, wall in runs)
        print(f"  a lookup {name}, three runs of {calls:,}: client CPU {cpu_runs} us, wall {wall_runs} us")


def run_context_split(
    settings: Settings, size: int, whole_up_to: int | None, stated: float = 0.0, calls: int = CALLS
) -> int:
    tune_gc()
    with configured_or_local(settings) as client:
        split = Split(client, size, WHOLE_UP_TO if whole_up_to is None else whole_up_to, stated)
        try:
            _parts(split, size, min(calls, PART_CALLS))
            _interleaved(split, calls)
            if split.mode == "whole":
                _paths(split, calls)
        finally:
            drop_namespace(client, split.engine.keys.namespace)
    return 0
