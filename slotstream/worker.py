"""A worker process: the processors, their Redis state and a Kafka runtime (Faust, or the lean one
on aiokafka directly: SLOTSTREAM_RUNTIME), wired from settings."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from slotstream.memory.extraction import Extractor, RuleExtractor, Turn
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
from slotstream.streams.batches import AppConfig
from slotstream.streams.messages import BatchOutput, Keyed
from slotstream.streams.topics import OPS, TURNS, topic_names
from slotstream.streams.types import BatchProcessor, Sweep

from .master_key import user_keys
from .settings import Settings

if TYPE_CHECKING:
    import faust

    from slotstream.streams.lean import LeanRuntime

PROCESSORS = ("extraction", "reconciliation", "expiry")


def extractor_for(settings: Settings) -> Extractor:
    return extractor_from_config(
        settings.llm_url,
        settings.llm_model,
        settings.llm_timeout,
        settings.llm_api_key.get_secret_value() if settings.llm_api_key else None,
    )


def warm_up(extractor: Extractor) -> None:
    """The rule extractor builds its indexes on first use (seconds): built before the worker takes
    a batch, so that its first batch does not hold turns opened for that long (an erasure applied
    meanwhile would find their ops sealed with a key created after it)."""
    if isinstance(extractor, RuleExtractor):
        at = datetime.now(UTC)
        for text in ("Please keep your answers short.", "以后请用中文回答。"):
            extractor.extract(Turn(tenant="warm", user="up", text=text, at=at, turn_id="warm-up"))


Wiring = tuple[AppConfig, dict[str, BatchProcessor], Sweep | None]


def build_worker_app(settings: Settings, processors: Iterable[str] = PROCESSORS, base: str | None = None) -> faust.App:
    """The worker on the Faust runtime."""
    from slotstream.streams.app import create_app

    return create_app(*build_processors(settings, processors, base))


def build_lean_worker(
    settings: Settings, processors: Iterable[str] = PROCESSORS, base: str | None = None
) -> LeanRuntime:
    """The worker on the lean runtime (aiokafka's consumer and producer directly)."""
    from slotstream.streams.lean import LeanRuntime

    return LeanRuntime(*build_processors(settings, processors, base))


def build_processors(settings: Settings, processors: Iterable[str] = PROCESSORS, base: str | None = None) -> Wiring:
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
        # skip_applied: what a fused apply (or a previous owner) applied already is not applied again
        return BatchRunner(
            processor, sealed, progress, names[role], stop, gate(processor), after_delivery, skip_applied=True
        )

    runners: dict[str, BatchProcessor] = {}
    if "extraction" in chosen:
        extractor = extractor_for(settings)
        warm_up(extractor)
        extraction = ExtractionService(extractor, settings.max_event_skew, TurnLog(client, settings.namespace))
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
        timeline=settings.batch_timeline,
    )
    return config, runners, sweep


def run_worker(settings: Settings, processors: Iterable[str], base: str, loglevel: str) -> int:
    """Run the worker on the configured runtime until it is stopped; re-executes itself when a
    processor asked for a restart. The exit code."""
    from slotstream.streams.batches import restart_process, restart_requested

    from .logs import quiet_kafka_client, setup_worker_logging
    from .runtime import tune_gc

    run: Callable[[], int]
    if settings.runtime == "faust":
        from faust.worker import Worker

        worker = Worker(build_worker_app(settings, processors, base), loglevel=loglevel)

        def run() -> int:
            worker.execute_from_commandline()
            return 0

    else:
        setup_worker_logging(loglevel)
        run = build_lean_worker(settings, processors, base).run
    quiet_kafka_client()
    tune_gc()
    try:
        if not settings.profile:
            return run()
        import cProfile

        profiler = cProfile.Profile()
        try:
            return int(profiler.runcall(run) or 0)
        except SystemExit:
            return 0
        finally:
            profiler.dump_stats(settings.profile)
    finally:
        if restart_requested():
            restart_process()
