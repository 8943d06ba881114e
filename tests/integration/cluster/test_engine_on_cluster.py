"""The engine suite and the scenario files, run a second time on a Redis Cluster.

The very same test files as on one server, in a pytest of their own with
SLOTSTREAM_TEST_REDIS=cluster: the session fixture (tests/conftest.py) then starts a
LocalRedisCluster of three masters and gives every test its `redis+cluster://` URL and client, so
every engine call, script, pipeline, scan and digest of those tests goes through the cluster client.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[3]
SUITE = [
    "tests/integration/state",  # engine, properties, second pass, due, progress, digest, deploy, user keys, caches
    "tests/eval/test_scenarios.py",  # every tests/scenarios/*.jsonl straight into the engine, and the CLI
    "tests/integration/cluster/test_session_redis.py",  # proves the run was on the cluster
]
# tests whose time goes to a server that does not answer (a client's retries), the same on either run
DESELECTED: list[str] = [
    "tests/integration/state/test_user_keys.py::test_the_sealer_falls_back_to_the_key_it_last_used_while_redis_is_away",
    "tests/integration/state/test_user_keys.py::"
    "test_while_redis_is_away_input_opened_with_the_remembered_key_is_sealed_with_it_and_no_other",
    # (these two start a server of their own)
    "tests/integration/state/test_compaction.py::test_a_server_that_stays_away_fails_the_pass_after_its_wait",
    "tests/integration/state/test_compaction.py::"
    "test_a_server_away_for_a_moment_mid_pass_is_waited_for_and_every_user_is_compacted_once",
]
SUMMARY = re.compile(r"^=*\s*(\d+) passed.* in [\d.]+s", re.M)


def test_engine_suite_and_scenarios_pass_on_a_redis_cluster(kafka_bootstrap: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "SLOTSTREAM_REDIS_URL"}
    env["SLOTSTREAM_TEST_REDIS"] = "cluster"
    # the archived history's tests need a broker: the one the outer run started, not a new one
    env["SLOTSTREAM_KAFKA_BOOTSTRAP"] = kafka_bootstrap
    deselect = [arg for test in DESELECTED for arg in ("--deselect", test)]
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-P", "-m", "pytest", *SUITE, *deselect, "-q", "-x", "-p", "no:cacheprovider"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-60:])
    assert proc.returncode == 0, tail
    found = SUMMARY.search(proc.stdout)
    assert found and int(found.group(1)) >= 100, tail
    print(f"on a 3-master Redis Cluster: {found.group(1)} passed in {time.monotonic() - started:.1f} s")
