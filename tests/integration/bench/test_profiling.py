"""The profiling tools (`slotstream bench lua-calls|context-split|handlers|aof|timeline`) run against
a real Redis and print what docs/results.md says they print."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

pytestmark = pytest.mark.integration


@pytest.fixture
def script_keys_dropped(redis_client: redis.Redis) -> Iterator[None]:
    """The scripts write to namespaces of their own: dropped afterwards."""
    yield
    patterns = (
        "calls*",
        "split*",
        "handlercosts*",
        "slotstream:ukeys:{handlercosts*",
    )
    for pattern in patterns:
        for key in redis_client.scan_iter(match=pattern, count=1000):
            redis_client.delete(key)


def run(*args: str, redis_url: str | None = None) -> str:
    """`slotstream bench ARGS` in a process of its own (on `redis_url`, else a Redis it starts)."""
    env = {**os.environ, "SLOTSTREAM_REDIS_URL": redis_url} if redis_url else dict(os.environ)
    env.pop("SLOTSTREAM_REDIS_URL", None) if redis_url is None else None
    done = subprocess.run(
        [sys.executable, "-P", "-m", "slotstream.cli", "bench", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_lua_calls_counts_the_scripts_server_calls(
    redis_url: str, redis_client: redis.Redis, script_keys_dropped: None
) -> None:
    out = run("lua-calls", "--ops", "600", redis_url=redis_url)
    total = re.search(r"([\d.]+) server calls per op in apply\.lua", out)
    assert total is not None, out
    per_command = {m[1]: float(m[2]) for m in re.finditer(r"^  (\w+)\s+([\d.]+)$", out, re.M)}
    # every op writes its record and its ledger entry: at least one HSET each
    assert per_command["HSET"] >= 1.0
    assert float(total[1]) == pytest.approx(sum(per_command.values()), abs=0.1)


def test_lua_calls_by_key_names_each_command_with_the_kind_of_key_it_writes(
    redis_url: str, redis_client: redis.Redis, script_keys_dropped: None
) -> None:
    by_command = run("lua-calls", "--ops", "600", redis_url=redis_url)
    out = run("lua-calls", "--ops", "600", "--by-key", redis_url=redis_url)
    per_key = {m[1]: float(m[2]) for m in re.finditer(r"^  (\w+ \w+|\w+)\s+([\d.]+)$", out, re.M)}
    # every op writes its ledger entry once and appends its log entry once
    assert per_key["HSET ops"] == pytest.approx(1.0, abs=0.01)
    assert per_key["RPUSH log"] == pytest.approx(1.0, abs=0.01)
    assert per_key["HSET rec"] >= 1.0
    # the same calls, split finer: per command, the kinds add up to the plain count
    per_command = {m[1]: float(m[2]) for m in re.finditer(r"^  (\w+)\s+([\d.]+)$", by_command, re.M)}
    for command, n in per_command.items():
        split = sum(v for name, v in per_key.items() if name.split()[0] == command)
        assert split == pytest.approx(n, abs=0.05), (command, out)


def test_context_split_prints_each_part(redis_url: str, redis_client: redis.Redis, script_keys_dropped: None) -> None:
    out = run("context-split", "--size", "10", "--calls", "200", redis_url=redis_url)
    assert "10 active records, 10 rows returned (whole)" in out
    for part in (
        "the script on the server",
        "round trip with the script",
        "the whole lookup",
        "a plain GET, for scale",
        "the same rows in a transaction, on the server",
        "round trip with the transaction",
    ):
        assert re.search(rf"{part}:\s+\d+ us", out), out
    interleaved = r"setting up the read \d+ us, the call \d+ us, the reply to the answer \d+ us"
    assert re.search(rf"interleaved \(medians of 200\): {interleaved}", out), out
    for path in ("by the script", "in a transaction"):
        runs = r"\d+ / \d+ / \d+ us"
        assert re.search(rf"a lookup {path}, three runs of 200: client CPU {runs}, wall {runs}", out), out


def test_context_split_takes_apart_a_lookup_with_statements(
    redis_url: str, redis_client: redis.Redis, script_keys_dropped: None
) -> None:
    """Past the whole-read threshold, with a share of statements: an indexed read, taken apart."""
    out = run("context-split", "--size", "300", "--stated", "0.2", "--calls", "100", redis_url=redis_url)
    found = re.search(r"300 active records, (\d+) rows returned \(indexed\)", out)
    assert found is not None and 0 < int(found.group(1)) < 300, out
    assert re.search(r"the script on the server:\s+\d+ us", out), out


def test_bench_timeline_summarizes_stages_and_collections(tmp_path: Path) -> None:
    lines = [
        {"processor": "extraction", "records": 4, "oldest_age_ms": 30.0, "waited": 0.1, "processed": 8.0},
        {"processor": "extraction", "records": 6, "oldest_age_ms": 50.0, "waited": 0.2, "processed": 12.0},
        {"processor": "sweep", "start_ms": 1.0, "swept_ms": 8.25, "records": 0},
        {"processor": "gc", "generation": 0, "pause_ms": 1.5, "collected": 3},
        {"processor": "gc", "generation": 2, "pause_ms": 40.0, "collected": 0},
        {"processor": "gc", "generation": 0, "pause_ms": 2.5, "collected": 0},
    ]
    path = tmp_path / "timeline.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out = run("timeline", str(path)).splitlines()
    assert out[0].startswith("extraction: 2 batches, 5 records a batch (median); oldest_age_ms p50 "), out
    assert out[1:] == [
        "sweep: 1 batches, 0 records a batch (median); swept_ms p50 8.2 / p99 8.2",
        "gc generation 0: 2 collections, 4.0 ms in all, the longest 2.5 ms",
        "gc generation 2: 1 collections, 40.0 ms in all, the longest 40.0 ms",
    ]


def test_bench_handlers_runs_the_workers_own_handlers_on_sealed_turns(
    redis_url: str, redis_client: redis.Redis, script_keys_dropped: None
) -> None:
    out = run("handlers", "--batch", "50", "--mix", "chat80", "--turns", "300", redis_url=redis_url)
    assert re.fullmatch(
        r"batches of 50 turns of the chat80 mix over 1000 users, 200 turns timed: extraction \d+ µs of CPU a turn, "
        r"fused apply \d+ µs an op \(\d+ ops\); \d+ µs a turn in all\n",
        out,
    ), out
    # the ops were applied (the script asserts each one was, with no dead letter) and their users'
    # keys were made and read back: the sealed path, not plaintext
    assert list(redis_client.scan_iter(match="handlercosts*:meta", count=1000))
    assert list(redis_client.scan_iter(match="slotstream:ukeys:{handlercosts*", count=1000))


def test_bench_aof_counts_a_records_field_names_and_evidence_and_leaves_out_what_is_not_a_json_object() -> None:
    from slotstream.bench import aof as aof_costs

    record = {"id": "r1", "evidence": [{"at": "x"}]}
    # "id" and "evidence" at the top, "at" inside: each name with its two quotes and its colon
    assert aof_costs.field_name_bytes(record) == (2 + 3) + (8 + 3) + (2 + 3)
    raw = json.dumps(record, separators=(",", ":")).encode()
    evidence = len(b'[{"at":"x"}]')
    line = aof_costs.record_parts([raw, b"\x00sealed bytes", b"[1, 2]"])  # the last two are left out
    names = (2 + 3) + (8 + 3) + (2 + 3)
    assert line == (
        f"  of the stored records' bytes: field names {names / len(raw) * 100:.0f}%, "
        f"evidence lists {evidence / len(raw) * 100:.0f}% (its own field names included)"
    )
    assert aof_costs.record_parts([b"not json"]) is None


def test_bench_aof_reads_the_files_growth_and_times_rewrites_both_ways_on_a_server_of_its_own() -> None:
    out = run("aof", "--turns", "600", "--rounds", "1")
    applied = re.search(r"^AOF since its last rewrite: [\d,]+ bytes of arguments for ([\d,]+) applied ops", out, re.M)
    assert applied is not None and int(applied[1].replace(",", "")) > 0, out
    # every applied op wrote its stored record and its ledger entry
    assert re.search(r"^  HSET rec: \d+% \(\d+ writes", out, re.M), out
    assert re.search(r"^  HSET ops: \d+% \(\d+ writes", out, re.M), out
    # records are stored in their compact form, which spends nothing on field names: no JSON to take apart
    assert "of the stored records' bytes" not in out, out
    assert re.search(r"^  a stored record written: median \d+ bytes", out, re.M), out
    rewrites = re.findall(r"^rewrite with rdbcompression (yes|no): \d+ ms, base ([\d.]+) MB$", out, re.M)
    assert [compression for compression, _ in rewrites] == ["yes", "no"], out
    assert float(rewrites[1][1]) > float(rewrites[0][1])  # the uncompressed base is the larger
