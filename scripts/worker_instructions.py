"""A worker's two handlers on the pipeline bench's turns, in process (no Kafka, no sealing): for
counting the instructions a turn costs in extraction's handler and in reconciliation's.

The worker's throughput moves with the machine by tens of percent between runs; an instruction
count does not. Run it three times under valgrind and take the differences over the turns:

    for stage in build extract apply; do
      PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=/dev/null \\
        python scripts/worker_instructions.py REDIS_URL $stage [bench|chat80] 2>&1 | grep Collected
    done

Every stage builds the services and warms the extractor up first. (extract - build) / turns is
extraction's handler (decoding and checking the turn, the extractor, the ops it yields);
(apply - extract) / turns is reconciliation's (parsing those ops as the ops consumer does, the
engine, change records, the due index). 1,000 turns of the mix in batches of 50 over 50 users:
20 turns a user, as in `slotstream bench pipeline`'s 20,000 over 1,000, so most applies find the
user's view cached, as a running worker does. Each run writes to a fresh namespace.
"""

from __future__ import annotations

import random
import sys
import time

import orjson

from slotstream.bench_pipeline import _turn
from slotstream.processors.extraction import ExtractionService
from slotstream.processors.reconciliation import ReconciliationService
from slotstream.runtime import tune_gc
from slotstream.state.client import connect
from slotstream.state.due import DueIndex
from slotstream.state.engine import Engine
from slotstream.streams.messages import RawMessage

TURNS, USERS, BATCH = 1000, 50, 50
STAGES = ("build", "extract", "apply")


def turn_messages(mix: str, seed: int = 5, turns: int = TURNS, users: int = USERS) -> list[RawMessage]:
    """The pipeline bench's turns as the turns topic holds them (scrubbed, not sealed)."""
    rng = random.Random(seed)
    messages = []
    for i in range(turns):
        at, turn = _turn(rng, i, users, mix)
        body = {**turn, "at": at}
        messages.append(RawMessage("turns", 0, i, f"{turn['tenant']}/{turn['user']}".encode(), orjson.dumps(body)))
    return messages


def main(url: str, stage: str, mix: str) -> None:
    tune_gc()
    turns = turn_messages(mix)
    client = connect(url)  # builds no connection yet
    namespace = f"workerinstructions{time.time_ns()}"
    extraction = ExtractionService()
    reconciliation = ReconciliationService(Engine(client, namespace), DueIndex(client, namespace))
    # every stage builds the services and warms the extractor up on other turns, so the differences
    # between stages are the handlers' work on these turns alone
    extraction.handle(turn_messages(mix, seed=6)[:BATCH])
    if stage == "build":
        return
    ops_offset = 0
    for first in range(0, TURNS, BATCH):
        produced = extraction.handle(turns[first : first + BATCH]).ops
        if stage == "apply":
            ops = [RawMessage("ops", 0, ops_offset + k, key, value) for k, (key, value) in enumerate(produced)]
            ops_offset += len(ops)
            out = reconciliation.handle(ops)
            assert not out.dead, out.dead[:1]  # every op the extractor yields is applied


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4) or sys.argv[2] not in STAGES:
        sys.exit("usage: worker_instructions.py REDIS_URL build|extract|apply [bench|chat80]")
    main(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) == 4 else "bench")
