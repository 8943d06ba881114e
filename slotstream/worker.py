"""A worker process: the processors, their Redis state and the Faust runtime, wired from settings."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable

import faust

from slotstream.memory.extraction import Extractor
from slotstream.processors.expiry import ExpiryService
from slotstream.processors.extraction import ExtractionService
from slotstream.processors.llm_extractor import extractor_from_config
from slotstream.processors.reconciliation import ReconciliationService
from slotstream.processors.runner import BatchRunner, Handler, with_faults
from slotstream.processors.sealed import Sealed
from slotstream.state.client import connect
from slotstream.state.deploy import DeployGate, read_pointer
from slotstream.state.due import DueIndex
from slotstream.state.engine import Engine
from slotstream.state.progress import Progress
from slotstream.state.turnlog import TurnLog
from slotstream.streams.app import AppConfig, create_app
from slotstream.streams.messages import BatchOutput, Keyed
from slotstream.streams.topics import OPS, TURNS, topic_names
from slotstream.streams.types import BatchProcessor, Sweep

from .master_key import user_keys
from .settings import Settings

PROCESSORS = ("extraction", "reconciliation", "expiry")


def extractor_for(settings: Settings) -> Extractor:
    return extractor_from_config(
        settings.llm_url,
        settings.llm_model,
        settings.llm_timeout,
        settings.llm_api_key.get_secret_value() if settings.llm_api_key else None,
    )


def build_worker_app(settings: Settings, processors: Iterable[str] = PROCESSORS, base: str | None = None) -> faust.App:
    """`settings.namespace`: the namespace the worker writes (the deployment's active one, resolved
    at start); `base`: the deployment it serves (default: the same), whose pointer it watches."""
    chosen = set(processors)
    unknown = chosen - set(PROCESSORS)
    if unknown:
        raise ValueError(f"unknown processors: {sorted(unknown)}; choose from {PROCESSORS}")
    if "expiry" in chosen and "reconciliation" not in chosen:
        raise ValueError("the expiry processor runs beside reconciliation (it sweeps the partitions it owns)")
    assert settings.redis_url and settings.kafka_bootstrap
    names = topic_names(settings.topic_prefix)
    client = connect(settings.redis_url)
    engine = Engine(client, namespace=settings.namespace)
    progress = Progress(client, settings.namespace)
    due_index = DueIndex(client, settings.namespace)
    stop = threading.Event()
    faults = [m.strip() for m in (settings.fault_markers or "").split(",")]
    deployment = base or settings.namespace
    keys = user_keys(settings, client)

    def gate(processor: str) -> DeployGate:
        return DeployGate(client, deployment, settings.namespace, processor, stop)

    def live_runner(
        processor: str, handle: Handler, role: str, after_delivery: Callable[[BatchOutput], None] | None = None
    ) -> BatchRunner:
        # payloads opened with their users' keys, the ops produced sealed again
        sealed = Sealed(with_faults(handle, faults), keys, processor, seal_ops=True)
        return BatchRunner(processor, sealed, progress, names[role], stop, gate(processor), after_delivery)

    runners: dict[str, BatchProcessor] = {}
    if "extraction" in chosen:
        extraction = ExtractionService(
            extractor_for(settings), settings.max_event_skew, TurnLog(client, settings.namespace)
        )
        runners[TURNS] = live_runner("extraction", extraction.handle, TURNS)
    if "reconciliation" in chosen:
        reconciliation = ReconciliationService(engine, due_index, settings.max_event_skew, keys)

        def shred(out: BatchOutput) -> None:
            for tenant, user, kids in out.shred:
                keys.drop(tenant, user, kids)

        runners[OPS] = live_runner("reconciliation", reconciliation.handle, OPS, shred)
    sweep: Sweep | None = None
    if "expiry" in chosen:
        expiry = ExpiryService(engine, progress, due_index, names[OPS])

        def sweep_unless_switching(partitions: list[int]) -> list[Keyed]:
            # a promote waiting for the processors to stand still gets no new expiry ops either
            if read_pointer(client, deployment).switching:
                return []
            return expiry.sweep(partitions)

        sweep = sweep_unless_switching
    config = AppConfig(
        group=settings.group,
        bootstrap=settings.kafka_bootstrap,
        topics=names,
        partitions=settings.partitions,
        batch_size=settings.batch_size,
        batch_wait=settings.batch_wait,
        session_timeout=settings.session_timeout,
        expiry_interval=settings.expiry_interval,
        profile=settings.profile,
    )
    return create_app(config, runners, sweep)
