"""The Faust runtime: a Faust app whose agents run the batch processors they are given
(`SLOTSTREAM_RUNTIME=faust`; the lean runtime in `aiokafka.py` runs the same processors on aiokafka
directly). What happens to a batch — its processor's thread, delivery, fused apply, the recorded
position — is shared with the lean runtime (`batch_flow.BatchFlow`).

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
import tempfile
from collections.abc import Mapping, Sequence
from typing import Any

import faust
from faust.transport.drivers import aiokafka as faust_aiokafka

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
    restart_process,
    restart_requested,
    stop_now,
)
from .protocol import BatchProcessor, Sweep

__all__ = ["AppConfig", "create_app", "restart_process", "restart_requested"]

log = logging.getLogger("slotstream.worker.wiring")


def _raw(events: list[Any]) -> list[RawMessage]:
    out = []
    for e in events:
        m = e.message
        stamp = getattr(m, "timestamp", None)
        ingest_ms = round(stamp * 1000) if stamp is not None else None  # Faust keeps seconds
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
                    stop_now(stop)
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


def create_app(config: AppConfig, processors: Mapping[str, BatchProcessor], sweep: Sweep | None = None) -> faust.App:
    """`processors`: by role, `turns` and/or `ops`; `sweep`: the expiry sweep over the ops
    partitions this worker owns (it needs the `ops` processor)."""
    check_processors(processors, sweep)
    app = _faust_app(config)
    app.transport = _positioned_transport(app, {config.topics[role]: p for role, p in processors.items()})
    runtime = _Runtime(app, config, processors)
    for role, processor in processors.items():

        async def agent(stream: Any, processor: BatchProcessor = processor) -> None:
            await runtime.run_batches(stream, processor)

        app.agent(runtime.topic(role), name=processor.processor)(agent)

    async def check_positions() -> None:
        restart = await runtime.flow.check_positions()
        if restart is not None:
            request_restart(restart)

    app.timer(interval=POSITION_CHECK_INTERVAL, name="positions")(check_positions)
    if sweep is not None:

        async def expiry_sweep() -> None:
            await runtime.flow.sweep(sweep, runtime.owned(OPS))

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
    """What the agents and timers share: the topics, and the batch flow (the processors' threads)."""

    def __init__(self, app: faust.App, config: AppConfig, processors: Mapping[str, BatchProcessor]) -> None:
        self.app, self.config = app, config
        self.topics = {role: self.topic(role) for role in config.topics}
        self.flow = BatchFlow(config, processors, self.send_once, lambda: self.owned(OPS))

    def topic(self, role: str) -> Any:
        return self.app.topic(
            self.config.topics[role], key_serializer="raw", value_serializer="raw", partitions=self.config.partitions
        )

    def owned(self, role: str) -> list[int]:
        name = self.config.topics[role]
        return sorted(tp.partition for tp in self.app.consumer.assignment() if tp.topic == name)

    async def send_once(self, role: str, items: Sequence[Keyed | Compacted], headers: Headers) -> list[Delivered]:
        target = self.topics[role]
        pending = [await target.send(key=k, value=v, headers=headers) for k, v in items]
        delivered = []
        for fut in pending:
            meta = await fut
            delivered.append(Delivered(meta.partition, meta.offset, meta.timestamp))
        return delivered

    async def run_batches(self, stream: Any, processor: BatchProcessor) -> None:
        """The agents' one loop: a batch is processed on the processor's thread, what it gives
        back is produced and acknowledged by the broker, and only then is its position recorded."""
        try:
            async for events in stream.take_events(self.config.batch_size, within=self.config.batch_wait):
                await self.flow.handle(processor, _raw(events))
        except asyncio.CancelledError:
            self.flow.stop_all()  # a wait on the processors' thread gives up; the batch is read again later
            raise
        except Stopping:
            log.info("%s: stopped while waiting; its current batch will be read again", processor.processor)
        except StopWorker as stop:
            stop_now(stop)
        except RestartWorker as restart:
            request_restart(restart)
            await asyncio.Event().wait()  # takes no further batch; cancelled by the shutdown
