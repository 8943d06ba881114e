"""The pipeline bench's reading of the embedded broker's CPU (the benches themselves are commands,
run by hand: docs/results.md)."""

from __future__ import annotations

import subprocess
import sys
import time
from types import SimpleNamespace
from typing import Any

import pytest

from slotstream.bench.pipeline import _broker_cpu, _print_broker_cpu, _print_rewrite_split, met_a_rewrite

BUSY = "import time\nend = time.process_time() + 0.3\nwhile time.process_time() < end: pass\ntime.sleep(30)"


def _stack(proc: Any) -> Any:
    return SimpleNamespace(broker_pid=proc.pid if proc is not None else None)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_the_broker_cpu_is_read_per_process_with_its_compiler_threads_apart() -> None:
    proc = subprocess.Popen([sys.executable, "-c", BUSY])
    try:
        time.sleep(0.6)  # past its 0.3 s of CPU
        read = _broker_cpu(_stack(proc))  # type: ignore[arg-type]
        assert read is not None
        used, compiling = read
        assert 0.25 <= used <= 1.0, read
        assert compiling == 0.0  # a Python process has no JIT compiler threads
    finally:
        proc.kill()
        proc.wait()
    assert _broker_cpu(_stack(proc)) is None  # gone: nothing to read
    assert _broker_cpu(_stack(None)) is None  # no embedded broker (an external one)


def test_the_broker_cpu_is_printed_as_a_share_of_a_core(capsys: pytest.CaptureFixture[str]) -> None:
    _print_broker_cpu((10.0, 4.0), (11.0, 4.5), 2.0, "while probing")
    assert capsys.readouterr().out.strip() == (
        "the embedded broker used 0.50 of a core while probing, its JIT compilers 0.25"
    )
    _print_broker_cpu(None, (11.0, 4.5), 2.0, "while probing")
    assert capsys.readouterr().out == ""


def test_a_probe_met_a_rewrite_if_one_ran_at_either_mark_or_began_and_ended_between() -> None:
    assert not met_a_rewrite((3, False), (3, False))
    assert met_a_rewrite((3, True), (3, True))
    assert met_a_rewrite((3, False), (3, True))  # began while the probe waited
    assert met_a_rewrite((3, True), (4, False))  # ended while it waited
    assert met_a_rewrite((3, False), (4, False))  # began and ended in between
    assert not met_a_rewrite(None, None)  # no AOF, or not the bench's own Redis


def test_the_probes_that_met_a_rewrite_are_printed_apart(capsys: pytest.CaptureFixture[str]) -> None:
    latencies = [float(ms) for ms in range(1, 100)] + [200.0, 150.0, 120.0]
    met = [False] * 99 + [True, True, True]
    _print_rewrite_split(latencies, met)
    line = capsys.readouterr().out
    assert "3 of the 102 probes met an AOF rewrite: p50 150.0 ms, max 200.0 ms" in line
    assert "the other 99: p99 98.0 ms, max 99.0 ms" in line
    _print_rewrite_split([40.0, 50.0], [False, False])  # no rewrite met: nothing to set apart
    assert capsys.readouterr().out == ""
