"""The lean runtime: the processors on aiokafka's consumer and producer directly, with none of
Faust's stream machinery between a fetched record and its batch.

One consumer in the consumer group reads the turns and ops topics; each processor's loop takes
batches of its own topic's partitions (`getmany`), so a slow extraction batch never holds up
reconciliation. Delivery is the same as the Faust runtime's (`batch_flow.BatchFlow`): a batch is
processed on its processor's thread, what it gives back is produced and acknowledged (acks=all),
only then is its position recorded in Redis. Positions: on every assignment the partitions are
paused, moved to the positions recorded in Redis, then resumed, so nothing is read from anywhere
else (the offsets committed to Kafka, which this runtime writes only from recorded positions,
serve the lost-state check at start and the tools that show lag).

Rebalances: a revoked partition's batch in flight finishes (it is delivered and recorded) before
the partition is given up, unless that takes longer than half the rebalance timeout — then it is
abandoned, and whoever owns the partition next reads it again from the recorded position (the op
ledger makes a second apply a duplicate). SIGTERM: no new batch is taken, the ones in flight
finish, positions are committed, the consumer leaves the group, the producer flushes.

All workers of one consumer group run the same runtime: the two use different partition assignors.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import Any

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, ConsumerRebalanceListener, TopicPartition
from aiokafka.coordinator.assignors.range import RangePartitionAssignor
from aiokafka.errors import IllegalStateError, KafkaError

from ..errors import RestartWorker, Stopping, StopWorker
from ..messages import Compacted, Keyed, RawMessage
from ..topics import OPS
from .batch_flow import (
    POSITION_CHECK_INTERVAL,
    AppConfig,
    BatchFlow,
    Delivered,
    Headers,
    check_processors,
    request_restart,
    stop_now,
)
from .protocol import BatchProcessor, Sweep

log = logging.getLogger("slotstream.worker.wiring")
POLL_MS = 1000  # an idle loop wakes this often to notice a stop
COMMIT_INTERVAL = 0.5  # seconds between commits of the recorded positions to Kafka
SHUTDOWN_GRACE = 20.0  # seconds the batches in flight get to finish on SIGTERM before their waits give up
CLOSE_TIMEOUT = 10.0  # seconds for committing, leaving the group and flushing on the way out


class LeanRuntime:
    """`processors`: by role, `turns` and/or `ops`; `sweep`: the expiry sweep over the ops
    partitions this worker owns (it needs the `ops` processor)."""

    def __init__(self, config: AppConfig, processors: Mapping[str, BatchProcessor], sweep: Sweep | None = None) -> None:
        check_processors(processors, sweep)
        self.config = config
        self.by_topic = {config.topics[role]: p for role, p in processors.items()}
        self.ops_topic = config.topics[OPS]
        self.sweep_ops = sweep
        self.flow = BatchFlow(config, processors, self._send_once, lambda: self.owned.get(self.ops_topic, frozenset()))
        self.owned: dict[str, frozenset[int]] = {}  # topic -> partitions positioned and resumed
        self.generation = 0  # moves on every revocation: records taken before it belong to the old assignment
        self.inflight: dict[str, asyncio.Future[None]] = {}  # what a revocation or a stop waits for
        self.done: dict[TopicPartition, int] = {}  # recorded positions not yet committed to Kafka
        self.stopping = False
        self.failed = False  # an unexpected error stopped the worker: it exits non-zero
        self._stopped: asyncio.Event | None = None
        self._consumer: AIOKafkaConsumer | None = None
        self._producer: AIOKafkaProducer | None = None

    @property
    def consumer(self) -> AIOKafkaConsumer:
        assert self._consumer is not None
        return self._consumer

    @property
    def producer(self) -> AIOKafkaProducer:
        assert self._producer is not None
        return self._producer

    # --- running -----------------------------------------------------------------------------------

    def run(self) -> int:
        """Until SIGTERM / SIGINT (or a restart asked for by a processor); the exit code."""
        asyncio.run(self.main())
        return 1 if self.failed else 0

    async def main(self) -> None:
        loop = asyncio.get_running_loop()
        self._stopped = asyncio.Event()
        self._assigned = asyncio.Condition()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, self.stop)
        await self._started("producer", self._new_producer)
        await self._started("consumer", self._new_consumer)
        loops = {topic: asyncio.create_task(self._consume(topic, p)) for topic, p in self.by_topic.items()}
        timers = [
            asyncio.create_task(self._every(POSITION_CHECK_INTERVAL, self._check_positions)),
            asyncio.create_task(self._every(COMMIT_INTERVAL, self._commit)),
        ]
        if self.sweep_ops is not None:
            timers.append(asyncio.create_task(self._every(self.config.expiry_interval, self._sweep)))
        await self._stopped.wait()
        await self._shutdown(loops, timers)

    def stop(self) -> None:
        self.stopping = True
        if self._stopped is not None:
            self._stopped.set()

    def crashed(self, what: str) -> None:
        """An error no retry or dead letter covers (a bug): stop, so that a supervisor restarts
        the worker, instead of standing still."""
        log.exception("%s failed unexpectedly; stopping the worker", what)
        self.failed = True
        self.stop()

    def _new_producer(self) -> AIOKafkaProducer:
        # acks=all + idempotence: a retried send is written once, in order, per partition
        return AIOKafkaProducer(
            bootstrap_servers=self.config.bootstrap,
            client_id=f"{self.config.group}-producer",
            acks="all",
            enable_idempotence=True,
            linger_ms=2,
        )

    def _new_consumer(self) -> AIOKafkaConsumer:
        session = self.config.session_timeout
        consumer = AIOKafkaConsumer(
            bootstrap_servers=self.config.bootstrap,
            group_id=self.config.group,
            client_id=f"{self.config.group}-consumer",
            enable_auto_commit=False,
            auto_offset_reset="earliest",
            session_timeout_ms=int(session * 1000),
            heartbeat_interval_ms=int(max(0.5, session / 5) * 1000),
            rebalance_timeout_ms=int(self._rebalance_timeout() * 1000),
            max_poll_records=self.config.batch_size,
            # the same partition numbers of the turns and ops topics go to the same worker: a user's
            # turns and ops partitions are the same one when the topics have as many partitions
            partition_assignment_strategy=(RangePartitionAssignor,),
        )
        consumer.subscribe(topics=list(self.by_topic), listener=_Listener(self))
        return consumer

    def _rebalance_timeout(self) -> float:
        return max(10.0, self.config.session_timeout * 2)

    async def _started(self, what: str, new: Callable[[], Any]) -> None:
        """A client started, waiting for a broker that is not reachable yet. (The consumer joins
        the group while it starts: the rebalance listener finds it in place.)"""
        delay = 0.2
        while not self.stopping:
            client = new()
            if what == "consumer":
                self._consumer = client
            else:
                self._producer = client
            try:
                await client.start()
                return
            except KafkaError as err:
                await client.stop()
                log.warning("Kafka %s: broker not reachable (%s); retrying in %.1f s", what, err, delay)
                await asyncio.sleep(delay)
                delay = min(5.0, delay * 2)

    async def _every(self, interval: float, job: Callable[[], Coroutine[Any, Any, None]]) -> None:
        while not self.stopping:
            await asyncio.sleep(interval)
            try:
                await job()
            except asyncio.CancelledError:
                raise
            except Exception as err:  # noqa: BLE001 - a timer's job is repeated; a failed one only waits
                log.warning("%s failed (%s: %s); trying again", job.__name__, type(err).__name__, str(err)[:200])

    async def _shutdown(self, loops: dict[str, asyncio.Task[None]], timers: list[asyncio.Task[None]]) -> None:
        for task in timers:
            task.cancel()
        # a loop waiting for records stops at once; one holding a batch finishes it
        for topic, task in loops.items():
            if topic not in self.inflight:
                task.cancel()
        async with self._assigned:
            self._assigned.notify_all()
        _, pending = await asyncio.wait([*loops.values(), *timers], timeout=SHUTDOWN_GRACE)
        if pending:
            log.warning("stopping: batches still in flight after %.0f s give up their waits", SHUTDOWN_GRACE)
            self.flow.stop_all()
            _, pending = await asyncio.wait(pending, timeout=5.0)
            for task in pending:
                task.cancel()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.flow.settled(), SHUTDOWN_GRACE)
        self.flow.stop_all()  # any wait on a processor's thread gives up
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._commit(), CLOSE_TIMEOUT)
        for client in (self._consumer, self._producer):  # the consumer leaves the group; the producer flushes
            if client is not None:
                try:
                    await asyncio.wait_for(client.stop(), CLOSE_TIMEOUT)
                except (TimeoutError, KafkaError) as err:
                    log.warning("stopping: %s did not close cleanly (%s)", type(client).__name__, err)
        self.flow.shutdown()

    # --- consuming ---------------------------------------------------------------------------------

    async def _consume(self, topic: str, processor: BatchProcessor) -> None:
        """One processor's loop: batches of its topic's partitions, one at a time."""
        while not self.stopping:
            partitions = self.owned.get(topic)
            if not partitions:
                async with self._assigned:
                    if not self.owned.get(topic) and not self.stopping:
                        await self._assigned.wait()
                continue
            try:
                batch = await self._take([TopicPartition(topic, p) for p in sorted(partitions)], processor)
            except KafkaError as err:
                log.warning("%s: fetching failed (%s); trying again", processor.processor, err)
                await asyncio.sleep(1.0)
                continue
            if not batch or self.stopping:
                continue  # not recorded: read again from the recorded position
            done = asyncio.get_running_loop().create_future()
            self.inflight[topic] = done
            try:
                await self.flow.handle(processor, batch)
                self._recorded(batch)
            except Stopping:
                log.info("%s: stopped while waiting; its current batch will be read again", processor.processor)
                return
            except StopWorker as stop:
                stop_now(stop)
            except RestartWorker as restart:
                request_restart(restart)
                return  # takes no further batch
            except Exception:  # noqa: BLE001 - logged with its traceback, and the worker stops
                self.crashed(f"{processor.processor}'s batch")
                return
            finally:
                del self.inflight[topic]
                done.set_result(None)

    async def _take(self, partitions: list[TopicPartition], processor: BatchProcessor) -> list[RawMessage]:
        """Up to a batch of records of these partitions: what is there, or what arrives within the
        batch wait once something is, and for a batch that is to wait for a fused apply, what
        arrives until that is over. Records are never taken across a rebalance: a getmany
        returns records of the assignment current when it returns, and what an earlier getmany
        of the same batch returned is dropped when a revocation came in between (the assignment
        moved those partitions back to their recorded positions)."""
        size = self.config.batch_size
        got = await self.consumer.getmany(*partitions, timeout_ms=POLL_MS, max_records=size)
        generation = self.generation
        records = [record for part in got.values() for record in part]
        if records and len(records) < size and self.config.batch_wait > 0:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + self.config.batch_wait
            while len(records) < size and not self.stopping:
                left = deadline - loop.time()
                if left <= 0:
                    break
                more = await self.consumer.getmany(
                    *partitions, timeout_ms=max(1, int(left * 1000)), max_records=size - len(records)
                )
                if self.generation != generation:
                    records = [record for part in more.values() for record in part]
                    generation = self.generation
                    break
                records += [record for part in more.values() for record in part]
        if records and len(records) < size and not self.stopping and self.flow.waits_for_fused_apply(processor):
            # The batch would wait for the last batch's fused apply (BatchFlow._handle): what
            # arrives meanwhile joins it, instead of waiting a whole batch more for the next one.
            await self.flow.applied()
            more = await self.consumer.getmany(*partitions, timeout_ms=0, max_records=size - len(records))
            fetched = [record for part in more.values() for record in part]
            records = fetched if self.generation != generation else records + fetched
        return [
            RawMessage(
                r.topic,
                r.partition,
                r.offset,
                r.key,
                r.value,
                r.timestamp if r.timestamp is not None and r.timestamp >= 0 else None,
                tuple(r.headers) if r.headers else (),
            )
            for r in records
        ]

    def _recorded(self, batch: list[RawMessage]) -> None:
        for msg in batch:
            tp = TopicPartition(msg.topic, msg.partition)
            if msg.offset + 1 > self.done.get(tp, 0):
                self.done[tp] = msg.offset + 1

    async def _send_once(self, role: str, items: Sequence[Keyed | Compacted], headers: Headers) -> list[Delivered]:
        topic = self.config.topics[role]
        send = self.producer.send
        pending = [await send(topic, value, key=key, headers=headers) for key, value in items]
        return [Delivered(m.partition, m.offset, m.timestamp) for m in await asyncio.gather(*pending)]

    # --- timers ------------------------------------------------------------------------------------

    async def _check_positions(self) -> None:
        restart = await self.flow.check_positions()
        if restart is not None:
            request_restart(restart)

    async def _sweep(self) -> None:
        assert self.sweep_ops is not None
        owned = sorted(self.owned.get(self.ops_topic, ()))
        if not owned:
            return
        done = asyncio.get_running_loop().create_future()
        self.inflight["expiry"] = done
        try:
            await self.flow.sweep(self.sweep_ops, owned)
        finally:
            del self.inflight["expiry"]
            done.set_result(None)

    async def _commit(self, only: set[TopicPartition] | None = None) -> None:
        """The recorded positions to Kafka, for the partitions still assigned (best effort: the
        positions in Redis are what a worker resumes from)."""
        if self._consumer is None:
            return
        assigned = self.consumer.assignment()
        offsets = {tp: off for tp, off in self.done.items() if tp in assigned and (only is None or tp in only)}
        if not offsets:
            return
        try:
            await self.consumer.commit(offsets)
        except (KafkaError, IllegalStateError) as err:
            log.debug("committing positions to Kafka failed (%s); the next commit sends them", err)
            return
        for tp, off in offsets.items():
            if self.done.get(tp) == off:
                del self.done[tp]

    # --- rebalances --------------------------------------------------------------------------------

    async def revoked(self, revoked: set[TopicPartition]) -> None:
        self.generation += 1
        self.owned = {}  # no fused apply or sweep starts on partitions that are leaving
        pending: list[Any] = list(self.inflight.values())
        if self.flow.fusing is not None and not self.flow.fusing.done():
            pending.append(self.flow.fusing)
        if pending:
            grace = self._rebalance_timeout() / 2
            _, late = await asyncio.wait(pending, timeout=grace)
            if late:
                log.warning(
                    "rebalance: a batch in flight did not finish within %.0f s; the partitions' next owner "
                    "reads it again from the recorded position",
                    grace,
                )
        await self._commit(set(revoked))
        self.done = {tp: off for tp, off in self.done.items() if tp not in revoked}

    async def assigned(self, assigned: set[TopicPartition]) -> None:
        try:
            await self._position(assigned)
        except Exception:  # noqa: BLE001 - logged with its traceback, and the worker stops
            self.crashed("positioning the assigned partitions")

    async def _position(self, assigned: set[TopicPartition]) -> None:
        # Paused before anything else (no await in between): nothing is fetched from the committed
        # offsets before the partitions are moved to the recorded positions.
        consumer = self.consumer
        consumer.pause(*assigned)
        by_topic: dict[str, list[int]] = {}
        for tp in assigned:
            by_topic.setdefault(tp.topic, []).append(tp.partition)
        owned: dict[str, frozenset[int]] = {}
        for topic, partitions in by_topic.items():
            processor = self.by_topic.get(topic)
            if processor is None:
                continue
            try:
                wanted = await asyncio.to_thread(processor.positions, sorted(partitions))
            except StopWorker as stop:
                stop_now(stop)
            except Stopping:
                return  # shutting down: the partitions stay paused
            try:
                for partition in partitions:
                    consumer.seek(TopicPartition(topic, partition), wanted.get(partition, 0))
            except IllegalStateError:
                return  # another rebalance took them meanwhile; its own assignment positions them
            owned[topic] = frozenset(partitions)
        if owned:
            log.info("assigned, resuming at the recorded positions: %s", {t: sorted(p) for t, p in owned.items()})
        self.owned = owned
        consumer.resume(*assigned)
        async with self._assigned:
            self._assigned.notify_all()


class _Listener(ConsumerRebalanceListener):
    def __init__(self, runtime: LeanRuntime) -> None:
        self.runtime = runtime

    async def on_partitions_revoked(self, revoked: set[TopicPartition]) -> None:
        await self.runtime.revoked(revoked)

    async def on_partitions_assigned(self, assigned: set[TopicPartition]) -> None:
        await self.runtime.assigned(assigned)
