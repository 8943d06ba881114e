"""A worker's two handlers timed per batch, in process (no Kafka, no sealing), by batch size: what a
turn costs in a small batch (a worker keeping up) against a full one (a backlog).

    python scripts/batch_costs.py REDIS_URL BATCH USERS

6,000 turns of the pipeline bench's mix over USERS users, in batches of BATCH: extraction's
handler, then reconciliation's on the ops it yielded (as `scripts/worker_instructions.py` runs
them). Prints the medians over the batches of the extraction's time a turn and the apply's time an
op (Redis's own time included: the apply waits for its scripts). Each run writes to a fresh
namespace.
"""

from __future__ import annotations

import statistics
import sys
import time

from worker_instructions import turn_messages  # this folder: the same turns as the instruction counts

from slotstream.processors.extraction import ExtractionService
from slotstream.processors.reconciliation import ReconciliationService
from slotstream.runtime import tune_gc
from slotstream.state.client import connect
from slotstream.state.due import DueIndex
from slotstream.state.engine import Engine
from slotstream.streams.messages import RawMessage

TURNS = 6000


def main(url: str, batch: int, users: int) -> None:
    tune_gc()
    turns = turn_messages("bench", turns=TURNS, users=users)
    client = connect(url)
    namespace = f"batchcosts{time.time_ns()}"
    extraction = ExtractionService()
    reconciliation = ReconciliationService(Engine(client, namespace), DueIndex(client, namespace))
    extraction.handle(turns[:batch])  # warms the extractor up
    per_turn, per_op = [], []
    ops_offset = 0
    for first in range(batch, TURNS - batch + 1, batch):
        started = time.perf_counter()
        produced = extraction.handle(turns[first : first + batch]).ops
        extracted = time.perf_counter()
        ops = [RawMessage("ops", 0, ops_offset + k, key, value) for k, (key, value) in enumerate(produced)]
        ops_offset += len(ops)
        out = reconciliation.handle(ops)
        applied = time.perf_counter()
        assert not out.dead, out.dead[:1]
        per_turn.append((extracted - started) / batch * 1e6)
        if ops:
            per_op.append((applied - extracted) / len(ops) * 1e6)
    print(
        f"batches of {batch} turns over {users} users: extraction {statistics.median(per_turn):.0f} µs a turn, "
        f"apply {statistics.median(per_op):.0f} µs an op (medians of {len(per_turn)} batches)"
    )


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: batch_costs.py REDIS_URL BATCH USERS")
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
