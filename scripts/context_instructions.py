"""Context lookups of the read bench's user, for counting the client's instructions per lookup.

A lookup's time moves with the machine by tens of percent; its instruction count does not. Run it
under valgrind once building the user only, and once more per mode; the difference over the 1,000
lookups is the client's instructions per lookup:

    for mode in build read script answer; do
      PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=/dev/null \\
        python scripts/context_instructions.py URL SIZE $mode 2>&1 | grep Collected
    done

`read`: lookups as the engine makes them: for scopes of at most 128 rows, the first through the
script and the others whole in a transaction (state/reader.py, `queue_whole`). `script`: every
lookup through the script (the engine remembers no user as small). The server's own time is not in
the count (`scripts/context_split.py` gives it), and the count of a round trip moves a little with
how the reply arrives, in one read from the socket or several. `answer`: from one reply of the
script to the answer (decoding and selection), 1,000 times: no I/O, so the count is exact.

URL is a Redis server's; each run writes to a fresh namespace. The user holds SIZE active records
(those of `slotstream bench engine`); every mode makes 20 lookups first (loading the script,
filling the caches a lookup keeps).
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
from slotstream.state.reader import ContextRead

WARM_UP, LOOKUPS = 20, 1000


def main(url: str, size: int, mode: str) -> None:
    tune_gc()
    engine = Engine(connect(url), namespace=f"contextinstructions{time.time_ns()}")
    request = read_bench_user(engine, size, random.Random(11))
    at = T0 + timedelta(days=1)
    if mode == "script":
        engine.small_scopes = SmallScopes(max_entries=0)  # remembers no one: the script every time
    script, script_calls = engine._context, []

    def counted(*args: Any) -> Any:
        script_calls.append(1)
        return script(*args)

    engine._context = counted  # type: ignore[assignment]
    lookups = answers = 0
    for _ in range(WARM_UP):
        engine.context(request, at)
        lookups += 1
    if mode in ("read", "script"):
        for _ in range(LOOKUPS):
            engine.context(request, at)
            lookups += 1
    elif mode == "answer":
        first = ContextRead(engine.keys, request, at, None)
        reply = engine._context([first.meta], first.args())
        for _ in range(LOOKUPS):
            ContextRead(engine.keys, request, at, None).from_reply(reply)
            answers += 1
    considered = engine.context(request, at).considered
    print(
        f"{size} active records, {considered} considered; {lookups} lookups, {answers} answers from one reply; "
        f"{len(script_calls)} script calls"
    )


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[3] not in ("build", "read", "script", "answer"):
        sys.exit("usage: context_instructions.py REDIS_URL SIZE build|read|script|answer")
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3])
