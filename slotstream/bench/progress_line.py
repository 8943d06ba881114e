"""A bench's progress on stderr: done / total, the rate so far and the time left, in plain text.

On a terminal one line is rewritten in place (at most every half second); into a file or a pipe
a line is written every ten seconds instead, so a log keeps a readable trace.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

TERMINAL_EVERY = 0.5  # seconds between redraws on a terminal
LOG_EVERY = 10.0  # seconds between lines in a log


def clock(seconds: float) -> str:
    s = max(0, round(seconds))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


class ProgressLine:
    def __init__(self, label: str, total: int, unit: str = "records", stream: TextIO | None = None) -> None:
        self.label, self.total, self.unit = label, total, unit
        self.stream = stream if stream is not None else sys.stderr
        self.terminal = self.stream.isatty()
        self.every = TERMINAL_EVERY if self.terminal else LOG_EVERY
        self.done = 0
        self.started = self.shown = time.perf_counter()

    def text(self, now: float) -> str:
        elapsed = max(1e-9, now - self.started)
        rate = self.done / elapsed
        left = (self.total - self.done) / rate if rate > 0 else 0.0
        share = 100 * self.done / self.total if self.total else 100.0
        return (
            f"{self.label}: {self.done:,} / {self.total:,} {self.unit} ({share:5.1f}%)  "
            f"{rate:,.0f}/s  elapsed {clock(elapsed)}  ETA {clock(left)}"
        )

    def advance(self, n: int) -> None:
        self.done += n
        now = time.perf_counter()
        if now - self.shown >= self.every:
            self.shown = now
            self._write(self.text(now))

    def finish(self) -> None:
        self._write(self.text(time.perf_counter()))
        if self.terminal:
            self.stream.write("\n")
            self.stream.flush()

    def _write(self, line: str) -> None:
        self.stream.write(f"\r{line}\x1b[K" if self.terminal else f"{line}\n")
        self.stream.flush()
