"""The measuring scripts docs/BENCHMARKS.md quotes run against a real Redis and print what the docs
say they print (they are not part of the package, so nothing else runs them)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

pytestmark = pytest.mark.integration

SCRIPTS = Path(__file__).resolve().parents[3] / "scripts"


@pytest.fixture
def script_keys_dropped(redis_client: redis.Redis) -> Iterator[None]:
    """The scripts write to namespaces of their own: dropped afterwards."""
    yield
    patterns = (
        "instructions*",
        "workerinstructions*",
        "contextinstructions*",
        "calls*",
        "split*",
        "gcpauses*",
        "handlercosts*",
        "slotstream:ukeys:{handlercosts*",
    )
    for pattern in patterns:
        for key in redis_client.scan_iter(match=pattern, count=1000):
            redis_client.delete(key)


def run(*args: str) -> str:
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_apply_lua_calls_counts_the_scripts_server_calls(
    redis_url: str, redis_client: redis.Redis, script_keys_dropped: None
) -> None:
    out = run(str(SCRIPTS / "apply_lua_calls.py"), redis_url, "600")
    total = re.search(r"([\d.]+) server calls per op in apply\.lua", out)
    assert total is not None, out
    per_command = {m[1]: float(m[2]) for m in re.finditer(r"^  (\w+)\s+([\d.]+)$", out, re.M)}
    # every op writes its record and its ledger entry: at least one HSET each
    assert per_command["HSET"] >= 1.0
    assert float(total[1]) == pytest.approx(sum(per_command.values()), abs=0.1)


def test_apply_lua_calls_by_key_names_each_command_with_the_kind_of_key_it_writes(
    redis_url: str, redis_client: redis.Redis, script_keys_dropped: None
) -> None:
    by_command = run(str(SCRIPTS / "apply_lua_calls.py"), redis_url, "600")
    out = run(str(SCRIPTS / "apply_lua_calls.py"), redis_url, "600", "--by-key")
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


def test_apply_instructions_applies_only_when_asked(
    redis_url: str, redis_client: redis.Redis, script_keys_dropped: None
) -> None:
    run(str(SCRIPTS / "apply_instructions.py"), redis_url, "build")
    assert not list(redis_client.scan_iter(match="instructions*:meta", count=1000))
    run(str(SCRIPTS / "apply_instructions.py"), redis_url, "apply")
    assert len(list(redis_client.scan_iter(match="instructions*:meta", count=1000))) == 200  # one per user


def test_context_split_prints_each_part(redis_url: str, redis_client: redis.Redis, script_keys_dropped: None) -> None:
    out = run(str(SCRIPTS / "context_split.py"), redis_url, "10")
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
    assert re.search(rf"interleaved \(medians of 2,000\): {interleaved}", out), out
    for path in ("by the script", "in a transaction"):
        runs = r"\d+ / \d+ / \d+ us"
        assert re.search(rf"a lookup {path}, three runs of 2,000: client CPU {runs}, wall {runs}", out), out


def test_context_instructions_reads_as_each_mode_says(
    redis_url: str, redis_client: redis.Redis, script_keys_dropped: None
) -> None:
    # a small user's first lookup is the script's, the others are whole reads in a transaction;
    # `script` sends every one to the script (and each mode makes one more lookup to print its figures)
    made = {
        "build": "20 lookups, 0 answers from one reply; 1 script calls",
        "read": "1020 lookups, 0 answers from one reply; 1 script calls",
        "script": "1020 lookups, 0 answers from one reply; 1021 script calls",
        "answer": "20 lookups, 1000 answers from one reply; 2 script calls",
    }
    for mode, work in made.items():
        out = run(str(SCRIPTS / "context_instructions.py"), redis_url, "10", mode)
        assert f"10 active records, 10 considered; {work}" in out, out


def test_batch_timeline_summarizes_stages_and_collections(tmp_path: Path) -> None:
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
    out = run(str(SCRIPTS / "batch_timeline.py"), str(path)).splitlines()
    assert out[0].startswith("extraction: 2 batches, 5 records a batch (median); oldest_age_ms p50 "), out
    assert out[1:] == [
        "sweep: 1 batches, 0 records a batch (median); swept_ms p50 8.2 / p99 8.2",
        "gc generation 0: 2 collections, 4.0 ms in all, the longest 2.5 ms",
        "gc generation 2: 1 collections, 40.0 ms in all, the longest 40.0 ms",
    ]


def test_worker_instructions_runs_each_handler_only_when_asked(
    redis_url: str, redis_client: redis.Redis, script_keys_dropped: None
) -> None:
    run(str(SCRIPTS / "worker_instructions.py"), redis_url, "extract", "chat80")
    assert not list(redis_client.scan_iter(match="workerinstructions*", count=1000))  # extraction alone writes nothing
    # every op the extractor yields is applied (the script asserts no dead letter)
    run(str(SCRIPTS / "worker_instructions.py"), redis_url, "apply", "chat80")
    assert list(redis_client.scan_iter(match="workerinstructions*:meta", count=1000))


def test_live_handler_costs_runs_the_workers_own_handlers_on_sealed_turns(
    redis_url: str, redis_client: redis.Redis, script_keys_dropped: None
) -> None:
    out = run(str(SCRIPTS / "live_handler_costs.py"), redis_url, "50", "chat80", "300")
    assert re.fullmatch(
        r"batches of 50 turns of the chat80 mix over 1000 users, 200 turns timed: extraction \d+ µs of CPU a turn, "
        r"fused apply \d+ µs an op \(\d+ ops\); \d+ µs a turn in all\n",
        out,
    ), out
    # the ops were applied (the script asserts each one was, with no dead letter) and their users'
    # keys were made and read back: the sealed path, not plaintext
    assert list(redis_client.scan_iter(match="handlercosts*:meta", count=1000))
    assert list(redis_client.scan_iter(match="slotstream:ukeys:{handlercosts*", count=1000))


def test_apply_server_instructions_applies_the_ops_on_a_server_of_its_own() -> None:
    # without valgrind nothing is counted; the run still starts, fills and stops its own servers
    out = run(str(SCRIPTS / "apply_server_instructions.py"), "100", "--wrapper", "")
    assert "applied 100 and 200 ops over 1000 users on a fresh server each" in out
    assert "server instructions: not counted (no valgrind)" in out


def test_apply_server_instructions_replays_the_scripts_writes_as_transactions() -> None:
    """The recorded writes of every apply.lua call, sent as WATCH + MULTI/EXEC to a fresh server,
    leave exactly the state the script left: the count of the replay is a count of the same work."""
    out = run(str(SCRIPTS / "apply_server_instructions.py"), "100", "--wrapper", "", "--replay-writes")
    assert "apply.lua's writes per applied op: " in out
    assert out.count("the replayed writes left the state the script left: yes") == 2, out
    assert "replayed the writes of 100 and 200 ops over 1000 users on a fresh server each" in out
    assert "packing those writes on the client (hiredis.pack_command):" in out


def test_gc_pauses_prints_each_generations_collections(
    redis_url: str, redis_client: redis.Redis, script_keys_dropped: None
) -> None:
    out = run(str(SCRIPTS / "gc_pauses.py"), redis_url, "1000")
    assert re.search(r"^1000 ops over 1000 users: process CPU \d+\.\d\d s$", out, re.M), out
    for generation in range(3):
        assert re.search(rf"^generation {generation}: (no collection|\d+ collections, median )", out, re.M), out
    assert redis_client.keys("gcpauses*")  # it applied them


def test_aof_costs_counts_a_records_field_names_and_evidence_and_leaves_out_what_is_not_a_json_object() -> None:
    sys.path.insert(0, str(SCRIPTS))
    try:
        import aof_costs
    finally:  # the script puts its own folder on the path too (for its sibling): both taken off
        sys.path[:] = [entry for entry in sys.path if entry != str(SCRIPTS)]
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


def test_aof_costs_reads_the_files_growth_and_times_rewrites_both_ways_on_a_server_of_its_own() -> None:
    out = run(str(SCRIPTS / "aof_costs.py"), "600", "1")
    applied = re.search(r"^AOF since its last rewrite: [\d,]+ bytes of arguments for ([\d,]+) applied ops", out, re.M)
    assert applied is not None and int(applied[1].replace(",", "")) > 0, out
    # every applied op wrote its stored record and its ledger entry
    assert re.search(r"^  HSET rec: \d+% \(\d+ writes", out, re.M), out
    assert re.search(r"^  HSET ops: \d+% \(\d+ writes", out, re.M), out
    parts = re.search(r"^  of the stored records' bytes: field names (\d+)%, evidence lists (\d+)%", out, re.M)
    assert parts is not None and 0 < int(parts[1]) < 100 and 0 < int(parts[2]) < 100, out
    rewrites = re.findall(r"^rewrite with rdbcompression (yes|no): \d+ ms, base ([\d.]+) MB$", out, re.M)
    assert [compression for compression, _ in rewrites] == ["yes", "no"], out
    assert float(rewrites[1][1]) > float(rewrites[0][1])  # the uncompressed base is the larger
