"""`slotstream bench memory` runs end to end on a small count: RAM per record before and after a
correction each, and the bytes by key kind, all of the namespace's keys counted."""

from __future__ import annotations

import re

import pytest

from slotstream.bench.memory import run_memory_bench
from slotstream.config.settings import Settings

pytestmark = pytest.mark.integration


def test_the_memory_bench_prints_bytes_per_record_and_by_key_kind(
    redis_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # enough records that what they hold outweighs the server's own allocations between the steps
    # (scripts, client buffers: tens of KB), which used_memory counts too
    assert run_memory_bench(Settings(redis_url=redis_url), users=50, records=20) == 0
    out = capsys.readouterr().out
    assert "50 users x 20 records = 1,000 records (1,000 applied)" in out, out
    per_record = int(re.search(r"per record: ([\d,]+) B", out)[1].replace(",", ""))  # type: ignore[index]
    superseded = int(re.search(r"one superseded version: ([\d,]+) B", out)[1].replace(",", ""))  # type: ignore[index]
    assert 0 < per_record < superseded, out
    kinds = dict(re.findall(r"^(\w+)\s+[\d,]+\s+[\d.]+\s+([\d,]+)$", out, re.M))
    # every record is stored and has a lineage; the corrections left suppressions; scopes this small
    # keep no read index (a lookup reads them whole)
    assert {"rec", "act", "lin", "sup", "ops", "all"} <= set(kinds), out
    assert not {"ix", "ixt", "hist"} & set(kinds), out
