"""The Faust app factory: topics, and thin agents over the processors' services.

Redis calls are synchronous and run on one dedicated thread per worker, so the event loop keeps
consuming while a batch is written, and a user's batches are applied in order.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Iterable

import faust
import orjson
import redis
from pydantic import ValidationError

from memory.models import iso
from processors.expiry import ExpiryService
from processors.extraction import ExtractionService, op_json, turn_from_message
from processors.llm_extractor import extractor_from_settings
from processors.progress import Progress
from processors.reconciliation import RawMessage, ReconciliationService, dead_letter
from slotstream.settings import Settings
from state.engine import Engine

from .schemas import ChangeMessage, SourceRef
from .topics import CHANGES, DLQ, OPS, TURNS, topic_specs, user_key

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
    expiry = ExpiryService(client, progress, specs[OPS].name, engine=engine)
    reconciliation = ReconciliationService(engine, client, progress, settle=expiry.settle)
    extraction = ExtractionService(extractor=extractor_from_settings(settings))
    io = ThreadPoolExecutor(max_workers=1, thread_name_prefix="slotstream-redis")
    if settings.profile:
        io = _ProfiledExecutor(io, settings.profile + ".io")

    async def send_all(target: Any, items: Iterable[tuple[bytes | None, bytes]]) -> None:
        pending = [await target.send(key=k, value=v) for k, v in items]
        for fut in pending:  # delivered before the source offsets count as done
            await fut

    def extract_batch(batch: list[RawMessage]) -> tuple[list[tuple[bytes, bytes]], list[tuple[Any, bytes]],
                                                        list[tuple[bytes, bytes]]]:
        out_ops: list[tuple[bytes, bytes]] = []
        dead: list[tuple[Any, bytes]] = []
        notes: list[tuple[bytes, bytes]] = []
        turns: list[tuple[Any, str]] = []
        sources: list[RawMessage] = []
        for msg in batch:
            source = f"{msg.topic}:{msg.partition}:{msg.offset}"
            try:
                data = orjson.loads(msg.value or b"")
                if not isinstance(data, dict):
                    raise ValueError("invalid_field", "a turn is a JSON object")
                turn = turn_from_message(data, default_id=source)
            except orjson.JSONDecodeError as err:
                dead.append((msg.key, dead_letter(msg, "invalid_json", str(err), "extraction")))
                continue
            except ValidationError as err:
                first = err.errors()[0]
                reason = "missing_field" if first.get("type") == "missing" else "invalid_field"
                dead.append((msg.key, dead_letter(msg, reason, f"{first.get('loc')}: {first.get('msg')}",
                                                  "extraction")))
                continue
            except ValueError as err:
                dead.append((msg.key, dead_letter(msg, str(err.args[0]), str(err.args[-1]), "extraction")))
                continue
            turns.append((turn, turn.turn_id))
            sources.append(msg)
        for (turn, _), msg, result in zip(turns, sources, extraction.ops_for_turns(turns)):
            key = user_key(turn.tenant, turn.user)
            for op in result.ops:
                out_ops.append((key, orjson.dumps(op_json(op))))
            if result.refused:
                note = ChangeMessage(op_id=turn.turn_id, outcome="refused", reason=",".join(result.refused),
                                     tenant=turn.tenant, user=turn.user, at=turn.at,
                                     source=SourceRef(topic=msg.topic, partition=msg.partition, offset=msg.offset))
                notes.append((key, note.model_dump_json().encode()))
        return out_ops, dead, notes

    if "extraction" in chosen:
        @app.agent(turns, name="extraction")
        async def extraction_agent(stream: Any) -> None:
            loop = asyncio.get_running_loop()
            async for events in stream.take_events(settings.batch_size, within=settings.batch_wait):
                batch = _raw(events)
                out_ops, dead, notes = await loop.run_in_executor(io, extract_batch, batch)
                await send_all(ops, out_ops)
                await send_all(dlq, dead)
                await send_all(changes, notes)
                await loop.run_in_executor(io, progress.advance, specs[TURNS].name, batch)

    if "reconciliation" in chosen:
        @app.agent(ops, name="reconciliation")
        async def reconciliation_agent(stream: Any) -> None:
            loop = asyncio.get_running_loop()
            async for events in stream.take_events(settings.batch_size, within=settings.batch_wait):
                batch = _raw(events)
                out = await loop.run_in_executor(io, reconciliation.handle, batch)
                await send_all(dlq, out.dead)
                await send_all(changes, out.changes)
                await loop.run_in_executor(io, progress.advance, specs[OPS].name, batch, out.watermark)

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

    app.slotstream = {"engine": engine, "progress": progress, "redis": client}  # type: ignore[attr-defined]
    return app


def now_iso() -> str:
    from datetime import datetime, timezone

    return iso(datetime.now(timezone.utc)) or ""
