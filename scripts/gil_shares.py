"""The share of a py-spy profile's samples whose stack holds each named function.

    py-spy record --gil -r 200 -d 12 -f raw -o worker.raw --pid $(pgrep -f "slotstream.cli worker")
    python scripts/gil_shares.py worker.raw ExtractionService.handle BatchRunner.apply_produced ...

With `--gil` a sample is the thread that held the GIL, so a share is that function's part of the
worker's GIL time, whatever it called (a function inside another counts in both).
"""

from __future__ import annotations

import sys
from pathlib import Path


def shares(raw: str, functions: list[str]) -> dict[str, float]:
    total = 0
    held = dict.fromkeys(functions, 0)
    for line in raw.splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack:
            continue
        samples = int(count)
        total += samples
        names = {frame.split(" (")[0] for frame in stack.split(";")}
        for function in functions:
            if function in names:
                held[function] += samples
    return {function: held[function] / max(1, total) for function in functions}


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: gil_shares.py PROFILE.raw FUNCTION [FUNCTION ...]")
    for function, share in shares(Path(sys.argv[1]).read_text(), sys.argv[2:]).items():
        print(f"{share * 100:5.1f}%  {function}")
