"""Which Kafka runtime (SLOTSTREAM_RUNTIME) the pipeline tests' workers run on.

- `runtime`: a module whose stacks take it runs each of its tests once per runtime, grouped by
  runtime: the tests of what a runtime does (test_faults.py, test_pipeline.py, the promote test).
- `default_runtime`: the default one only, for tests whose subject is not the runtime (scenario
  conformance, replays, erasure): both runtimes for everything would add about six minutes to a
  suite of about seven on the 2-core machine.

SLOTSTREAM_TEST_RUNTIMES=lean (or faust, or faust,lean) chooses the runtimes instead; the first one
named is then the default one.

Faust's runs of the fault drills and of the promote test (about three minutes) are in the long
suite (`./scripts/test.sh -m long`, docs/testing.md); the default suite runs Faust through
test_pipeline.py's delivery tests and every drill on the default runtime.
"""

from __future__ import annotations

import os

import pytest

from slotstream.config.settings import Settings

RUNTIMES = ("faust", "lean")


def _runtimes() -> list[str]:
    chosen = [r.strip() for r in os.environ.get("SLOTSTREAM_TEST_RUNTIMES", "").split(",") if r.strip()]
    unknown = set(chosen) - set(RUNTIMES)
    if unknown:
        raise pytest.UsageError(f"SLOTSTREAM_TEST_RUNTIMES: unknown runtimes {sorted(unknown)}; choose from {RUNTIMES}")
    return chosen or list(RUNTIMES)


# modules, and drills of other modules, whose runs on a runtime other than the default one belong
# to the long suite (the default suite runs them on the default runtime)
LONG_ON_OTHER_RUNTIMES = frozenset({"test_faults.py", "test_replay.py"})
DRILLS_LONG_ON_OTHER_RUNTIMES = frozenset(
    {
        "test_crash_mid_stream_applies_every_op_exactly_once",
        "test_two_workers_share_the_load_and_survive_losing_one",
        "test_rebalances_while_turns_and_ops_stream_keep_the_ops_topic_order",
    }
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    default = _default_runtime()
    for item in items:
        params = getattr(item, "callspec", None)
        on = params.params.get("runtime") if params is not None else None
        drill = getattr(item, "originalname", item.name) in DRILLS_LONG_ON_OTHER_RUNTIMES
        if on is not None and on != default and (item.path.name in LONG_ON_OTHER_RUNTIMES or drill):
            item.add_marker(pytest.mark.long)


def _default_runtime() -> str:
    if os.environ.get("SLOTSTREAM_TEST_RUNTIMES"):
        return _runtimes()[0]
    return str(Settings.model_fields["runtime"].default)


@pytest.fixture(scope="module", params=_runtimes())
def runtime(request: pytest.FixtureRequest) -> str:
    """The runtime this module's workers run on, each in turn."""
    return str(request.param)


@pytest.fixture(scope="module")
def default_runtime() -> str:
    """The runtime a worker runs on when nothing is configured (or the first one chosen)."""
    return _default_runtime()
