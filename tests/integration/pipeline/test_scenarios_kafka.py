"""Conformance through the whole pipeline: every scenario file under tests/scenarios/ passes `--via kafka`.

One `LocalStack` for the module (a real Kafka broker, Redis and one worker subprocess; an already
configured broker/Redis from SLOTSTREAM_* is used instead of starting one), a fresh Redis namespace,
and each file under its own run id, so its tenants (`<tenant>.<run>`) are isolated from the other
files on the shared pipeline. Turn lines go through the turns topic and the extraction processor,
records and commands through the ops topic; each query waits at the offset barrier. The direct-mode
twin of this test is tests/eval/test_scenarios.py.

    .venv/bin/python -m pytest -m kafka tests/integration/pipeline/test_scenarios_kafka.py
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from slotstream.config.settings import Settings
from slotstream.eval.scenarios import read_lines, run_lines
from slotstream.eval.scenarios_kafka import SIMULATED_SKEW, KafkaBackend
from slotstream.local.stack import LocalStack

pytestmark = [pytest.mark.kafka, pytest.mark.integration]

ROOT = Path(__file__).resolve().parents[3]
SCENARIOS = ROOT / "tests" / "scenarios"
FILES = sorted(SCENARIOS.glob("*.jsonl"))


def counted_lines(path: Path) -> int:
    """Lines the runner counts as passed/failed: every query, and every line with an `expect`."""
    return sum(1 for _, obj in read_lines(path) if isinstance(obj, dict) and ("query" in obj or "expect" in obj))


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory, default_runtime: str) -> Iterator[LocalStack]:
    settings = Settings.from_env().replace(
        namespace=f"scnk-{uuid.uuid4().hex[:10]}", max_event_skew=SIMULATED_SKEW, runtime=default_runtime
    )
    local = LocalStack(settings, workers=1, log_dir=tmp_path_factory.mktemp("scenario-worker-logs")).start()
    try:
        yield local
    finally:
        if settings.redis_url:  # a configured, shared Redis: drop this run's namespace
            from slotstream.state.namespaces import drop_namespace

            drop_namespace(local.client, settings.namespace)
        local.stop()


def test_there_are_scenario_files() -> None:
    assert FILES, f"no scenario files under {SCENARIOS}"


@pytest.mark.parametrize("path", FILES, ids=[f.name for f in FILES])
def test_scenario_file_passes_via_kafka(path: Path, stack: LocalStack) -> None:
    lines = read_lines(path)
    assert any(isinstance(o, dict) and "query" in o for _, o in lines), f"{path.name} has no query line"
    backend = KafkaBackend(stack, uuid.uuid4().hex[:8])  # as the CLI does: tenants become <tenant>.<run>
    try:
        report = run_lines(backend, lines, str(path))
    finally:
        backend.watch.close()
    failures = [f"{path.name}:{r.line} {r.kind}: {r.message}" for r in report.results if r.counted and not r.ok]
    assert not failures, f"{len(failures)} failing line(s) via kafka (worker logs: {stack.log_dir}):\n" + "\n".join(
        failures
    )
    assert report.passed == counted_lines(path)
