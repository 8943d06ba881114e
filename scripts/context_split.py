"""Where one context lookup's time goes: the script on the server, the round trip, and decoding and
selection in Python, for a user with SIZE active records (those of `slotstream bench engine`).

    python scripts/context_split.py REDIS_URL SIZE [READ_WHOLE_UP_TO]

Each figure is the best of seven runs of a few hundred calls (µs per call); the script's own time
is the server's `INFO commandstats` over 300 calls. For a whole read, the same rows read by the
transaction a lookup sends once the user was small at its last lookup (state/reader.py,
`queue_whole`) are timed too, and the engine's lookups by each path, alternately (the client
process's CPU time and the wall time). The last line times the steps of 2,000 lookups one after the other,
as a lookup runs them (medians). docs/BENCHMARKS.md, "Reads", quotes it.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Callable
from datetime import timedelta

from slotstream.bench import T0, read_bench_user
from slotstream.memory.selection import select
from slotstream.runtime import tune_gc
from slotstream.state.client import connect
from slotstream.state.engine import Engine
from slotstream.state.read_index import WHOLE_UP_TO, SmallScopes
from slotstream.state.reader import ROWS, ContextRead


def best_of(call: Callable[[], object], calls: int, runs: int = 7) -> float:
    """µs per call, the best of `runs` runs."""
    timings = []
    for _ in range(runs):
        start = time.perf_counter()
        for _ in range(calls):
            call()
        timings.append((time.perf_counter() - start) / calls * 1e6)
    return min(timings)


def main(url: str, size: int, whole_up_to: int) -> None:
    tune_gc()
    client = connect(url)
    engine = Engine(client, namespace=f"split{time.time_ns()}", read_whole_up_to=whole_up_to)
    request = read_bench_user(engine, size, random.Random(11))
    at = T0 + timedelta(days=1)

    def new_read() -> ContextRead:
        return ContextRead(engine.keys, request, at, None, None, whole_up_to)

    read = new_read()
    reply = engine._context([read.meta], read.args())
    client.config_resetstat()
    for _ in range(300):
        engine._context([read.meta], read.args())
    script = client.info("commandstats")["cmdstat_evalsha"]["usec_per_call"]
    rows = sum(len(ROWS.decode(joined)) for joined in reply[6:])
    mode = "whole" if reply[2] in (b"whole", "whole") else "indexed"
    print(f"{size} active records, {rows} rows returned ({mode})")
    round_trip = best_of(lambda: engine._context([read.meta], read.args()), 300)
    decoding = best_of(lambda: [ROWS.decode(joined) for joined in reply[6:]], 300)
    print(f"  the script on the server:       {script:7.0f} us")
    print(f"  round trip with the script:     {round_trip:7.0f} us")

    def whole_transaction() -> list[object]:
        pipe = client.pipeline(transaction=True)
        new_read().queue_whole(pipe)
        return list(pipe.execute())

    if mode == "whole":  # what a lookup of a user that was small at its last lookup sends instead
        whole_transaction()
        client.config_resetstat()
        for _ in range(300):
            whole_transaction()
        server = sum(
            stats["usec"] for name, stats in client.info("commandstats").items() if name != "cmdstat_config|resetstat"
        )
        print(f"  the same rows in a transaction, on the server: {server / 300:7.0f} us")
        print(f"  round trip with the transaction: {best_of(whole_transaction, 300):7.0f} us")
    print(f"  decoding the rows:              {decoding:7.0f} us")

    def decode_and_select() -> object:
        candidates = [c for joined in reply[6:] for c in ROWS.decode(joined)]
        return select(request, candidates, read.when, [])

    print(f"  decoding and selecting:         {best_of(decode_and_select, 300):7.0f} us")
    print(f"  the reply to the answer:        {best_of(lambda: new_read().from_reply(reply), 300):7.0f} us")
    print(f"  the whole lookup:               {best_of(lambda: engine.context(request, at), 300):7.0f} us")
    client.set("split:probe", "x" * 200)
    print(f"  a plain GET, for scale:         {best_of(lambda: client.get('split:probe'), 300):7.0f} us")
    # run alone, each part finds the caches warm; one after the other, as in a real lookup, they
    # take longer: the same steps interleaved, medians of 2,000
    steps: dict[str, list[float]] = {"setting up the read": [], "the call": [], "the reply to the answer": []}
    clock = time.perf_counter
    for _ in range(2000):
        started = clock()
        each = new_read()
        set_up = clock()
        answer = engine._context([each.meta], each.args())
        called = clock()
        each.from_reply(answer)
        done = clock()
        for name, seconds in zip(steps, (set_up - started, called - set_up, done - called), strict=True):
            steps[name].append(seconds * 1e6)
    parts = ", ".join(f"{name} {statistics.median(values):.0f} us" for name, values in steps.items())
    print(f"  interleaved (medians of 2,000): {parts}")
    if mode == "whole":
        # the engine's lookups by each path, alternately: what the client's process spends on them
        script_only = Engine(client, namespace=engine.keys.namespace, read_whole_up_to=whole_up_to)
        script_only.small_scopes = SmallScopes(max_entries=0)  # remembers no one: the script every time
        paths = {"by the script": script_only, "in a transaction": engine}
        spent: dict[str, list[tuple[float, float]]] = {name: [] for name in paths}
        for _ in range(3):
            for name, reader in paths.items():
                cpu, wall = time.process_time(), time.perf_counter()
                for _ in range(2000):
                    reader.context(request, at)
                cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
                spent[name].append((cpu / 2000 * 1e6, wall / 2000 * 1e6))
        for name, runs in spent.items():
            cpu_runs = " / ".join(f"{cpu:.0f}" for cpu, _ in runs)
            wall_runs = " / ".join(f"{wall:.0f}" for _, wall in runs)
            print(f"  a lookup {name}, three runs of 2,000: client CPU {cpu_runs} us, wall {wall_runs} us")


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: context_split.py REDIS_URL SIZE [READ_WHOLE_UP_TO]")
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) == 4 else WHOLE_UP_TO)
