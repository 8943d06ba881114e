"""Train the relation model (memory/semantics/relation_model.py) on the statement-and-request pairs
in `pairs/` and write the shipped weights, `memory/data/relation_model.json`:

    python -P training/train_relation.py            # write the weights
    python -P training/train_relation.py --check    # exit 1 when the shipped weights are stale

Each pair is a statement a user made, a request where it matters and one where it does not,
written for training apart from every evaluation corpus. Run it again whenever the pairs, the area
model, the background requests or the model's settings change.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from slotstream.memory.semantics import relevance
from slotstream.memory.semantics.relation_model import Pair, Side, digest, to_json, train

HERE = Path(__file__).resolve().parent / "pairs"
SHIPPED = Path(__file__).resolve().parents[1] / "memory" / "data" / "relation_model.json"


def rows() -> list[dict[str, str]]:
    out = []
    for path in sorted(HERE.glob("pairs_*.jsonl")):
        out += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return out


def texts(data: list[dict[str, str]]) -> list[str]:
    return [f"{r['lang']}\t{r['statement']}\t{r['related']}\t{r['unrelated']}" for r in data]


def pairs(data: list[dict[str, str]]) -> list[Pair]:
    out = []
    for r in data:
        # the record as a read-model row holds it (vector and areas quantized), before its bearing
        record = relevance.unpack(*relevance.pack(relevance.placed_record(r["statement"])))
        sides = []
        for request in (relevance.request_meaning(r["related"]), relevance.request_meaning(r["unrelated"])):
            sides.append(Side(request.areas.astype(np.float64), relevance.similarity(record, request)))
        out.append(Pair(r["lang"], record.areas.astype(np.float64), sides[0], sides[1]))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check that the shipped weights are current")
    args = parser.parse_args(argv)
    data = rows()
    wanted = digest(texts(data))
    if args.check:
        shipped = json.loads(SHIPPED.read_text(encoding="utf-8"))["trained_on"]["digest"]
        print(f"shipped {shipped}, pairs and settings {wanted}: {'current' if shipped == wanted else 'STALE'}")
        return 0 if shipped == wanted else 1
    SHIPPED.write_text(to_json(train(pairs(data)), wanted, len(data)), encoding="utf-8")
    print(f"{len(data)} pairs -> {SHIPPED}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
