"""Conformance: every scenario file under tests/scenarios/ passes against the engine on a real Redis.

Each file runs in a fresh namespace (the `engine` fixture); the CLI is exercised end to end too
(`slotstream scenario run`), both on a passing file and on a deliberately failing one.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from slotstream.eval.scenarios import DirectBackend, read_lines, run_lines

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "tests" / "scenarios"
FILES = sorted(SCENARIOS.glob("*.jsonl"))

# One file per acceptance test (acc_*), one per state rule of docs/concepts.md (rule_*).
REQUIRED = [
    "acc_01_preference_change_adopted",
    "acc_02_temporary_request_not_permanent",
    "acc_03_conflicting_facts_cite_source",
    "acc_04_expired_fact_drops_out",
    "acc_05_deleted_item_stays_gone",
    "acc_06_session_continuity",
    "acc_07_temporary_english_override",
    "acc_08_fact_without_source",
    "acc_09_cross_user_isolation",
    "rule_1_explicit_correction",
    "rule_2_repeat_dedup",
    "rule_3_newer_not_more_authoritative",
    "rule_4_validity_at_read_time",
    "rule_5_request_override_and_temporary",
    "rule_6_forget_and_suppression",
    "rule_6_erase_user",
    "rule_7_no_secrets",
    "rule_8_business_facts",
    "invalid_input_rejected",
]
CLOSING = re.compile(r"^(\d+) passed, (\d+) failed$", re.M)


def counted_lines(path: Path) -> int:
    """Lines the runner counts as passed/failed: every query, and every line with an `expect`."""
    return sum(1 for _, obj in read_lines(path) if isinstance(obj, dict) and ("query" in obj or "expect" in obj))


def run_cli(files: list[Path], redis_url: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SLOTSTREAM_REDIS_URL": redis_url}
    return subprocess.run(
        [sys.executable, "-P", "-m", "slotstream.cli", "scenario", "run", *map(str, files)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_every_required_scenario_file_exists() -> None:
    names = {f.stem for f in FILES}
    missing = [n for n in REQUIRED if n not in names]
    assert not missing, f"missing scenario files: {missing}"


@pytest.mark.integration
@pytest.mark.parametrize("path", FILES, ids=[f.name for f in FILES])
def test_scenario_file_passes(path: Path, engine) -> None:
    lines = read_lines(path)
    assert any(isinstance(o, dict) and "query" in o for _, o in lines), f"{path.name} has no query line"
    report = run_lines(DirectBackend(engine), lines, str(path))
    failures = [f"{path.name}:{r.line} {r.kind}: {r.message}" for r in report.results if r.counted and not r.ok]
    assert not failures, f"{len(failures)} failing line(s):\n" + "\n".join(failures)
    assert report.passed == counted_lines(path)


@pytest.mark.integration
def test_cli_runs_a_scenario_file(redis_url: str) -> None:
    path = SCENARIOS / "acc_01_preference_change_adopted.jsonl"
    proc = run_cli([path], redis_url)
    out = proc.stdout.strip().splitlines()
    assert out, proc.stderr
    expected = counted_lines(path)
    assert out[-1] == f"{expected} passed, 0 failed", proc.stdout + proc.stderr
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.integration
def test_cli_fails_on_a_failing_scenario(redis_url: str, tmp_path: Path) -> None:
    path = tmp_path / "deliberately_failing.jsonl"
    lines = [
        {
            "at": "2026-10-01T09:00:00Z",
            "record": {
                "id": "p-1",
                "tenant": "t1",
                "user": "u1",
                "kind": "preference",
                "attribute": "preference.response.detail",
                "value": "concise",
                "authority": "user_explicit",
            },
        },
        # wrong on purpose: the stored value is "concise"
        {
            "at": "2026-10-01T09:01:00Z",
            "query": {"tenant": "t1", "user": "u1", "text": "answer style"},
            "expect": {"include": ["detailed"], "exclude": ["concise"]},
        },
    ]
    path.write_bytes(b"# a scenario that must fail\n" + b"\n".join(orjson.dumps(line) for line in lines) + b"\n")
    proc = run_cli([path], redis_url)
    out = proc.stdout.strip().splitlines()
    assert out, proc.stderr
    assert out[-1] == "0 passed, 1 failed", proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert any(line.startswith("FAIL ") and "missing 'detailed'" in line for line in out), proc.stdout


@pytest.mark.integration
def test_cli_totals_over_several_files(redis_url: str) -> None:
    files = [SCENARIOS / "acc_02_temporary_request_not_permanent.jsonl", SCENARIOS / "rule_2_repeat_dedup.jsonl"]
    proc = run_cli(files, redis_url)
    m = CLOSING.findall(proc.stdout)
    assert m, proc.stdout + proc.stderr
    passed, failed = map(int, m[-1])
    assert (passed, failed) == (sum(counted_lines(f) for f in files), 0), proc.stdout
    assert proc.returncode == 0
