"""The Faust app factory: topics, and thin agents over the processors' batch runners.

Redis calls are synchronous and run on one dedicated thread per worker, so the event loop keeps
consuming while a batch is written, and a user's batches are applied in order.

Delivery does not rest on Faust's acknowledgements: `take_events` acknowledges a batch when the
agent moves on, even when the agent is cancelled mid-batch, and Faust commits what was
acknowledged. Instead the position recorded in Redis after a batch fully landed is where a
partition resumes: on every assignment the consumer is moved there (`_ProgressConsumer`), so a
commit past an unapplied batch is undone by re-reading it.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Iterable, Mapping

import faust
from faust.transport.drivers import aiokafka as faust_aiokafka

from slotstream.processors.expiry import ExpiryService
from slotstream.processors.extraction import ExtractionService
from slotstream.processors.llm_extractor import extractor_from_settings
from slotstream.processors.messages import BatchOutput, RawMessage
from slotstream.processors.reconciliation import ReconciliationService
from slotstream.processors.runner import BatchRunner, Stopping, retry, waits_for
from slotstream.settings import Settings
from slotstream.state.client import connect
from slotstream.state.due import DueIndex
from slotstream.state.engine import Engine
from slotstream.state.progress import Progress, StateLost, StateRewound

from .topics import CHANGES, DLQ, OPS, TURNS, topic_specs

PROCESSORS = ("extraction", "reconciliation", "expiry")
EXIT_STATE_LOST = 3
log = logging.getLogger("slotstream.worker")

Positions = Callable[[str, list[int]], Mapping[int, int]]


def _raw(events: Iterable[Any]) -> list[RawMessage]:
    out = []
    for e in events:
        m = e.message
        stamp = getattr(m, "timestamp", None)
        out.append(RawMessage(m.topic, m.partition, m.offset, m.key, m.value,
                              int(stamp * 1000) if stamp is not None else None))
    return out


def _progress_transport(app: faust.App, positions: Positions) -> Any:
    """Faust's aiokafka transport, with a consumer that resumes where Redis says, not where the
    last commit says."""

    class _ProgressConsumer(faust_aiokafka.Consumer):  # type: ignore[misc, name-defined]
        async def seek_to_committed(self) -> Mapping[Any, int]:
            committed = dict(await super().seek_to_committed())
            by_topic: dict[str, list[Any]] = {}
            for tp in committed:
                by_topic.setdefault(tp.topic, []).append(tp)
            moves: dict[Any, int] = {}
            for topic, tps in by_topic.items():
                wanted = await asyncio.to_thread(positions, topic, [tp.partition for tp in tps])
                for tp in tps:
                    target = wanted.get(tp.partition)
                    if target is not None and target != (committed.get(tp) or 0):
                        moves[tp] = target
            if moves:
                log.info("resuming at the positions recorded in Redis: %s",
                         {f"{tp.topic}/{tp.partition}": (committed.get(tp), off) for tp, off in moves.items()})
                await self.seek_wait(moves)
                committed.update(moves)
            return committed

    class _ProgressTransport(faust_aiokafka.Transport):  # type: ignore[misc, name-defined]
        Consumer = _ProgressConsumer

    return _ProgressTransport(app.conf.broker_consumer, app)


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


def _fatal(err: BaseException) -> None:
    """Stop the worker at once, committing nothing more: the state it would build on is gone."""
    log.critical("%s", err)
    logging.shutdown()
    os._exit(EXIT_STATE_LOST)


def _restart(err: BaseException) -> None:
    """Start this worker afresh (same command line, same process id): it resumes every partition
    at the position Redis holds, so what Redis lost is read and applied again. Nothing more is
    committed on the way out."""
    log.warning("%s; restarting the worker to re-read from the positions Redis holds", err)
    logging.shutdown()
    os.execv(sys.executable, [sys.executable, *sys.orig_argv[1:]])


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
        settings.consumer_group,
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
    client = connect(redis_url)
    engine = Engine(client, namespace=settings.namespace)
    progress = Progress(client, settings.namespace)
    due_index = DueIndex(client, settings.namespace)
    stop = threading.Event()
    expiry = ExpiryService(engine, progress, due_index, specs[OPS].name)
    faults = [m.strip() for m in (settings.fault_markers or "").split(",")]
    runners = {
        TURNS: BatchRunner("extraction", ExtractionService(extractor_from_settings(settings),
                                                           settings.max_event_skew).handle,
                           progress, specs[TURNS].name, stop, faults),
        OPS: BatchRunner("reconciliation", ReconciliationService(engine, due_index, settings.max_event_skew).handle,
                         progress, specs[OPS].name, stop, faults),
    }
    io: Any = ThreadPoolExecutor(max_workers=1, thread_name_prefix="slotstream-redis")
    if settings.profile:
        io = _ProfiledExecutor(io, settings.profile + ".io")

    by_topic = {runner.source_topic: runner for runner in runners.values()}

    def positions(topic_name: str, partitions: list[int]) -> Mapping[int, int]:
        held: dict[int, int] = retry(lambda: progress.positions(topic_name, partitions), stop,  # type: ignore[assignment]
                                     "resuming positions")
        if topic_name in by_topic:
            by_topic[topic_name].resumed(held)
        return held

    app.transport = _progress_transport(app, positions)

    async def send_all(target: Any, items: list[tuple[bytes | None, bytes]], what: str) -> None:
        """Deliver every item (acks=all), waiting out a broker outage; duplicates on a retry are
        harmless downstream (op ids, change messages keyed by op)."""
        attempt = 0
        while items:
            try:
                pending = [await target.send(key=k, value=v) for k, v in items]
                for fut in pending:
                    await fut
                return
            except asyncio.CancelledError:
                raise
            except Exception as err:  # noqa: BLE001 - every produce failure is retried
                attempt += 1
                delay = min(5.0, 0.05 * 2 ** attempt)
                log.warning("%s: waiting for %s to take %d records (%s: %s); retry %d in %.2f s", what,
                            waits_for(err) or "Kafka", len(items), type(err).__name__, str(err)[:200], attempt, delay)
                await asyncio.sleep(delay)

    async def run_batches(stream: Any, runner: BatchRunner) -> None:
        """The agents' one loop: a batch is handled on the Redis thread, what it yields is produced
        and acknowledged by the broker, and only then is its position recorded."""
        loop = asyncio.get_running_loop()
        try:
            async for events in stream.take_events(settings.batch_size, within=settings.batch_wait):
                batch = _raw(events)
                out: BatchOutput = await loop.run_in_executor(io, runner.process, batch)
                await send_all(ops, out.ops, runner.processor)
                await send_all(dlq, out.dead, runner.processor)
                await send_all(changes, out.changes, runner.processor)
                await loop.run_in_executor(io, runner.record, batch, out)
        except asyncio.CancelledError:
            stop.set()  # a retry waiting on the Redis thread gives up; the batch is read again later
            raise
        except Stopping:
            log.info("%s: stopped while waiting; its current batch will be read again", runner.processor)
        except StateLost as lost:
            _fatal(lost)
        except StateRewound as rewound:
            _restart(rewound)

    @app.timer(interval=1.0, name="positions")
    async def watch_positions() -> None:
        """An idle worker learns of lost writes too: Redis holding less than it recorded."""
        for runner in runners.values():
            try:
                behind = await asyncio.to_thread(runner.regressed)
            except StateLost as lost:
                _fatal(lost)
            except Exception:  # noqa: BLE001 - Redis unreachable: the batches' retries report it
                return
            if behind:
                _restart(StateRewound(f"{runner.source_topic}: Redis holds less than recorded "
                                      f"(partition: (recorded, held)) {behind}"))

    if "extraction" in chosen:
        @app.agent(turns, name="extraction")
        async def extraction_agent(stream: Any) -> None:
            await run_batches(stream, runners[TURNS])

    if "reconciliation" in chosen:
        @app.agent(ops, name="reconciliation")
        async def reconciliation_agent(stream: Any) -> None:
            await run_batches(stream, runners[OPS])

    if "expiry" in chosen:
        @app.timer(interval=settings.expiry_interval, name="expiry")
        async def expiry_sweep() -> None:
            owned = [tp.partition for tp in app.consumer.assignment() if tp.topic == specs[OPS].name]
            if not owned:
                return
            loop = asyncio.get_running_loop()
            try:
                due = await loop.run_in_executor(io, expiry.sweep, owned)
            except Exception as err:  # noqa: BLE001 - a sweep is repeated; a failed one only waits
                dependency = waits_for(err)
                if dependency is None:
                    log.exception("expiry: sweep failed; trying again next interval")
                else:
                    log.warning("expiry: waiting for %s (%s: %s)", dependency, type(err).__name__, str(err)[:200])
                return
            if due:
                log.info("expiry: %d ops due on partitions %s", len(due), owned)
                await send_all(ops, due, "expiry")

    return app
