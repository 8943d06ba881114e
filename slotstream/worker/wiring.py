"""A worker process: the processors, their Redis state and a Kafka runtime (Faust, or the lean one
on aiokafka directly: SLOTSTREAM_RUNTIME), wired from settings."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from slotstream.config.history import engine_options
from slotstream.config.master_key import user_keys
from slotstream.config.settings import Settings
from slotstream.memory.extraction import Extractor, RuleExtractor, Turn
from slotstream.processors.expiry import ExpiryService
from slotstream.processors.extraction import ExtractionService
from slotstream.processors.llm_extractor import extractor_from_config
from slotstream.processors.reconciliation import ReconciliationService
from slotstream.processors.runner import BatchRunner, Handler, with_faults
from slotstream.processors.sealed import Sealed
from slotstream.state.client import connect
from slotstream.state.deployment import DeployGate, read_pointer
from slotstream.state.engine import Engine
from slotstream.state.expiry_index import DueIndex
from slotstream.state.progress import Progress
from slotstream.state.turn_outcomes import TurnLog
from slotstream.streams.messages import BatchOutput, Keyed
from slotstream.streams.runtimes.batch_flow import AppConfig
from slotstream.streams.runtimes.protocol import BatchProcessor, Sweep
from slotstream.streams.topics import OPS, TURNS, topic_names

if TYPE_CHECKING:
    import faust

    from slotstream.streams.runtimes.aiokafka import LeanRuntime

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
    from slotstream.streams.runtimes.faust import create_app

    return create_app(*build_processors(settings, processors, base))


def build_lean_worker(
    settings: Settings, processors: Iterable[str] = PROCESSORS, base: str | None = None
) -> LeanRuntime:
    """The worker on the lean runtime (aiokafka's consumer and producer directly)."""
    from slotstream.streams.runtimes.aiokafka import LeanRuntime

    return LeanRuntime(*build_processors(settings, processors, base))


def _checked(processors: Iterable[str]) -> set[str]:
    chosen = set(processors)
    unknown = chosen - set(PROCESSORS)
    if unknown:
        raise ValueError(f"unknown processors: {sorted(unknown)}; choose from {PROCESSORS}")
    if "expiry" in chosen and "reconciliation" not in chosen:
        raise ValueError("the expiry processor runs beside reconciliation (it sweeps the partitions it owns)")
    return chosen


def _app_config(settings: Settings) -> AppConfig:
    assert settings.kafka_bootstrap
    return AppConfig(
        group=settings.group,
        bootstrap=settings.kafka_bootstrap,
        topics=topic_names(settings.topic_prefix),
        partitions=settings.partitions,
        batch_size=settings.batch_size,
        batch_wait=settings.batch_wait,
        session_timeout=settings.session_timeout,
        expiry_interval=settings.expiry_interval,
        profile=settings.profile,
        timeline=settings.batch_timeline,
    )


class _Wirer:
    """What the processors of one worker share: its Redis state, the users' keys, the stop event
    and the deployment it serves."""

    def __init__(self, settings: Settings, base: str | None) -> None:
        assert settings.redis_url
        self.settings = settings
        self.names = topic_names(settings.topic_prefix)
        self.client = connect(settings.redis_url)
        self.engine = Engine(self.client, namespace=settings.namespace, **engine_options(settings, self.client))
        self.progress = Progress(self.client, settings.namespace)
        self.due_index = DueIndex(self.client, settings.namespace)
        self.stop = threading.Event()
        self.faults = [m.strip() for m in (settings.fault_markers or "").split(",")]
        self.deployment = base or settings.namespace
        self.keys = user_keys(settings, self.client)

    def runner(
        self, processor: str, handle: Handler, role: str, after_delivery: Callable[[BatchOutput], None] | None = None
    ) -> BatchRunner:
        # payloads opened with their users' keys, the ops produced sealed again
        sealed = Sealed(with_faults(handle, self.faults), self.keys, processor, seal_ops=True)
        gate = DeployGate(self.client, self.deployment, self.settings.namespace, processor, self.stop)
        # skip_applied: what a fused apply (or a previous owner) applied already is not applied again
        return BatchRunner(
            processor, sealed, self.progress, self.names[role], self.stop, gate, after_delivery, skip_applied=True
        )

    def extraction(self) -> BatchRunner:
        extractor = extractor_for(self.settings)
        warm_up(extractor)
        turn_log = TurnLog(self.client, self.settings.namespace)
        service = ExtractionService(extractor, self.settings.max_event_skew, turn_log)
        return self.runner("extraction", service.handle, TURNS)

    def reconciliation(self) -> BatchRunner:
        service = ReconciliationService(self.engine, self.due_index, self.settings.max_event_skew, self.keys)

        def shred(out: BatchOutput) -> None:
            for tenant, user, kids in out.shred:
                self.keys.drop(tenant, user, kids)

        return self.runner("reconciliation", service.handle, OPS, shred)

    def sweep(self) -> Sweep:
        expiry = ExpiryService(self.engine, self.progress, self.due_index, self.names[OPS])

        def sweep_unless_switching(partitions: list[int]) -> list[Keyed]:
            # a promote waiting for the processors to stand still gets no new expiry ops either
            if read_pointer(self.client, self.deployment).switching:
                return []
            return expiry.sweep(partitions)

        return sweep_unless_switching


def build_processors(settings: Settings, processors: Iterable[str] = PROCESSORS, base: str | None = None) -> Wiring:
    """`settings.namespace`: the namespace the worker writes (the deployment's active one, resolved
    at start); `base`: the deployment it serves (default: the same), whose pointer it watches."""
    chosen = _checked(processors)
    assert settings.redis_url and settings.kafka_bootstrap
    wirer = _Wirer(settings, base)
    runners: dict[str, BatchProcessor] = {}
    if "extraction" in chosen:
        runners[TURNS] = wirer.extraction()
    if "reconciliation" in chosen:
        runners[OPS] = wirer.reconciliation()
    sweep = wirer.sweep() if "expiry" in chosen else None
    return _app_config(settings), runners, sweep


def run_worker(settings: Settings, processors: Iterable[str], base: str, loglevel: str) -> int:
    """Run the worker on the configured runtime until it is stopped; re-executes itself when a
    processor asked for a restart. The exit code."""
    from slotstream.streams.runtimes.batch_flow import restart_process, restart_requested
    from slotstream.worker.logs import quiet_kafka_client, setup_worker_logging
    from slotstream.worker.startup import tune_gc

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
