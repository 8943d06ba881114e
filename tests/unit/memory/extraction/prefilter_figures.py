"""Figures for the rule extractor's prefilter (a measurement, not a test): CPU time and regex calls
per turn on the turn mix of `slotstream bench pipeline` ("rule extraction alone") and on an 80/20
mix (four turns in five ordinary chat from the corpora, one a benchmark turn), and the share of
turns the prefilter lets through to be split into sentences.

    .venv/bin/python tests/unit/memory/extraction/prefilter_figures.py [--turns 5000] [--reference DIR]

`--reference DIR`: DIR holds another version of the `memory` package (DIR/memory), measured the same
way beside this one, e.g. the version before the prefilter:
`mkdir -p /tmp/ref && git archive HEAD memory | tar -x -C /tmp/ref`.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib.util
import json
import pstats
import random
import statistics
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

from slotstream.bench.pipeline import _turn as bench_turn
from slotstream.memory.extraction import RuleExtractor
from slotstream.memory.extraction.extractor import turn_may_hold

ROOT = Path(__file__).resolve().parents[4]
CORPORA_DIR = ROOT / "slotstream" / "eval" / "corpora"
CHAT = [CORPORA_DIR / name / "ordinary_chat.jsonl" for name in ("phrasings", "everyday")]
CHAT += [CORPORA_DIR / name / "ordinary_chat.jsonl" for name in ("phrasings_fresh", "everyday_fresh")]
SEARCHES = ("search", "match", "fullmatch", "finditer", "findall")
OTHER_CALLS = ("sub", "subn", "split")


def bench_mix(count: int, seed: int = 5) -> list[dict[str, Any]]:
    rng = random.Random(seed)  # seed 5: the turns of `extraction_alone`
    return [
        {**fields, "at": at, "turn_id": f"x{number}"}
        for number, (at, fields) in enumerate(bench_turn(rng, number, 1000) for number in range(count))
    ]


def chat_mix(count: int) -> list[dict[str, Any]]:
    rng = random.Random(7)
    chat = [json.loads(line)["text"] for path in CHAT for line in path.read_text(encoding="utf-8").splitlines() if line]
    bench = bench_mix(count, seed=11)
    turns = []
    for number in range(count):
        if rng.random() < 0.8:
            fields = {"tenant": "bench", "user": "u1", "session": "s1", "role": "user", "text": rng.choice(chat)}
            turns.append({**fields, "at": "2026-03-02T08:00:00Z", "turn_id": f"c{number}"})
        else:
            turns.append(bench[number])
    return turns


def reference_package(directory: Path) -> ModuleType:
    """The `memory` package under `directory`, imported as `reference_memory`."""
    init = directory / "memory" / "__init__.py"
    spec = importlib.util.spec_from_file_location(
        "reference_memory", init, submodule_search_locations=[str(init.parent)]
    )
    assert spec is not None and spec.loader is not None
    package = importlib.util.module_from_spec(spec)
    sys.modules["reference_memory"] = package
    spec.loader.exec_module(package)
    return importlib.import_module("reference_memory.extraction")


def cpu_per_turn(extractor: Any, turns: list[Any]) -> list[float]:
    for turn in turns[:200]:
        extractor.extract(turn)  # warm: regexes compiled by the `re` cache on first use
    runs = []
    for _ in range(3):
        start = time.process_time()
        for turn in turns:
            extractor.extract(turn)
        runs.append((time.process_time() - start) / len(turns) * 1e6)
    return runs


def regex_calls_per_turn(extractor: Any, turns: list[Any]) -> tuple[float, float]:
    profile = cProfile.Profile()
    profile.enable()
    for turn in turns:
        extractor.extract(turn)
    profile.disable()
    searches = other = 0
    for (file, _, name), (_, calls, *_rest) in pstats.Stats(profile).stats.items():  # type: ignore[attr-defined]
        if file == "~" and "re.Pattern" in name:
            method = name.split("'")[1]
            searches += calls if method in SEARCHES else 0
            other += calls if method in OTHER_CALLS else 0
    return searches / len(turns), (searches + other) / len(turns)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=5000)
    parser.add_argument("--reference", type=Path)
    args = parser.parse_args()
    versions: list[tuple[str, Any, Any]] = []
    if args.reference:
        reference = reference_package(args.reference)
        versions.append(("reference", reference.RuleExtractor(), reference.Turn))
    from slotstream.memory.extraction import Turn

    versions.append(("this version", RuleExtractor(), Turn))
    for mix, fields in (("bench mix", bench_mix(args.turns)), ("80/20 mix", chat_mix(args.turns))):
        print(f"{mix}: {len(fields)} turns")
        for name, extractor, turn_type in versions:
            turns = [turn_type.model_validate(turn) for turn in fields]
            runs = cpu_per_turn(extractor, turns)
            searches, calls = regex_calls_per_turn(extractor, turns[:2000])
            print(
                f"  {name}: {statistics.median(runs):.0f} us CPU per turn (median of 3: "
                f"{', '.join(f'{run:.0f}' for run in runs)}); {searches:.1f} regex searches and "
                f"{calls:.1f} regex calls in all per turn"
            )
        passed = sum(1 for turn in fields if turn_may_hold(turn["text"]))
        print(f"  turns the prefilter passes: {passed}/{len(fields)} = {passed / len(fields):.1%}")
    chat = [json.loads(line)["text"] for path in CHAT for line in path.read_text(encoding="utf-8").splitlines() if line]
    dropped = sum(1 for text in chat if not turn_may_hold(text))
    print(f"the corpora's ordinary chat lines it drops whole: {dropped}/{len(chat)} = {dropped / len(chat):.1%}")


if __name__ == "__main__":
    main()
