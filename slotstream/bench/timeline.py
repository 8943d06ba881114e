"""`slotstream bench timeline FILE`: a summary of a worker's batch timeline (the file
SLOTSTREAM_BATCH_TIMELINE names; streams/runtimes/timeline.py writes it).

Per processor: the number of batches, the records a batch (median), and the p50 / p99 of each
stage's end, in milliseconds from the batch's start; for fused applies, their time on
reconciliation's thread and the age of the batch's oldest turn once its ops were in Redis (a
turn's freshness, the worker's part of it); for expiry sweeps, their time on reconciliation's
thread; and per generation, the garbage collections: how many, their pauses in all and the longest.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from pathlib import Path
from typing import Any

import orjson

STAGES = (
    "oldest_age_ms",
    "waited",
    "processed",
    "delivered",
    "recorded",
    "applied_ms",
    "visible_age_ms",
    "swept_ms",
)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def summarize(lines: list[dict[str, Any]]) -> list[str]:
    by_processor: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for line in lines:
        by_processor[line["processor"]].append(line)
    out = []
    collections = by_processor.pop("gc", [])
    for processor, batches in sorted(by_processor.items()):
        records = statistics.median(b["records"] for b in batches)
        parts = [f"{processor}: {len(batches)} batches, {records:.0f} records a batch (median)"]
        for stage in STAGES:
            values = [b[stage] for b in batches if b.get(stage) is not None]
            if values:
                parts.append(f"{stage} p50 {percentile(values, 0.5):.1f} / p99 {percentile(values, 0.99):.1f}")
        out.append("; ".join(parts))
    for generation in sorted({c["generation"] for c in collections}):
        pauses = [c["pause_ms"] for c in collections if c["generation"] == generation]
        out.append(
            f"gc generation {generation}: {len(pauses)} collections, {sum(pauses):.1f} ms in all, "
            f"the longest {max(pauses):.1f} ms"
        )
    return out


def print_timeline(path: Path) -> int:
    lines = [orjson.loads(raw) for raw in path.read_bytes().splitlines() if raw.strip()]
    for row in summarize(lines):
        print(row)
    return 0
