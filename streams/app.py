"""The Faust runtime: a Faust app whose agents run the batch processors they are given.

The processors' blocking work (Redis) runs on one dedicated thread per processor, so the event loop
keeps consuming while a batch is written, and a user's batches are applied in order.

Delivery does not rest on Faust's acknowledgements: `take_events` acknowledges a batch when the
agent moves on, even when the agent is cancelled mid-batch, and Faust commits what was
acknowledged. Instead each processor records a batch's position once it fully landed, and on
every assignment the consumer is moved to the recorded positions (`_PositionedConsumer`), so a
commit past an unapplied batch is undone by re-reading it.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, NoReturn, TypeVar

import faust
from faust.transport.drivers import aiokafka as faust_aiokafka

from .errors import RestartWorker, Stopping, StopWorker
from .messages import BatchOutput, Compacted, Keyed, RawMessage
from .topics import CHANGES, CONTROL, DLQ, KEYS, OPS, ORIGIN_HEADER, TURNS
from .types import BatchProcessor, Sweep

log = logging.getLogger("slotstream.worker")
T = TypeVar("T")
POSITION_CHECK_INTERVAL = 1.0  # seconds: how soon an idle worker notices lost state
RESTART_GRACE_SECONDS = 15.0  # a restart waits this long for Faust's graceful shutdown, then goes ahead


@dataclass(frozen=True)
class AppConfig:
    group: str
    bootstrap: str
    topics: Mapping[str, str]  # role (turns, ops, changes, dlq) -> topic name
    partitions: int
    batch_size: int = 500
    batch_wait: float = 0.01
    session_timeout: float = 10.0
    expiry_interval: float = 1.0
    profile: str | None = None  # cProfile dumps of each processor's thread go to <profile>.<processor>


def _raw(events: list[Any]) -> list[RawMessage]:
    out = []
    for e in events:
        m = e.message
        stamp = getattr(m, "timestamp", None)
        ingest_ms = int(stamp * 1000) if stamp is not None else None
        raw_headers = getattr(m, "headers", None) or ()
        headers = tuple(raw_headers.items() if isinstance(raw_headers, Mapping) else raw_headers)
        out.append(RawMessage(m.topic, m.partition, m.offset, m.key, m.value, ingest_ms, headers))
    return out


def _positioned_transport(app: faust.App, processors: Mapping[str, BatchProcessor]) -> Any:
    """Faust's aiokafka transport, with a consumer that resumes where the processors recorded,
    not where the last commit says."""

    class _PositionedConsumer(faust_aiokafka.Consumer):
        async def seek_to_committed(self) -> Mapping[Any, int]:
            committed = dict(await super().seek_to_committed())
            by_topic: dict[str, list[Any]] = {}
            for tp in committed:
                by_topic.setdefault(tp.topic, []).append(tp)
            moves: dict[Any, int] = {}
            for topic, tps in by_topic.items():
                processor = processors.get(topic)
                if processor is None:
                    continue
                try:
                    wanted = await asyncio.to_thread(processor.positions, [tp.partition for tp in tps])
                except StopWorker as stop:
                    _stop_now(stop)
                for tp in tps:
                    target = wanted.get(tp.partition)
                    if target is not None and target != (committed.get(tp) or 0):
                        moves[tp] = target
            if moves:
                log.info(
                    "resuming at the recorded positions: %s",
                    {f"{tp.topic}/{tp.partition}": (committed.get(tp), off) for tp, off in moves.items()},
                )
                await self.seek_wait(moves)
                committed.update(moves)
            return committed

    class _PositionedTransport(faust_aiokafka.Transport):
        Consumer = _PositionedConsumer

    return _PositionedTransport(app.conf.broker_consumer, app)


def _stop_now(stop: StopWorker) -> NoReturn:
    """Exit at once, committing nothing more: the state the worker would build on is gone."""
    log.critical("%s", stop)
    logging.shutdown()
    os._exit(stop.exit_code)


_restart = {"requested": False}


def restart_requested() -> bool:
    """A processor asked for a restart: once Faust has shut down, the command re-executes itself."""
    return _restart["requested"]


def restart_process() -> NoReturn:
    """Start this worker afresh (same command line, same process id): it resumes every partition
    at its recorded position."""
    logging.shutdown()
    os.execv(sys.executable, [sys.executable, *sys.orig_argv[1:]])


def _request_restart(restart: RestartWorker) -> None:
    """Shut the worker down gracefully (it leaves the consumer group, so the restarted process is
    assigned its partitions at once instead of after the session timeout), then restart it.
    Nothing more is applied on the way out: the agents stop taking batches."""
    if _restart["requested"]:
        return
    log.warning("%s; restarting the worker to re-read from the recorded positions", restart)
    _restart["requested"] = True
    # a shutdown that hangs (the broker unreachable just then) must not keep the worker down
    watchdog = threading.Timer(RESTART_GRACE_SECONDS, restart_process)
    watchdog.daemon = True
    watchdog.start()
    os.kill(os.getpid(), signal.SIGTERM)


class _ProfiledExecutor(Executor):
    """The processors' thread under cProfile, dumped whenever a batch finishes."""

    def __init__(self, inner: Executor, path: str) -> None:
        import cProfile

        self.inner, self.path = inner, path
        self.profiler = cProfile.Profile()

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        def run() -> T:
            self.profiler.enable()
            try:
                return fn(*args, **kwargs)
            finally:
                self.profiler.disable()
                self.profiler.dump_stats(self.path)

        return self.inner.submit(run)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self.inner.shutdown(wait, cancel_futures=cancel_futures)


def create_app(config: AppConfig, processors: Mapping[str, BatchProcessor], sweep: Sweep | None = None) -> faust.App:
    """`processors`: by role, `turns` and/or `ops`; `sweep`: the expiry sweep over the ops
    partitions this worker owns (it needs the `ops` processor)."""
    unknown = set(processors) - {TURNS, OPS}
    if unknown:
        raise ValueError(f"processors run on the turns and ops topics, not {sorted(unknown)}")
    if sweep is not None and OPS not in processors:
        raise ValueError("the expiry sweep runs beside the ops processor (it sweeps the partitions it owns)")
    app = _faust_app(config)
    app.transport = _positioned_transport(app, {config.topics[role]: p for role, p in processors.items()})
    runtime = _Runtime(app, config, processors)
    for role, processor in processors.items():

        async def agent(stream: Any, processor: BatchProcessor = processor) -> None:
            await runtime.run_batches(stream, processor)

        app.agent(runtime.topic(role), name=processor.processor)(agent)

    async def check_positions() -> None:
        await runtime.check_positions()

    app.timer(interval=POSITION_CHECK_INTERVAL, name="positions")(check_positions)
    if sweep is not None:

        async def expiry_sweep() -> None:
            await runtime.sweep(sweep)

        app.timer(interval=config.expiry_interval, name="expiry")(expiry_sweep)
    return app


def _faust_app(config: AppConfig) -> faust.App:
    # tables live in memory; keep Faust's empty data folder out of the working directory
    datadir = os.path.join(tempfile.gettempdir(), "slotstream-faust")
    os.makedirs(datadir, exist_ok=True)
    return faust.App(
        config.group,
        broker=f"kafka://{config.bootstrap}",
        web_enabled=False,
        store="memory://",
        datadir=os.path.join(datadir, "{conf.name}-data"),
        topic_allow_declare=False,  # `slotstream topics create` owns partitions and configs
        topic_disable_leader=True,
        consumer_auto_offset_reset="earliest",
        broker_commit_every=1000,
        broker_commit_interval=0.5,
        producer_acks=-1,
        # a crashed worker's partitions move to the others after this long, not Faust's default 60 s
        broker_session_timeout=config.session_timeout,
        broker_heartbeat_interval=max(0.5, config.session_timeout / 5),
        broker_rebalance_timeout=max(10.0, config.session_timeout * 2),
        producer_linger=0.002,
        stream_wait_empty=False,
    )


class _Runtime:
    """What the agents and timers share: the topics, the processors' thread, the processors."""

    def __init__(self, app: faust.App, config: AppConfig, processors: Mapping[str, BatchProcessor]) -> None:
        self.app, self.config, self.processors = app, config, processors
        self.ops, self.changes, self.dlq = self.topic(OPS), self.topic(CHANGES), self.topic(DLQ)
        self.keys, self.control = self.topic(KEYS), self.topic(CONTROL)
        # one thread per processor: its batches run in order, and one processor standing still (a
        # promote pausing it) never holds up another's batch
        self.threads: dict[str, Executor] = {}
        for processor in processors.values():
            thread: Executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"slotstream-{processor.processor}")
            if config.profile:
                thread = _ProfiledExecutor(thread, f"{config.profile}.{processor.processor}")
            self.threads[processor.processor] = thread

    def topic(self, role: str) -> Any:
        return self.app.topic(
            self.config.topics[role], key_serializer="raw", value_serializer="raw", partitions=self.config.partitions
        )

    def stop_all(self) -> None:
        for processor in self.processors.values():
            processor.stop()

    async def send_all(
        self, target: Any, items: Sequence[Keyed | Compacted], what: str, origin: str | None = None
    ) -> None:
        """Deliver every item (acks=all), waiting out a broker outage; duplicates on a retry are
        harmless downstream (op ids, change messages keyed by op)."""
        attempt = 0
        while items:
            try:
                headers = [(ORIGIN_HEADER, origin.encode())] if origin else None
                pending = [await target.send(key=k, value=v, headers=headers) for k, v in items]
                for fut in pending:
                    await fut
                return
            except asyncio.CancelledError:
                raise
            except Exception as err:  # noqa: BLE001 - every produce failure is retried
                attempt += 1
                delay = min(5.0, 0.05 * 2**attempt)
                log.warning(
                    "%s: waiting for Kafka to take %d records (%s: %s); retry %d in %.2f s",
                    what,
                    len(items),
                    type(err).__name__,
                    str(err)[:200],
                    attempt,
                    delay,
                )
                await asyncio.sleep(delay)

    async def run_batches(self, stream: Any, processor: BatchProcessor) -> None:
        """The agents' one loop: a batch is processed on the processors' thread, what it gives
        back is produced and acknowledged by the broker, and only then is its position recorded."""
        loop = asyncio.get_running_loop()
        try:
            async for events in stream.take_events(self.config.batch_size, within=self.config.batch_wait):
                batch = _raw(events)
                thread = self.threads[processor.processor]
                out: BatchOutput = await loop.run_in_executor(thread, processor.process, batch)
                # users' new keys first: nothing sealed with a key goes out before its durable copy
                await self.send_all(self.keys, out.keys, processor.processor)
                await self.send_all(self.ops, out.ops, processor.processor, origin=processor.processor)
                await self.send_all(self.control, out.control, processor.processor)
                await self.send_all(self.dlq, out.dead, processor.processor)
                await self.send_all(self.changes, out.changes, processor.processor)
                await loop.run_in_executor(thread, processor.record, batch, out)
        except asyncio.CancelledError:
            self.stop_all()  # a wait on the processors' thread gives up; the batch is read again later
            raise
        except Stopping:
            log.info("%s: stopped while waiting; its current batch will be read again", processor.processor)
        except StopWorker as stop:
            _stop_now(stop)
        except RestartWorker as restart:
            _request_restart(restart)
            await asyncio.Event().wait()  # takes no further batch; cancelled by the shutdown

    async def check_positions(self) -> None:
        for processor in self.processors.values():
            try:
                await asyncio.to_thread(processor.check)
            except StopWorker as stop:
                _stop_now(stop)
            except RestartWorker as restart:
                _request_restart(restart)
                return

    async def sweep(self, sweep: Sweep) -> None:
        ops_topic = self.config.topics[OPS]
        owned = [tp.partition for tp in self.app.consumer.assignment() if tp.topic == ops_topic]
        if not owned:
            return
        loop = asyncio.get_running_loop()
        try:
            # on reconciliation's thread: the sweep reads the due index reconciliation writes
            due = await loop.run_in_executor(self.threads["reconciliation"], sweep, owned)
        except Exception as err:  # noqa: BLE001 - a sweep is repeated; a failed one only waits
            log.warning("expiry: sweep failed (%s: %s); trying again next interval", type(err).__name__, str(err)[:200])
            return
        if due:
            log.info("expiry: %d ops due on partitions %s", len(due), owned)
            await self.send_all(self.ops, due, "expiry", origin="expiry")
