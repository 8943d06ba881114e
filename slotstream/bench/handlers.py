"""`slotstream bench handlers`: the worker's two handlers as the worker builds them, run in process
(no Kafka): what a turn costs extraction and what an op costs its fused apply, in process CPU time.

The handlers are the live ones (`build_processors`): turns sealed with their users' keys as the
pipeline bench's producer seals them, opened with the keys read back from Redis, the extracted ops
sealed again, the turn log, the recorded positions; the ops then go through reconciliation's fused
apply as the worker applies them. The turns are the pipeline bench's mix over 1,000 users: the
first third loads every user's view, the rest is timed. Each run writes to a fresh namespace.
"""

from __future__ import annotations

import random
import time
import uuid
from dataclasses import dataclass

import orjson

from slotstream.config.master_key import sealer
from slotstream.config.settings import Settings
from slotstream.memory.secrets import scrub
from slotstream.state.client import connect
from slotstream.state.progress import Progress
from slotstream.streams.messages import RawMessage
from slotstream.streams.topics import OPS, ORIGIN_HEADER, TURNS, user_key
from slotstream.worker.startup import tune_gc
from slotstream.worker.wiring import build_processors

from .pipeline import _turn

USERS = 1000


@dataclass
class HandlerCosts:
    turns: int
    ops: int
    extracting: float  # CPU seconds
    applying: float


class LiveHandlers:
    """The worker's extraction and reconciliation handlers over one Redis, fed sealed turns."""

    def __init__(self, url: str, mix: str, n_turns: int) -> None:
        tune_gc()
        namespace = f"handlercosts{uuid.uuid4().hex[:8]}"
        # the Kafka address is not used: nothing here produces or consumes
        settings = Settings(redis_url=url, kafka_bootstrap="127.0.0.1:9", namespace=namespace, topic_prefix=namespace)
        self.config, handlers, _ = build_processors(settings)
        client = connect(url)
        Progress(client, namespace).claim({})
        self.now_ms = int(time.time() * 1000)
        self.turns = self._sealed_turns(settings, client, namespace, mix, n_turns)
        self.extraction, self.reconciliation = handlers[TURNS], handlers[OPS]
        self.extraction.positions([0])
        self.reconciliation.positions([0])
        self.ops_offset = 0

    def _sealed_turns(
        self, settings: Settings, client: object, namespace: str, mix: str, n_turns: int
    ) -> list[RawMessage]:
        rng = random.Random(9)
        items = []
        for number in range(n_turns):
            at, turn = _turn(rng, number, USERS, mix)
            turn["tenant"] = namespace  # users' keys are shared by every namespace: these are new users
            body = orjson.dumps(scrub({**turn, "at": at}))
            items.append((turn["tenant"], turn["user"], user_key(turn["tenant"], turn["user"]), body))
        sealed, _ = sealer(settings, client).seal_many(items, self.now_ms)  # type: ignore[arg-type]
        return [
            RawMessage(self.config.topics[TURNS], 0, offset, item[2], value, self.now_ms)
            for offset, (item, value) in enumerate(zip(items, sealed, strict=True))
        ]

    def run(self, first: int, last: int, batch: int) -> HandlerCosts:
        """Turns [first, last) in batches: extracted, then their ops applied as the worker does."""
        costs = HandlerCosts(last - first, 0, 0.0, 0.0)
        origin = ((ORIGIN_HEADER, b"extraction"),)
        for start in range(first, last, batch):
            taken = self.turns[start : min(start + batch, last)]
            began = time.process_time()
            out = self.extraction.process(taken)
            self.extraction.record(taken, out)
            extracted = time.process_time()
            produced = [
                RawMessage(self.config.topics[OPS], 0, self.ops_offset + k, key, value, self.now_ms, origin)
                for k, (key, value) in enumerate(out.ops)
            ]
            self.ops_offset += len(produced)
            applied, applied_out = self.reconciliation.apply_produced(produced)  # type: ignore[attr-defined]
            assert len(applied) == len(produced) and not applied_out.dead, applied_out.dead[:1]
            self.reconciliation.record_produced(applied, applied_out)  # type: ignore[attr-defined]
            costs.applying += time.process_time() - extracted
            costs.extracting += extracted - began
            costs.ops += len(produced)
        return costs


def run_handlers(url: str, batch: int, mix: str, n_turns: int) -> HandlerCosts:
    """All the turns through the live handlers; the costs of the last two thirds (the first third
    loads every user's view, once in a worker's life)."""
    handlers = LiveHandlers(url, mix, n_turns)
    warm = n_turns // 3
    handlers.run(0, warm, batch)
    return handlers.run(warm, n_turns, batch)


def run_handler_costs(settings: Settings, batch: int, mix: str, n_turns: int) -> int:
    from slotstream.local.redis_server import LocalRedis

    with LocalRedis() as local:
        costs = run_handlers(settings.redis_url or local.url, batch, mix, n_turns)
    print(
        f"batches of {batch} turns of the {mix} mix over {USERS} users, {costs.turns} turns timed: extraction "
        f"{costs.extracting / costs.turns * 1e6:.0f} µs of CPU a turn, fused apply "
        f"{costs.applying / max(1, costs.ops) * 1e6:.0f} µs an op ({costs.ops} ops); "
        f"{(costs.extracting + costs.applying) / costs.turns * 1e6:.0f} µs a turn in all"
    )
    return 0
