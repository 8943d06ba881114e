"""Train the lasting model (memory/semantics/lasting_model.py) and write the shipped weights,
`memory/data/lasting_model.json`:

    python -P training/train_lasting.py            # write the weights
    python -P training/train_lasting.py --check    # exit 1 when the shipped weights are stale

The texts, all written for training apart from every evaluation corpus:
- `lasting/`: chat turns (requests, task instructions, pasted material, role-play, questions,
  small talk, other people's preferences, states of the moment) and lasting ones (standing
  instructions, facts told inside a request, plain statements), in English and Chinese;
- `areas/`: the area model's texts, statements lasting and requests chat;
- `pairs/`: the relation model's statements (lasting) and their requests (chat).

Run it again whenever the texts or the model's settings change.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from slotstream.memory.semantics.lasting_model import Example, digest, to_json, train

HERE = Path(__file__).resolve().parent
SHIPPED = HERE.parent / "memory" / "data" / "lasting_model.json"


def _lines(path: Path) -> list[dict[str, str]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def examples() -> list[Example]:
    out = []
    for path in sorted((HERE / "lasting").glob("*.jsonl")):
        lasting = path.name.startswith("lasting_")
        out += [Example(row["text"], lasting) for row in _lines(path)]
    for path in sorted((HERE / "areas").glob("texts_*.jsonl")):
        out += [Example(row["text"], row["kind"] == "statement") for row in _lines(path)]
    for path in sorted((HERE / "pairs").glob("pairs_*.jsonl")):
        for row in _lines(path):
            out += [Example(row["statement"], True), Example(row["related"], False), Example(row["unrelated"], False)]
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
    trained = train(data)
    SHIPPED.write_text(to_json(trained, wanted, len(data)), encoding="utf-8")
    print(f"{len(data)} texts, {len(trained.weights)} weights, thresholds {trained.thresholds} -> {SHIPPED}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
