"""`slotstream scenario run --via kafka`: the same scenario files through the whole pipeline.

Turns go to the turns topic, records and commands to the ops topic; before a query (or a line
with an expectation) the runner waits at the offset barrier, then reads the outcome from the
changes and dead-letter topics and answers the query from Redis. Each file runs under tenant ids
unique to the run (`<tenant>.<run>`), which isolates files as a fresh namespace would even on a
shared pipeline.
"""

from __future__ import annotations

import dataclasses
import time
import uuid
from pathlib import Path
from typing import Any

import orjson
from kafka import KafkaConsumer, TopicPartition

from slotstream.config.settings import Settings
from slotstream.eval.scenarios import LineResult, read_lines, run_lines
from slotstream.local.stack import LocalStack
from slotstream.memory.models import ContextRequest, ContextResponse, OpIn, iso
from slotstream.streams.topics import CHANGES, DLQ, OPS


@dataclasses.dataclass
class PipelineOutcome:
    outcome: str
    reason: str | None = None
    detail: str = ""


SIMULATED_SKEW = 100 * 365 * 24 * 3600.0


class KafkaBackend:
    def __init__(self, stack: LocalStack, run_id: str) -> None:
        self.stack = stack
        self.run_id = run_id
        specs = stack.settings.topic_specs()
        self.topics = {CHANGES: specs[CHANGES].name, DLQ: specs[DLQ].name}
        self.ops_topic = specs[OPS].name
        self.watch = KafkaConsumer(
            bootstrap_servers=stack.bootstrap,
            client_id="slotstream-scenario",
            enable_auto_commit=False,
            fetch_max_wait_ms=10,
        )
        tps = []
        for name in self.topics.values():
            tps += [TopicPartition(name, p) for p in sorted(self.watch.partitions_for_topic(name) or ())]
        self.watch.assign(tps)
        self.watch.seek_to_end()
        for tp in tps:
            self.watch.position(tp)
        self.seen: dict[tuple[str, int, int], PipelineOutcome] = {}

    def tenant(self, tenant: Any) -> Any:
        return f"{tenant}.{self.run_id}" if isinstance(tenant, str) and tenant else tenant

    def _scoped(self, body: dict[str, Any]) -> dict[str, Any]:
        return {**body, "tenant": self.tenant(body.get("tenant"))} if "tenant" in body else body

    def _drain(self) -> None:
        while True:
            polled = self.watch.poll(timeout_ms=20)
            if not polled:
                return
            for tp, msgs in polled.items():
                for m in msgs:
                    data = orjson.loads(m.value)
                    src = data.get("source") or {}
                    key = (str(src.get("topic")), int(src.get("partition", -1)), int(src.get("offset", -1)))
                    if tp.topic == self.topics[DLQ]:
                        self.seen[key] = PipelineOutcome("rejected", data.get("reason"), data.get("detail", ""))
                    elif key not in self.seen:
                        self.seen[key] = PipelineOutcome(data.get("outcome", "applied"), data.get("reason"))

    def _produce(self, future: Any) -> Any:
        self.stack.producer.flush()
        return future.get(timeout=30)

    def apply(self, op: OpIn) -> Any:
        if op.record is not None:
            fut = self.stack.producer.send_record(iso(op.at), self._scoped(op.record), op_id=op.op_id)
        else:
            fut = self.stack.producer.send_command(iso(op.at), self._scoped(op.command or {}), op_id=op.op_id)
        meta = self._produce(fut)
        return _Deferred(self, (meta.topic, meta.partition, meta.offset))

    def turn(self, at: Any, turn: dict[str, Any], op_id: str) -> Any:
        body = {**self._scoped(turn), "turn_id": f"{self.run_id}:{op_id}"}
        meta = self._produce(self.stack.producer.send_turn(iso(at), body))
        return _Deferred(self, (meta.topic, meta.partition, meta.offset))

    def context(self, request: ContextRequest, at: Any) -> ContextResponse:
        self.stack.barrier()
        return self.stack.engine.context(request.model_copy(update={"tenant": self.tenant(request.tenant)}), at)

    def outcome(self, source: tuple[str, int, int], timeout: float = 30.0) -> PipelineOutcome:
        """Every op gets a changes or dlq message; wait for it (it may trail the barrier a little:
        the worker records progress once those messages are acknowledged, the watcher's fetch may
        still be in flight). A turn gets one only when refused or invalid."""
        self.stack.barrier()
        deadline = time.monotonic() + (timeout if source[0] == self.ops_topic else 0.2)
        while source not in self.seen and time.monotonic() < deadline:
            self._drain()
        return self.seen.get(source) or PipelineOutcome("applied")


class _Deferred:
    """An op's outcome, read from the changes/dlq topics only when a line asks for it."""

    def __init__(self, backend: KafkaBackend, source: tuple[str, int, int]) -> None:
        self._backend, self._source = backend, source
        self._resolved: PipelineOutcome | None = None

    def _get(self) -> PipelineOutcome:
        if self._resolved is None:
            self._resolved = self._backend.outcome(self._source)
        return self._resolved

    @property
    def outcome(self) -> str:
        return self._get().outcome

    @property
    def reason(self) -> str | None:
        return self._get().reason

    @property
    def detail(self) -> str:
        return self._get().detail


def _print(r: LineResult) -> None:
    tag = "PASS" if r.ok else "FAIL"
    if r.kind == "query" or r.counted or not r.ok:
        print(f"{tag} {r.source}:{r.line} {r.kind}: {r.message}", flush=True)


def run_files_via_kafka(files: list[Path], settings: Settings, stack: LocalStack | None = None) -> int:
    own = stack is None
    if stack is None:
        ns = settings.namespace if settings.redis_url else f"scn-{uuid.uuid4().hex[:8]}"
        # scenario timelines are simulated: their event times may lie far ahead of the clock
        stack = LocalStack(settings.replace(namespace=ns, max_event_skew=SIMULATED_SKEW)).start()
    passed = failed = 0
    try:
        for path in files:
            backend = KafkaBackend(stack, uuid.uuid4().hex[:8])
            lines = read_lines(path)
            report = run_lines(backend, lines, str(path), emit=_print)
            passed += report.passed
            failed += report.failed
    finally:
        if own:
            stack.stop()
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0
