"""Context lookups of the read bench's user by each whole-read path, for counting the client's
instructions per lookup (docs/BENCHMARKS.md, "Reads"):

    for path in build script transaction; do
      PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=/dev/null \\
        python scripts/context_paths_instructions.py URL SIZE $path 2>&1 | grep Collected
    done   # (path - build) / 1,020

`script`: every lookup through context.lua (no user is remembered as small); `transaction`: the
default, the first lookup through the script and the others read whole in a transaction
(state/reader.py, `queue_whole`). `build`: the user only. URL is a Redis server's; each run writes
to a fresh namespace.
"""

from __future__ import annotations

import random
import sys
import time
from datetime import timedelta
from typing import Any

from slotstream.bench import T0, read_bench_user
from slotstream.runtime import tune_gc
from slotstream.state.client import connect
from slotstream.state.engine import Engine
from slotstream.state.read_index import SmallScopes

WARM_UP, LOOKUPS = 20, 1000


def main(url: str, size: int, path: str) -> None:
    tune_gc()
    engine = Engine(connect(url), namespace=f"contextpaths{time.time_ns()}")
    request = read_bench_user(engine, size, random.Random(11))
    at = T0 + timedelta(days=1)
    if path == "script":
        engine.small_scopes = SmallScopes(max_entries=0)  # remembers no one: the script every time
    script, calls = engine._context, []

    def counted(*args: Any) -> Any:
        calls.append(1)
        return script(*args)

    engine._context = counted  # type: ignore[assignment]
    lookups = 0 if path == "build" else WARM_UP + LOOKUPS
    for _ in range(lookups):
        engine.context(request, at)
    whole = engine.read_stats.whole_small
    print(f"{size} active records; {lookups} lookups, {whole} read whole, {len(calls)} through the script")


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[3] not in ("build", "script", "transaction"):
        sys.exit("usage: context_paths_instructions.py REDIS_URL SIZE build|script|transaction")
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3])
