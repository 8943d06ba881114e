"""The CPU each group of processes used over a few seconds, in cores (1.0 = one core busy).

    python scripts/process_cpu.py SECONDS NAME=PATTERN [NAME=PATTERN ...]

A PATTERN is matched against each process's command line, as `pgrep -f` does. Used beside a
running bench to see who shares the machine's two cores (docs/BENCHMARKS.md, "Worker"):

    python scripts/process_cpu.py 8 "worker=slotstream.cli worker" "bench=slotstream bench" \\
        "kafka=kafka.Kafka" "redis=valkey-server|redis-server"
"""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path


def command_line(pid: int) -> str:
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def cpu_ticks(pid: int) -> int:
    """User plus system time, in clock ticks (0 once the process is gone)."""
    try:
        fields = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return int(fields[11]) + int(fields[12])


def main(seconds: float, groups: dict[str, re.Pattern[str]]) -> None:
    me = os.getpid()
    pids = [int(entry) for entry in os.listdir("/proc") if entry.isdigit() and int(entry) != me]
    members = {name: [pid for pid in pids if pattern.search(command_line(pid))] for name, pattern in groups.items()}
    before = {name: sum(cpu_ticks(pid) for pid in group) for name, group in members.items()}
    time.sleep(seconds)
    ticks_per_second = os.sysconf("SC_CLK_TCK")
    for name, group in members.items():
        used = (sum(cpu_ticks(pid) for pid in group) - before[name]) / ticks_per_second / seconds
        print(f"{name}: {used:.2f} of a core ({len(group)} processes)")


if __name__ == "__main__":
    if len(sys.argv) < 3 or not all("=" in arg for arg in sys.argv[2:]):
        sys.exit("usage: process_cpu.py SECONDS NAME=PATTERN [NAME=PATTERN ...]")
    main(float(sys.argv[1]), {name: re.compile(pattern) for name, pattern in (a.split("=", 1) for a in sys.argv[2:])})
