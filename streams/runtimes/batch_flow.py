"""What either Kafka runtime does with a batch, whatever moves the records (Faust's agents in
`faust.py`, aiokafka's consumer directly in `aiokafka.py`).

A batch is processed on its processor's thread; what it gives back is produced and acknowledged
by the broker (acks=all); only then is its position recorded. Fused apply: the ops a turns batch
yields are applied at once by the worker that produced them, when they are next in line on their
ops partition (their acknowledged offsets continue the partition's recorded position), so a turn
reaches Redis without waiting for the ops consumer to read its ops back; the ops topic stays the
log, and the ops consumer skips what is already applied.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, NoReturn, TypeVar

from ..errors import RestartWorker, Stopping, StopWorker
from ..messages import BatchOutput, Compacted, Keyed, RawMessage
from ..topics import CHANGES, CONTROL, DLQ, KEYS, OPS, ORIGIN_HEADER, TURNS
from .protocol import AppliesProduced, BatchProcessor, Sweep
from .timeline import Timeline, age_ms, clock

log = logging.getLogger("slotstream.worker.wiring")
T = TypeVar("T")
POSITION_CHECK_INTERVAL = 1.0  # seconds: how soon an idle worker notices lost state
RESTART_GRACE_SECONDS = 15.0  # a restart waits this long for the graceful shutdown, then goes ahead
# A fused apply waits at most this long for an ops batch in flight (it may be held by a promote
# pausing reconciliation, which in turn waits for the extraction batch doing the fused apply).
FUSE_WAIT_SECONDS = 1.0


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
    fused_apply: bool = True  # a worker running extraction and reconciliation applies its extracted ops at once
    timeline: str | None = None  # one line per batch appended here (streams/runtimes/timeline.py)


@dataclass(frozen=True, slots=True)
class Delivered:
    """Where the broker put a produced record."""

    partition: int
    offset: int
    timestamp_ms: int | None  # the broker's append time on the input topics (LogAppendTime)


Headers = list[tuple[str, bytes]] | None
# (role, records, headers) -> where each record landed, once the broker acknowledged every one
SendOnce = Callable[[str, Sequence[Keyed | Compacted], Headers], Awaitable[list[Delivered]]]


def check_processors(processors: Mapping[str, BatchProcessor], sweep: Sweep | None) -> None:
    unknown = set(processors) - {TURNS, OPS}
    if unknown:
        raise ValueError(f"processors run on the turns and ops topics, not {sorted(unknown)}")
    if sweep is not None and OPS not in processors:
        raise ValueError("the expiry sweep runs beside the ops processor (it sweeps the partitions it owns)")


def stop_now(stop: StopWorker) -> NoReturn:
    """Exit at once, committing nothing more: the state the worker would build on is gone."""
    log.critical("%s", stop)
    logging.shutdown()
    os._exit(stop.exit_code)


_restart = {"requested": False}


def restart_requested() -> bool:
    """A processor asked for a restart: once the runtime has shut down, the command re-executes itself."""
    return _restart["requested"]


def restart_process() -> NoReturn:
    """Start this worker afresh (same command line, same process id): it resumes every partition
    at its recorded position."""
    logging.shutdown()
    os.execv(sys.executable, [sys.executable, *sys.orig_argv[1:]])


def request_restart(restart: RestartWorker) -> None:
    """Shut the worker down gracefully (it leaves the consumer group, so the restarted process is
    assigned its partitions at once instead of after the session timeout), then restart it.
    Nothing more is applied on the way out: the processors stop taking batches."""
    if _restart["requested"]:
        return
    log.warning("%s; restarting the worker to re-read from the recorded positions", restart)
    _restart["requested"] = True
    # a shutdown that hangs (the broker unreachable just then) must not keep the worker down
    watchdog = threading.Timer(RESTART_GRACE_SECONDS, restart_process)
    watchdog.daemon = True
    watchdog.start()
    os.kill(os.getpid(), signal.SIGTERM)


class ProfiledExecutor(Executor):
    """A processor's thread under cProfile, dumped whenever a batch finishes."""

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


class BatchFlow:
    """The processors, their threads, and the way of a batch through them and out to the broker.
    `send_once` is the runtime's producer; `owned_ops` the ops partitions the runtime's consumer
    owns now (a fused apply writes only on those: their reconciliation is this worker's)."""

    def __init__(
        self,
        config: AppConfig,
        processors: Mapping[str, BatchProcessor],
        send_once: SendOnce,
        owned_ops: Callable[[], Collection[int]],
    ) -> None:
        self.config, self.processors = config, processors
        self.send_once = send_once
        self.owned_ops = owned_ops
        self.turns, self.ops = processors.get(TURNS), processors.get(OPS)
        fusing = config.fused_apply and self.turns is not None and isinstance(self.ops, AppliesProduced)
        self.fuse_into: AppliesProduced | None = self.ops if fusing else None  # type: ignore[assignment]
        # An ops batch and a fused apply exclude each other from reading the recorded positions to
        # recording theirs: neither applies what the other applied but has not recorded yet.
        self.reconciling = asyncio.Lock()
        self.fusing: asyncio.Task[None] | None = None
        # the fused apply's writes to Redis: what the next turns batch waits for (its changes
        # delivered and its position recorded afterwards, beside that batch's extraction)
        self.applying: asyncio.Future[None] | None = None
        self.timeline = Timeline(config.timeline) if config.timeline else None
        # one thread per processor: its batches run in order, and one processor standing still (a
        # promote pausing it) never holds up another's batch. A fused apply runs on reconciliation's
        # thread, so it never runs beside a batch of the ops consumer.
        self.threads: dict[str, Executor] = {}
        for processor in processors.values():
            thread: Executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"slotstream-{processor.processor}")
            if config.profile:
                thread = ProfiledExecutor(thread, f"{config.profile}.{processor.processor}")
            self.threads[processor.processor] = thread

    def stop_all(self) -> None:
        """Every wait for a dependency gives up (the worker is shutting down)."""
        for processor in self.processors.values():
            processor.stop()

    def shutdown(self) -> None:
        for thread in self.threads.values():
            thread.shutdown(wait=False, cancel_futures=True)
        if self.timeline is not None:
            self.timeline.close()

    async def on_thread(self, processor: Any, fn: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.threads[processor.processor], fn, *args)

    async def send_all(
        self, role: str, items: Sequence[Keyed | Compacted], what: str, origin: str | None = None
    ) -> list[Delivered]:
        """Deliver every item (acks=all), waiting out a broker outage; duplicates on a retry are
        harmless downstream (op ids, change messages keyed by op)."""
        attempt = 0
        headers: Headers = [(ORIGIN_HEADER, origin.encode())] if origin else None
        while items:
            try:
                return await self.send_once(role, items, headers)
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
        return []

    async def deliver(self, what: str, out: BatchOutput) -> list[Delivered]:
        """A batch's records, in the order that keeps them safe; where each op landed."""
        # users' new keys first: nothing sealed with a key goes out before its durable copy
        await self.send_all(KEYS, out.keys, what)
        delivered = await self.send_all(OPS, out.ops, what, origin=what)
        await self.send_all(CONTROL, out.control, what)
        await self.send_all(DLQ, out.dead, what)
        await self.send_all(CHANGES, out.changes, what)
        return delivered

    async def handle(self, processor: BatchProcessor, batch: list[RawMessage]) -> None:
        """One batch: processed, delivered, its ops applied at once when they are next in line,
        its position recorded. Raises what the processor raises (Stopping, StopWorker,
        RestartWorker): the batch is then not recorded and is read again."""
        if processor is self.ops and self.fuse_into is not None:
            async with self.reconciling:
                await self._handle(processor, batch)
        else:
            await self._handle(processor, batch)

    async def _handle(self, processor: BatchProcessor, batch: list[RawMessage]) -> None:
        timed = clock(self.timeline, processor.processor, batch)
        if self.waits_for_fused_apply(processor) and len(batch) < self.config.batch_size:
            # Less than a full batch: the worker keeps up, and this batch waits for the last one's
            # fused apply's writes. Run beside it, the two share one GIL and each takes longer, so the last
            # batch's turns reach Redis later. (A full batch means a backlog: it runs beside the
            # fused apply, whose waits for Redis it fills.) The lean runtime waits before it
            # finishes taking the batch, so what arrives meanwhile joins it.
            await self.applied()
        timed.mark("waited")
        out: BatchOutput = await self.on_thread(processor, processor.process, batch)
        timed.mark("processed")
        if processor is self.turns and self.fuse_into is not None and out.ops:
            await self.deliver_and_fuse(processor.processor, out, timed.oldest)
        else:
            await self.deliver(processor.processor, out)
        timed.mark("delivered")
        await self.on_thread(processor, processor.record, batch, out)
        timed.mark("recorded")
        timed.done()

    async def deliver_and_fuse(self, what: str, out: BatchOutput, oldest_ms: int | None = None) -> None:
        """A turns batch's records delivered, then its ops applied at once where they are next in
        line (the batch's position does not wait for it: its ops are on the ops topic, where the
        ops consumer finds them if the fused apply never happens). Reconciliation is held from
        before the ops go out: the ops consumer, which may fetch them at once, waits for the fused
        apply instead of applying them itself."""
        try:
            await asyncio.wait_for(self.reconciling.acquire(), FUSE_WAIT_SECONDS)
        except TimeoutError:
            # the ops consumer applies them, after reading them back: counted, as such ops reach
            # Redis later than the others
            out.count("fused_apply:left_to_consumer", len(out.ops))
            await self.deliver(what, out)
            return
        try:
            delivered = await self.deliver(what, out)
        except BaseException:
            self.reconciling.release()
            raise
        self.applying = asyncio.get_running_loop().create_future()
        self.fusing = asyncio.create_task(self._fuse_then_release(what, out.ops, delivered, oldest_ms))

    def waits_for_fused_apply(self, processor: BatchProcessor) -> bool:
        """A batch of `processor` that is not full waits for the writes of the fused apply in
        flight (`_handle`)."""
        return processor is self.turns and self.applying is not None and not self.applying.done()

    async def applied(self) -> None:
        """The writes of the fused apply in flight are over (what a turns batch waits for)."""
        if self.applying is not None and not self.applying.done():
            await asyncio.wait([self.applying])

    def _applied(self) -> None:
        if self.applying is not None and not self.applying.done():
            self.applying.set_result(None)

    async def settled(self) -> None:
        """The fused apply in flight is over (a revocation or a stop waits for it)."""
        if self.fusing is not None and not self.fusing.done():
            await asyncio.wait([self.fusing])

    async def _fuse_then_release(
        self, what: str, ops: list[Keyed], delivered: list[Delivered], oldest_ms: int | None = None
    ) -> None:
        try:
            await self.fuse(what, ops, delivered, oldest_ms)
        except StopWorker as stop:
            stop_now(stop)
        except RestartWorker as restart:
            request_restart(restart)
        except Stopping:
            log.info("fused apply: stopped while waiting; the ops consumer applies its ops")
        except Exception:  # the ops are on the ops topic: the ops consumer applies them
            log.exception("fused apply failed; the ops consumer applies its ops")
        finally:
            self._applied()
            self.reconciling.release()

    async def fuse(
        self, origin: str, ops: list[Keyed], delivered: list[Delivered], oldest_ms: int | None = None
    ) -> None:
        """The ops just delivered, as the ops consumer would read them (same topic, partition,
        offset, sealed payload, append time, origin header), applied by reconciliation when they
        are next in line on an ops partition this worker owns. The caller holds `reconciling`.
        `oldest_ms`: the append time of the oldest turn the ops came from (for the timeline)."""
        applier, reconciliation = self.fuse_into, self.ops
        assert applier is not None and reconciliation is not None
        owned = self.owned_ops()
        topic = self.config.topics[OPS]
        headers = ((ORIGIN_HEADER, origin.encode()),)
        produced = [
            RawMessage(topic, where.partition, where.offset, key, value, where.timestamp_ms, headers)
            for (key, value), where in zip(ops, delivered, strict=True)
            if where.partition in owned
        ]
        if not produced:
            return
        started = time.perf_counter()
        applied, out = await self.on_thread(reconciliation, applier.apply_produced, produced)
        self._applied()
        if self.timeline is not None:
            self.timeline.write(
                {
                    "processor": "fused_apply",
                    "start_ms": round(time.time() * 1000 - (time.perf_counter() - started) * 1000, 1),
                    "records": len(applied),
                    "applied_ms": round((time.perf_counter() - started) * 1000, 2),
                    "visible_age_ms": age_ms(oldest_ms),
                }
            )
        if not applied:
            return
        await self.deliver(reconciliation.processor, out)
        await self.on_thread(reconciliation, applier.record_produced, applied, out)

    async def check_positions(self) -> RestartWorker | None:
        """Every processor's recorded positions still held by Redis (exits at once when the state
        is gone); the restart to ask for when they are behind."""
        for processor in self.processors.values():
            try:
                await asyncio.to_thread(processor.check)
            except StopWorker as stop:
                stop_now(stop)
            except RestartWorker as restart:
                return restart
        return None

    async def sweep(self, sweep: Sweep, owned: list[int]) -> None:
        if not owned:
            return
        reconciliation = self.processors[OPS]
        started = time.perf_counter()
        try:
            # on reconciliation's thread: the sweep reads the due index reconciliation writes
            due = await self.on_thread(reconciliation, sweep, owned)
        except Exception as err:  # noqa: BLE001 - a sweep is repeated; a failed one only waits
            log.warning("expiry: sweep failed (%s: %s); trying again next interval", type(err).__name__, str(err)[:200])
            return
        if self.timeline is not None:
            # a sweep holds reconciliation's thread: a fused apply queued behind it waits this long
            swept_ms = (time.perf_counter() - started) * 1000
            start_ms = round(time.time() * 1000 - swept_ms, 1)
            self.timeline.write(
                {"processor": "sweep", "start_ms": start_ms, "swept_ms": round(swept_ms, 2), "records": len(due)}
            )
        if due:
            log.info("expiry: %d ops due on partitions %s", len(due), owned)
            await self.send_all(OPS, due, "expiry", origin="expiry")
