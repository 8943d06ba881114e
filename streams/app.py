"""The Faust app factory: topics, and thin agents over the processors' services.

Redis calls are synchronous and run on one dedicated thread per worker, so the event loop keeps
consuming while a batch is written, and a user's batches are applied in order.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Iterable

import faust
import redis

from processors.expiry import ExpiryService
from processors.extraction import ExtractionService
from processors.llm_extractor import extractor_from_settings
from processors.messages import BatchOutput, RawMessage
from processors.progress import Progress
from processors.reconciliation import ReconciliationService
from slotstream.settings import Settings
from state.engine import Engine

from .topics import CHANGES, DLQ, OPS, TURNS, topic_specs

PROCESSORS = ("extraction", "reconciliation", "expiry")
log = logging.getLogger("slotstream.worker")


def _raw(events: Iterable[Any]) -> list[RawMessage]:
    return [RawMessage(e.message.topic, e.message.partition, e.message.offset, e.message.key, e.message.value)
            for e in events]


class _ProfiledExecutor:
    """SLOTSTREAM_PROFILE: the Redis thread's work (extraction, reconciliation, expiry) under cProfile,
    dumped next to the main thread's profile whenever a batch finishes."""

    def __init__(self, inner: ThreadPoolExecutor, path: str) -> None:
        import cProfile

        self.inner, self.path = inner, path
        self.profiler = cProfile.Profile()

    def submit(self, fn: Any, *args: Any) -> Any:
        def run() -> Any:
            self.profiler.enable()
            try:
                return fn(*args)
            finally:
                self.profiler.disable()
                self.profiler.dump_stats(self.path)

        return self.inner.submit(run)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def create_app(settings: Settings, bootstrap: str, redis_url: str,
               processors: Iterable[str] = PROCESSORS) -> faust.App:
    chosen = set(processors)
    unknown = chosen - set(PROCESSORS)
    if unknown:
        raise ValueError(f"unknown processors: {sorted(unknown)}; choose from {PROCESSORS}")
    if "expiry" in chosen and "reconciliation" not in chosen:
        # the sweep covers the ops partitions this worker owns, which reconciliation assigns
        raise ValueError("the expiry processor runs beside reconciliation (it sweeps the partitions it owns)")

    app = faust.App(
        f"{settings.topic_prefix}-worker",
        broker=f"kafka://{bootstrap}",
        web_enabled=False,
        store="memory://",
        topic_allow_declare=False,  # `slotstream topics create` owns partitions and configs
        topic_disable_leader=True,
        consumer_auto_offset_reset="earliest",
        broker_commit_every=1000,
        broker_commit_interval=0.5,
        producer_acks=-1,
        # a crashed worker's partitions move to the others after this long, not Faust's default 60 s
        broker_session_timeout=settings.session_timeout,
        broker_heartbeat_interval=max(0.5, settings.session_timeout / 5),
        broker_rebalance_timeout=max(10.0, settings.session_timeout * 2),
        producer_linger=0.002,
        stream_wait_empty=False,
    )
    specs = topic_specs(settings)

    def topic(role: str) -> Any:
        return app.topic(specs[role].name, key_serializer="raw", value_serializer="raw",
                         partitions=specs[role].partitions)

    turns, ops, changes, dlq = topic(TURNS), topic(OPS), topic(CHANGES), topic(DLQ)
    client = redis.Redis.from_url(redis_url)
    engine = Engine(client, namespace=settings.namespace)
    progress = Progress(client, settings.namespace)
    expiry = ExpiryService(engine, progress, specs[OPS].name)
    reconciliation = ReconciliationService(engine, progress, expiry)
    extraction = ExtractionService(extractor=extractor_from_settings(settings))
    io = ThreadPoolExecutor(max_workers=1, thread_name_prefix="slotstream-redis")
    if settings.profile:
        io = _ProfiledExecutor(io, settings.profile + ".io")

    async def send_all(target: Any, items: Iterable[tuple[bytes | None, bytes]]) -> None:
        pending = [await target.send(key=k, value=v) for k, v in items]
        for fut in pending:  # delivered before the source offsets count as done
            await fut

    async def run_batches(stream: Any, handle: Callable[[list[RawMessage]], BatchOutput], source: str) -> None:
        """The agents' one loop: a batch goes to its service on the Redis thread, what it yields is
        produced and acknowledged, and only then the batch's offsets count as processed."""
        loop = asyncio.get_running_loop()
        async for events in stream.take_events(settings.batch_size, within=settings.batch_wait):
            batch = _raw(events)
            out = await loop.run_in_executor(io, handle, batch)
            await send_all(ops, out.ops)
            await send_all(dlq, out.dead)
            await send_all(changes, out.changes)
            await loop.run_in_executor(io, progress.advance, source, batch, out.watermark)

    if "extraction" in chosen:
        @app.agent(turns, name="extraction")
        async def extraction_agent(stream: Any) -> None:
            await run_batches(stream, extraction.handle, specs[TURNS].name)

    if "reconciliation" in chosen:
        @app.agent(ops, name="reconciliation")
        async def reconciliation_agent(stream: Any) -> None:
            await run_batches(stream, reconciliation.handle, specs[OPS].name)

    if "expiry" in chosen:
        @app.timer(interval=settings.expiry_interval, name="expiry")
        async def expiry_sweep() -> None:
            owned = [tp.partition for tp in app.consumer.assignment() if tp.topic == specs[OPS].name]
            if not owned:
                return
            loop = asyncio.get_running_loop()
            due = await loop.run_in_executor(io, expiry.sweep, owned)
            if due:
                log.info("expiry: %d ops due on partitions %s", len(due), owned)
                await send_all(ops, due)

    return app
