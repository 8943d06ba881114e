"""The cycle collector's pauses while one engine applies the apply bench's ops.

A collection stops every thread of a worker, so its pause lands in whichever batches were running
(docs/BENCHMARKS.md, "Worker"). This applies OPS of `slotstream bench engine`'s apply ops (over
1,000 users, in batches of 500) through one engine, with the worker's collector settings
(`tune_gc`), and prints per generation the collections, their median and their longest pause, and
the process's CPU time for the whole run:

    python scripts/gc_pauses.py REDIS_URL [OPS]       # default 40000

Each run writes to a namespace of its own (`gcpauses<time>`).
"""

from __future__ import annotations

import gc
import statistics
import sys
import time
from collections import defaultdict
from typing import Any

from slotstream.bench import apply_bench_ops
from slotstream.runtime import tune_gc
from slotstream.state.client import connect
from slotstream.state.engine import Engine

USERS, BATCH = 1000, 500


def main(url: str, n_ops: int) -> None:
    tune_gc()
    pauses: dict[int, list[float]] = defaultdict(list)
    started = [0.0]

    def timed(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            pauses[info["generation"]].append((time.perf_counter() - started[0]) * 1000)

    ops = apply_bench_ops(n_ops, USERS)
    engine = Engine(connect(url), namespace=f"gcpauses{time.time_ns()}")
    gc.callbacks.append(timed)
    cpu = time.process_time()
    for first in range(0, len(ops), BATCH):
        engine.apply_many(ops[first : first + BATCH])
    cpu = time.process_time() - cpu
    gc.callbacks.remove(timed)
    print(f"{n_ops} ops over {USERS} users: process CPU {cpu:.2f} s")
    for generation in range(3):
        taken = pauses.get(generation, [])
        if taken:
            print(
                f"generation {generation}: {len(taken)} collections, median {statistics.median(taken):.1f} ms, "
                f"longest {max(taken):.1f} ms"
            )
        else:
            print(f"generation {generation}: no collection")


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: gc_pauses.py REDIS_URL [OPS]")
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) == 3 else 40000)
