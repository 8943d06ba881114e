"""The rule extractor alone on a mix of turns, in process: for counting the instructions a turn
costs it (wall times on this machine move by tens of percent between runs; a count does not).

    for turns in 0 1500; do
      PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=/dev/null \\
        .venv/bin/python scripts/extractor_instructions.py MIX $turns 2>&1 | grep Collected
    done

(second count - first count) / 1500 is a turn's cost. Both runs build the extractor (its prefilter
index) and warm it up on all 1,500 turns of the mix first, as a running worker is: the prefilter
builds the rows of its automaton as texts first reach them (300 turns until stop 29, so most
measured turns also paid for rows a worker has built long before). MIX:

- `bench`: the turns of `slotstream bench pipeline` (most state something);
- `chat80`: that bench's 80/20 mix (its 23 chit-chat phrases, 20% its memorable turns);
- `corpus`: four turns in five the corpora's ordinary chat, one a bench turn (the 80/20 mix of
  `tests/unit/memory/extraction/prefilter_figures.py`).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

from slotstream.bench_pipeline import _turn
from slotstream.memory.extraction import RuleExtractor, Turn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "unit" / "memory" / "extraction"))

import prefilter_figures  # noqa: E402 - the test folder's figures script holds the corpus mixes

MIXES = ("bench", "chat80", "corpus")
TURNS = 1500


def mix_turns(mix: str) -> list[Turn]:
    raw: list[dict[str, Any]]
    if mix == "corpus":
        raw = prefilter_figures.chat_mix(TURNS)
    elif mix == "bench":
        raw = prefilter_figures.bench_mix(TURNS)
    else:
        rng = random.Random(5)  # the pipeline bench's seed
        raw = [
            {**fields, "at": at, "turn_id": f"x{number}"}
            for number, (at, fields) in enumerate(_turn(rng, number, 50, "chat80") for number in range(TURNS))
        ]
    return [Turn.model_validate(fields) for fields in raw]


def main(mix: str, count: int) -> None:
    turns = mix_turns(mix)
    extractor = RuleExtractor()
    for turn in turns:
        extractor.extract(turn)
    for turn in turns[:count]:
        extractor.extract(turn)


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in MIXES or not sys.argv[2].isdigit() or int(sys.argv[2]) > TURNS:
        sys.exit(f"usage: extractor_instructions.py {{{'|'.join(MIXES)}}} TURNS (at most {TURNS})")
    main(sys.argv[1], int(sys.argv[2]))
