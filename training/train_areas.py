"""Train the area model (memory/semantics/area_model.py) on the texts in this folder and write the
shipped weights, `memory/data/area_model.json`, and the texts' neighbours tables,
`memory/data/area_neighbours_{en,zh}.npy`:

    python -P training/train_areas.py            # write the weights
    python -P training/train_areas.py --check    # exit 1 when the shipped weights are stale

Run it again whenever the texts, the area word lists (memory/data/topics.json) or the model's
settings change.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from slotstream.memory.semantics.area_model import NEIGHBOURS_FILES, Example, digest, neighbours_table, to_json, train

HERE = Path(__file__).resolve().parent / "areas"
SHIPPED = Path(__file__).resolve().parents[1] / "memory" / "data" / "area_model.json"


def examples() -> list[Example]:
    out = []
    for path in sorted(HERE.glob("texts_*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                out.append(Example(row["text"], tuple(row["areas"])))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check that the shipped weights are current")
    args = parser.parse_args(argv)
    data = examples()
    wanted = digest(data)
    if args.check:
        shipped = json.loads(SHIPPED.read_text(encoding="utf-8"))["trained_on"]["digest"]
        print(f"shipped {shipped}, texts and settings {wanted}: {'current' if shipped == wanted else 'STALE'}")
        return 0 if shipped == wanted else 1
    SHIPPED.write_text(to_json(train(data), wanted, len(data)), encoding="utf-8")
    for language, name in NEIGHBOURS_FILES.items():
        np.save(SHIPPED.with_name(name), neighbours_table(data, language), allow_pickle=False)
    print(f"{len(data)} texts -> {SHIPPED} and the neighbours tables beside it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
