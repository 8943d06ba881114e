"""`slotstream eval secrets --corpus PATH`: does any secret reach what the memory service keeps, and
are ordinary long tokens (hashes, ids, order numbers) left alone?

A corpus (`corpora/secrets/*.jsonl`, written by an author who never read the detector) holds lines
`{"id", "lang": "en"|"zh", "kind": "secret"|"ordinary", "where": "sentence"|"value"|"match",
"text", "secret": the exact secret substring or null, "note"}`. Each line goes through the path the
product gives it:
- `sentence`: a user's turn: the text the producer writes to the turns topic (`scrub`), then the
  rule extractor on it; kept: the topic's text, every op extraction writes and every record the
  engine builds from them;
- `value`: a record value written through the ops door: refused (`secret_value`), or kept as the
  op the producer writes and the record the engine builds;
- `match`: the value of a forget by match and of a correct: refused, or kept as the command the
  control topic would hold.

A secret is *caught* when its substring is in nothing kept. An ordinary line is *flagged* when the
detector touched it: the turn or value redacted, the turn's secret refusal, or a `secret_value`
refusal. Pure: the engine's own producer scrub, extraction and validation, in memory.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from slotstream.memory.errors import Reason, Rejected
from slotstream.memory.extraction import REFUSED_SECRET, RuleExtractor, Turn
from slotstream.memory.secrets import scrub
from slotstream.memory.validation import build_record, parse_command, parse_record

from .corpus import LANGS, Cell, corpus_path, fraction, read_jsonl

AT = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
WHERES = ("sentence", "value", "match")
TENANT, USER = "t_eval", "u_eval"
ATTRIBUTE = "knowledge.note"  # an attribute whose name says nothing of a credential


def shipped_corpus() -> Path:
    return corpus_path("secrets") / "dev.jsonl"


@dataclass(frozen=True, slots=True)
class Outcome:
    kept: list[str]  # every text the service would keep for the line
    flagged: bool  # the detector touched the line


def _dump(value: Any) -> str:
    return orjson.dumps(value, default=str).decode()


def _records(ops: list[dict[str, Any]]) -> list[str]:
    """The records the engine builds from extraction's record proposals (a refused one keeps nothing)."""
    kept = []
    for k, record in enumerate(ops):
        try:
            rec = build_record(parse_record(record), op_id=f"eval-{k}", at=AT)
        except Rejected:
            continue
        kept.append(rec.model_dump_json())
    return kept


def through_sentence(text: str, extractor: RuleExtractor) -> Outcome:
    on_topic = scrub({"text": text})["text"]
    out = extractor.extract(Turn(tenant=TENANT, user=USER, session="s1", text=on_topic, at=AT))
    records = [{"tenant": TENANT, "user": USER, **r} for r in out.records]
    kept = [on_topic, out.redacted_text, _dump(scrub(records)), _dump(scrub(out.commands)), *_records(records)]
    flagged = on_topic != text or out.redacted_text != on_topic or REFUSED_SECRET in out.refused
    return Outcome(kept, flagged)


def through_value(text: str) -> Outcome:
    record = {"tenant": TENANT, "user": USER, "kind": "knowledge", "attribute": ATTRIBUTE, "value": text}
    try:
        rec = build_record(parse_record(record), op_id="eval-value", at=AT)
    except Rejected as rej:
        if rej.reason == Reason.SECRET_VALUE:
            return Outcome([], True)
        return Outcome([], False)  # refused for another reason: nothing kept, and not by the detector
    on_topic = scrub({"record": record})
    return Outcome([_dump(on_topic), rec.model_dump_json()], on_topic["record"]["value"] != text)


def through_match(text: str) -> Outcome:
    """A forget by match and a correct carrying the text as their value."""
    commands = [
        {"op": "forget", "tenant": TENANT, "user": USER, "match": {"attribute": ATTRIBUTE, "value": text}},
        {"op": "correct", "tenant": TENANT, "user": USER, "record_id": "r_eval", "value": text},
    ]
    kept, flagged = [], False
    for command in commands:
        try:
            parse_command(command)
        except Rejected as rej:
            flagged = flagged or rej.reason == Reason.SECRET_VALUE
            continue
        on_topic = scrub(command)
        flagged = flagged or on_topic != command
        kept.append(_dump(on_topic))
    return Outcome(kept, flagged)


@dataclass
class Report:
    caught: dict[tuple[str, str], Cell] = field(default_factory=lambda: defaultdict(Cell))
    flagged: dict[tuple[str, str], Cell] = field(default_factory=lambda: defaultdict(Cell))
    misses: list[dict[str, Any]] = field(default_factory=list)  # secrets kept
    false_flags: list[dict[str, Any]] = field(default_factory=list)  # ordinary lines flagged

    def total(self, cells: dict[tuple[str, str], Cell]) -> Cell:
        whole = Cell()
        for cell in cells.values():
            whole.merge(cell)
        return whole


def evaluate(path: Path) -> Report:
    extractor = RuleExtractor()
    report = Report()
    for line in read_jsonl(path):
        where = line["where"]
        if where == "sentence":
            outcome = through_sentence(line["text"], extractor)
        elif where == "value":
            outcome = through_value(line["text"])
        elif where == "match":
            outcome = through_match(line["text"])
        else:
            raise ValueError(f"{line.get('id')}: where must be one of {WHERES}")
        cell = (line["lang"], where)
        if line["kind"] == "secret":
            secret = line["secret"] or line["text"]
            caught = not any(secret in kept for kept in outcome.kept)
            report.caught[cell].add(caught)
            if not caught:
                report.misses.append(line)
        else:
            report.flagged[cell].add(outcome.flagged)
            if outcome.flagged:
                report.false_flags.append(line)
    return report


def report_lines(report: Report, verbose: bool = True) -> list[str]:
    lines = [f"{'':12}{'secrets caught':>24}{'ordinary flagged':>24}"]
    for lang in LANGS:
        for where in WHERES:
            cell = (lang, where)
            lines.append(
                f"{lang + ' ' + where:12}{fraction(report.caught[cell]):>24}{fraction(report.flagged[cell]):>24}"
            )
    lines.append(f"{'all':12}{fraction(report.total(report.caught)):>24}{fraction(report.total(report.flagged)):>24}")
    if verbose:
        for line in report.misses:
            lines.append(f"  missed  [{line['id']} {line['lang']} {line['where']}] {line['text'][:120]}")
        for line in report.false_flags:
            lines.append(f"  flagged [{line['id']} {line['lang']} {line['where']}] {line['text'][:120]}")
    return lines


def main(corpus: Path | None = None, verbose: bool = True) -> int:
    for line in report_lines(evaluate(corpus or shipped_corpus()), verbose=verbose):
        print(line)
    return 0
