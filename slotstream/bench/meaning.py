"""`slotstream bench meaning`: what relevance by meaning costs and how well it separates.

- µs to place a request (its vector and its area probabilities), English and Chinese, medians
  over the open-language dev corpus's requests, and a record (also its nearest training texts and
  statements, once, when it is written) over its statements;
- the bytes a stored meaning adds to a read-model row (vector, area probabilities, calibration);
- how many areas of the read index a dev-corpus statement is listed under: by the areas it bears on
  (what is stored) and by those it is about;
- on the dev corpus, how well each signal tells a statement's related request from its unrelated
  one (AUC: the chance a related pair scores above an unrelated one), per language: the raw cosine
  of the vectors, Chinese through its English gloss or as written, the calibrated similarity, and
  the area agreement relevance uses.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from slotstream.eval.corpus import corpus_path
from slotstream.eval.open_language import Statement, load
from slotstream.memory.extraction.open_statement import is_critical
from slotstream.memory.semantics import area_model, relevance, vectors


def _auc(related: Sequence[float], unrelated: Sequence[float]) -> float:
    r, u = np.asarray(related), np.asarray(unrelated)
    return float((r[:, None] > u[None, :]).mean() + 0.5 * (r[:, None] == u[None, :]).mean())


def _median_us(texts: Sequence[str], fn: Callable[[str], object], rounds: int = 5) -> float:
    times = []
    for _ in range(rounds):
        for text in texts:
            start = time.perf_counter_ns()
            fn(text)
            times.append((time.perf_counter_ns() - start) / 1000)
    return statistics.median(times)


def run_meaning_bench(compare: Path | None = None) -> int:
    statements, _ = load(corpus_path("open_language_dev"))
    relevance.request_meaning("warm up")  # the model and the area weights load once per process
    print("bench meaning: relevance by meaning, on this machine")
    print()
    print("µs to place a request (median over the dev corpus's requests, 5 rounds)")
    for lang in ("en", "zh"):
        texts = [s.related for s in statements if s.lang == lang] + [s.unrelated for s in statements if s.lang == lang]
        embed = _median_us(texts, vectors.embed)
        whole = _median_us(texts, relevance.request_meaning)
        print(f"  {lang}: vector {embed:.1f} µs; vector + areas + topics {whole:.1f} µs")
    print("µs to place a record, once when it is written (median over the dev corpus's statements, 5 rounds)")
    for lang in ("en", "zh"):
        texts = [s.statement for s in statements if s.lang == lang]
        print(f"  {lang}: {_median_us(texts, relevance.record_meaning):.1f} µs")
    packed = relevance.pack(relevance.record_meaning("I'm allergic to peanuts.", ("food", "health"), (), True))
    row_bytes = len(json.dumps(list(packed), separators=(",", ":")).encode())
    print()
    print(
        f"bytes a stored meaning adds to a read-model row: {row_bytes} "
        f"(vector {vectors.DIMENSIONS} B int8 and {len(area_model.model().areas)} B of area probabilities, "
        "base64; topics; calibration)"
    )
    bearing, about = [], []
    for s in statements:
        bearing.append(int((relevance.record_meaning(s.statement).areas >= relevance.AREA_LISTED).sum()))
        about.append(int((relevance.placed_record(s.statement).areas >= relevance.AREA_LISTED).sum()))
    print(
        f"areas of the read index a dev-corpus statement is listed under (at least {relevance.AREA_LISTED}): "
        f"{statistics.mean(bearing):.1f} by what it bears on, {statistics.mean(about):.1f} by what it is about"
    )
    print()
    print("AUC on the dev corpus: a statement's related request against its unrelated one")
    print(f"  {'lang':<5}{'cosine':>9}{'as written':>12}{'calibrated':>12}{'areas':>9}{'relation':>10}")
    for lang in ("en", "zh"):
        rows: dict[str, tuple[list[float], list[float]]] = {
            k: ([], []) for k in ("cos", "raw", "z", "areas", "relation")
        }
        for s in (s for s in statements if s.lang == lang):
            record = relevance.record_meaning(s.statement, safety=is_critical(s.statement))
            raw = vectors.model().embed_english(s.statement)
            for side, request in ((0, s.related), (1, s.unrelated)):
                meaning = relevance.request_meaning(request)
                rel = relevance.relation(record, meaning)
                cosine = float(record.vector_of() @ meaning.vector_of())
                rows["cos"][side].append(cosine)
                rows["raw"][side].append(float(raw @ vectors.model().embed_english(request)))
                rows["z"][side].append((cosine - record.mean) / record.spread)
                rows["areas"][side].append(rel.agreement)
                rows["relation"][side].append(rel.score)
        aucs = {k: _auc(*v) for k, v in rows.items()}
        as_written = f"{aucs['raw']:.3f}" if lang == "zh" else "-"
        print(
            f"  {lang:<5}{aucs['cos']:>9.3f}{as_written:>12}{aucs['z']:>12.3f}{aucs['areas']:>9.3f}"
            f"{aucs['relation']:>10.3f}"
        )
    print("  (as written: Chinese embedded without its English gloss; relation: the relation model's score)")
    if compare is not None:
        _compare(compare, statements)
    return 0


def _compare(folder: Path, statements: Sequence[Statement]) -> None:
    """A transformer against the embedded model, on the same corpus and figures."""
    from slotstream.bench.bert import BertEncoder

    encoder = BertEncoder(folder)
    print()
    print(f"compared: {folder} ({encoder.size_bytes / 1e6:.1f} MB of model files), run with numpy")
    print(f"  {'lang':<5}{'cosine AUC':>12}{'µs a request':>14}")
    for lang in ("en", "zh"):
        mine = [s for s in statements if s.lang == lang]
        rows: tuple[list[float], list[float]] = ([], [])
        for s in mine:
            record = encoder.embed(s.statement)
            for side, request in ((0, s.related), (1, s.unrelated)):
                rows[side].append(float(record @ encoder.embed(request)))
        texts = [s.related for s in mine][:100]
        print(f"  {lang:<5}{_auc(*rows):>12.3f}{_median_us(texts, encoder.embed, rounds=1):>14.0f}")
