"""The worker's two handlers as the worker builds them, timed in process (no Kafka): what a turn
costs extraction and what an op costs its fused apply, in process CPU time.

    python scripts/live_handler_costs.py REDIS_URL BATCH [bench|chat80] [TURNS]

Unlike `scripts/batch_costs.py`, the handlers are the live ones (`build_processors`): turns sealed
with their users' keys as the bench's producer seals them, opened with the keys read back from
Redis, the extracted ops sealed again, the turn log, the recorded positions; the ops then go
through reconciliation's fused apply (`apply_produced`, `record_produced`) as the worker applies
them. TURNS turns of the pipeline bench's mix over 1,000 users (default 6,000): the first third
loads every user's view, the rest is timed. Each run writes to a fresh namespace.
"""

from __future__ import annotations

import random
import sys
import time
import uuid

import orjson

from slotstream.bench_pipeline import _turn
from slotstream.master_key import sealer
from slotstream.memory.secrets import scrub
from slotstream.runtime import tune_gc
from slotstream.settings import Settings
from slotstream.state.client import connect
from slotstream.state.progress import Progress
from slotstream.streams.messages import RawMessage
from slotstream.streams.topics import OPS, ORIGIN_HEADER, TURNS, user_key
from slotstream.worker import build_processors

USERS = 1000


def main(url: str, batch: int, mix: str, n_turns: int) -> None:
    tune_gc()
    namespace = f"handlercosts{uuid.uuid4().hex[:8]}"
    # the Kafka address is not used: nothing here produces or consumes
    settings = Settings(redis_url=url, kafka_bootstrap="127.0.0.1:9", namespace=namespace, topic_prefix=namespace)
    config, handlers, _ = build_processors(settings)
    client = connect(url)
    Progress(client, namespace).claim({})
    rng = random.Random(9)
    items = []
    for number in range(n_turns):
        at, turn = _turn(rng, number, USERS, mix)
        turn["tenant"] = namespace  # users' keys are shared by every namespace: these are new users
        body = orjson.dumps(scrub({**turn, "at": at}))
        items.append((turn["tenant"], turn["user"], user_key(turn["tenant"], turn["user"]), body))
    now_ms = int(time.time() * 1000)
    sealed, _ = sealer(settings, client).seal_many(items, now_ms)
    turns = [
        RawMessage(config.topics[TURNS], 0, offset, item[2], value, now_ms)
        for offset, (item, value) in enumerate(zip(items, sealed, strict=True))
    ]
    extraction, reconciliation = handlers[TURNS], handlers[OPS]
    extraction.positions([0])
    reconciliation.positions([0])
    origin = ((ORIGIN_HEADER, b"extraction"),)
    ops_offset = 0

    def run(first: int, last: int) -> tuple[float, float, int]:
        nonlocal ops_offset
        extracting = applying = 0.0
        n_ops = 0
        for start in range(first, last, batch):
            taken = turns[start : min(start + batch, last)]
            began = time.process_time()
            out = extraction.process(taken)
            extraction.record(taken, out)
            extracted = time.process_time()
            produced = [
                RawMessage(config.topics[OPS], 0, ops_offset + k, key, value, now_ms, origin)
                for k, (key, value) in enumerate(out.ops)
            ]
            ops_offset += len(produced)
            applied, applied_out = reconciliation.apply_produced(produced)  # type: ignore[attr-defined]
            assert len(applied) == len(produced) and not applied_out.dead, applied_out.dead[:1]
            reconciliation.record_produced(applied, applied_out)  # type: ignore[attr-defined]
            applying += time.process_time() - extracted
            extracting += extracted - began
            n_ops += len(produced)
        return extracting, applying, n_ops

    warm = n_turns // 3
    run(0, warm)  # every user's first op loads their view, once in a worker's life
    extracting, applying, n_ops = run(warm, n_turns)
    timed = n_turns - warm
    print(
        f"batches of {batch} turns of the {mix} mix over {USERS} users, {timed} turns timed: extraction "
        f"{extracting / timed * 1e6:.0f} µs of CPU a turn, fused apply {applying / max(1, n_ops) * 1e6:.0f} µs an op "
        f"({n_ops} ops); {(extracting + applying) / timed * 1e6:.0f} µs a turn in all"
    )


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4, 5) or (len(sys.argv) >= 4 and sys.argv[3] not in ("bench", "chat80")):
        sys.exit("usage: live_handler_costs.py REDIS_URL BATCH [bench|chat80] [TURNS]")
    main(
        sys.argv[1],
        int(sys.argv[2]),
        sys.argv[3] if len(sys.argv) >= 4 else "bench",
        int(sys.argv[4]) if len(sys.argv) == 5 else 6000,
    )
