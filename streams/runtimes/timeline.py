"""Where a worker's batches spend their time: one JSON line per batch, appended to a file
(`SLOTSTREAM_BATCH_TIMELINE`), for finding what a turn waits for between its append to the turns
topic and its ops reaching Redis. `slotstream bench timeline` summarizes a file.

A processor's batch line: `processor`, `records`, `oldest_age_ms` (how long the batch's oldest
record had been on its topic when the batch started; the input topics stamp the broker's append
time), `start_ms` (the wall clock at its start, epoch milliseconds: batches and fused applies lined
up in time), and the milliseconds from the batch's start to the end of each stage: `waited` (for the
last fused apply, see `BatchFlow._handle`), `processed`, `delivered`, `recorded`. A fused apply's
line: `processor` "fused_apply", `start_ms`, `records` (the ops applied), `applied_ms` (its time on
reconciliation's thread) and `visible_age_ms`: the age of the oldest turn of its batch when its ops
were in Redis, which is that turn's freshness. An expiry sweep's line: `processor` "sweep",
`start_ms`, `swept_ms` (its time on reconciliation's thread, where a fused apply waits for it) and
`records` (the ops it found due). A garbage collection's line: `processor` "gc", `generation`,
`pause_ms`, `collected`.
"""

from __future__ import annotations

import gc
import logging
import time
from collections.abc import Sequence
from typing import IO, Any

import orjson

from ..errors import TimelineUnwritable
from ..messages import RawMessage

log = logging.getLogger("slotstream.worker.wiring")


def oldest_ms(batch: Sequence[RawMessage]) -> int | None:
    """The earliest append time of a batch's records (None when the broker gave none)."""
    stamps = [msg.timestamp_ms for msg in batch if msg.timestamp_ms is not None]
    return min(stamps) if stamps else None


def age_ms(since_ms: int | None) -> float | None:
    return None if since_ms is None else round(time.time() * 1000 - since_ms, 1)


class Timeline:
    """Appends batch lines to `path`, and a line per garbage collection of the process (`processor`
    "gc", `generation`, `pause_ms`, `collected`): a collection stops every thread, so its pause
    is in whichever batches were running. Batch lines are written from the worker's event loop, a
    collection's from the thread it ran on; each line is one unbuffered append. A failed write (a
    full disk) stops the timeline, never a batch: it is a diagnosis, not the worker's work."""

    def __init__(self, path: str) -> None:
        try:
            self._file: IO[bytes] | None = open(path, "ab", buffering=0)  # noqa: SIM115 - closed by close()
        except OSError as err:
            raise TimelineUnwritable(
                f"SLOTSTREAM_BATCH_TIMELINE: cannot append to {path!r}: {err.strerror or err}"
            ) from None
        self._collection_started = 0.0
        gc.callbacks.append(self._on_collection)

    def _on_collection(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._collection_started = time.perf_counter()
            return
        pause_ms = round((time.perf_counter() - self._collection_started) * 1000, 2)
        line = {"processor": "gc", "generation": info["generation"], "pause_ms": pause_ms}
        self.write(line | {"collected": info["collected"]})

    def write(self, line: dict[str, Any]) -> None:
        if self._file is None:
            return
        try:
            self._file.write(orjson.dumps(line) + b"\n")
        except OSError as err:
            log.warning("batch timeline: writing failed (%s); no more lines", err)
            self.close()

    def close(self) -> None:
        if self._on_collection in gc.callbacks:
            gc.callbacks.remove(self._on_collection)
        if self._file is not None:
            self._file.close()
            self._file = None


class BatchClock:
    """The stage times of one batch, from its start; its line goes to `timeline` when it is done."""

    def __init__(self, timeline: Timeline, processor: str, batch: Sequence[RawMessage]) -> None:
        self.timeline = timeline
        self.started = time.perf_counter()
        self.oldest = oldest_ms(batch)
        self.line: dict[str, Any] = {
            "processor": processor,
            "records": len(batch),
            "oldest_age_ms": age_ms(self.oldest),
            "start_ms": round(time.time() * 1000, 1),
        }

    def mark(self, stage: str) -> None:
        self.line[stage] = round((time.perf_counter() - self.started) * 1000, 2)

    def done(self) -> None:
        self.timeline.write(self.line)


class _Unclocked(BatchClock):
    """A batch's clock with the timeline off: marks nothing, reads no append times."""

    def __init__(self) -> None:
        self.oldest = None

    def mark(self, stage: str) -> None:
        return None

    def done(self) -> None:
        return None


UNCLOCKED: BatchClock = _Unclocked()


def clock(timeline: Timeline | None, processor: str, batch: Sequence[RawMessage]) -> BatchClock:
    return UNCLOCKED if timeline is None else BatchClock(timeline, processor, batch)
