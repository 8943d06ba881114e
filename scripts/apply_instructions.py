"""The apply bench's ops through `Engine.apply_many`, for counting the client's instructions per op.

Time on this machine moves by tens of percent from one hour to the next; an instruction count does
not. Run it twice under valgrind, once building the ops only and once applying them too; the
difference over the ops is the client's instructions per applied op (docs/BENCHMARKS.md, "Apply"):

    valgrind --tool=callgrind --callgrind-out-file=/dev/null python scripts/apply_instructions.py URL build
    valgrind --tool=callgrind --callgrind-out-file=/dev/null python scripts/apply_instructions.py URL apply

(with PYTHONHASHSEED=0, so the two runs hash alike). URL is a Redis server's; each run writes to a
fresh namespace. The ops are those of `slotstream bench engine`'s apply line, 4,000 of them over
200 users.
"""

from __future__ import annotations

import sys
import time

from slotstream.bench import apply_bench_ops
from slotstream.runtime import tune_gc
from slotstream.state.client import connect
from slotstream.state.engine import Engine

OPS, USERS, BATCH = 4000, 200, 500


def main(url: str, mode: str) -> None:
    tune_gc()
    ops = apply_bench_ops(OPS, USERS)
    engine = Engine(connect(url), namespace=f"instructions{time.time_ns()}")
    if mode == "apply":
        for first in range(0, len(ops), BATCH):
            engine.apply_many(ops[first : first + BATCH])


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[2] not in ("build", "apply"):
        sys.exit("usage: apply_instructions.py REDIS_URL build|apply")
    main(sys.argv[1], sys.argv[2])
