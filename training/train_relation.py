"""Train the relation model (memory/semantics/relation_model.py) on the statement-and-request pairs
in `pairs/` and write the shipped weights, `memory/data/relation_model.json`, and the statements'
neighbours tables, `memory/data/bearing_neighbours_{en,zh}.npy` (each statement's vector and the
areas of the request it matters for):

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

from slotstream.memory.semantics import neighbours, relevance
from slotstream.memory.semantics.relation_model import (
    BORROWED_FILES,
    LANGUAGES,
    Pair,
    Side,
    borrowing,
    digest,
    to_json,
    train,
)

HERE = Path(__file__).resolve().parent / "pairs"
SHIPPED = Path(__file__).resolve().parents[1] / "memory" / "data" / "relation_model.json"


def rows() -> list[dict[str, str]]:
    out = []
    for path in sorted(HERE.glob("pairs_*.jsonl")):
        out += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return out


def texts(data: list[dict[str, str]]) -> list[str]:
    return [f"{r['lang']}\t{r['statement']}\t{r['related']}\t{r['unrelated']}" for r in data]


def tables(data: list[dict[str, str]]) -> dict[str, np.ndarray]:
    """Per language: each pair's statement's vector and its related request's areas, as shipped."""
    rows: dict[str, list] = {lang: [] for lang in LANGUAGES}
    for r in data:
        rows[r["lang"]].append(
            (relevance.placed_record(r["statement"]).vector, relevance.request_meaning(r["related"]).areas)
        )
    return {lang: neighbours.table(found) for lang, found in rows.items()}


def pairs(data: list[dict[str, str]], shipped: dict[str, np.ndarray] | None = None) -> list[Pair]:
    """The pairs as training reads them; each statement borrows from the others of its language's
    table (`shipped`, or the one the pairs make)."""
    found = tables(data) if shipped is None else shipped
    unpacked = {lang: neighbours.unpack(t) for lang, t in found.items()}
    position = {lang: 0 for lang in LANGUAGES}
    out = []
    for r in data:
        # the record as a read-model row holds it (vector and areas quantized), before its bearing
        record = relevance.unpack(*relevance.pack(relevance.placed_record(r["statement"])))
        sides = []
        for request in (relevance.request_meaning(r["related"]), relevance.request_meaning(r["unrelated"])):
            sides.append(Side(request.areas.astype(np.float64), relevance.similarity(record, request)))
        lang = r["lang"]
        kept, borrowed = borrowing(record.vector_of(), lang, unpacked[lang], position[lang])
        position[lang] += 1
        out.append(Pair(lang, record.areas.astype(np.float64), sides[0], sides[1], kept, borrowed.astype(np.float64)))
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
    found = tables(data)
    SHIPPED.write_text(to_json(train(pairs(data, found)), wanted, len(data)), encoding="utf-8")
    for lang, name in BORROWED_FILES.items():
        np.save(SHIPPED.with_name(name), found[lang], allow_pickle=False)
    print(f"{len(data)} pairs -> {SHIPPED} and the neighbours tables beside it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
