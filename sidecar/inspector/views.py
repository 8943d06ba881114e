"""What the inspector's pages show, worked out from records alone (no I/O): a user's memory by
section, a slot's lineage as a timeline, and the pipeline's figures as chart series.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from slotstream.memory.models import LIVE_STATUSES, Record, Status
from slotstream.memory.selection import SECTION_ORDER, SECTION_TITLES, section_for

ENDED_SECTION = "ended"
ENDED_TITLE = "No longer used (superseded, expired, retracted, forgotten)"
# how each ending is named on the timeline
ENDING_WORDS = {
    Status.SUPERSEDED: "superseded",
    Status.EXPIRED: "expired",
    Status.RETRACTED: "retracted",
    Status.DELETED: "forgotten",
}


@dataclass
class Section:
    name: str
    title: str
    records: list[Record] = field(default_factory=list)


def sections(records: list[Record], now: datetime) -> list[Section]:
    """A user's records in the context's sections, then the ended ones; newest first in each.
    A record past its validity that no sweep has marked yet counts as ended: it is not used."""
    by_name = {name: Section(name, SECTION_TITLES[name]) for name in SECTION_ORDER if name != "request"}
    ended = Section(ENDED_SECTION, ENDED_TITLE)
    for rec in records:
        if not in_use(rec.status, rec.valid_until, now):
            ended.records.append(rec)
        else:
            by_name[section_for(rec.status, rec.kind)].records.append(rec)
    out = [s for s in by_name.values() if s.records] + ([ended] if ended.records else [])
    for s in out:
        s.records.sort(key=lambda r: (r.observed_at, r.id), reverse=True)
    return out


def in_use(status: str, valid_until: datetime | None, now: datetime) -> bool:
    """Still part of the user's memory: a status of the slot's present, and not past its validity
    (a record past it is out at that moment, whether or not a sweep has marked it)."""
    return status in LIVE_STATUSES and (valid_until is None or valid_until > now)


def shown_value(value: Any, limit: int = 200) -> str:
    """A record's value as one line of text (never markup: the templates escape it)."""
    text = value if isinstance(value, str) else _compact(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _compact(value: Any) -> str:
    import orjson

    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()


# --- a slot's lineage as a timeline ------------------------------------------------------------


@dataclass(frozen=True)
class Bar:
    """One version: when it held (x, width in the picture's units), its row, how it ended."""

    record: Record
    row: int
    x: float
    width: float
    ending: str  # "" while it holds; else a word of ENDING_WORDS
    end_at: datetime | None
    successor_row: int | None  # the row of the version that superseded it


@dataclass(frozen=True)
class Tick:
    x: float
    at: datetime


@dataclass(frozen=True)
class Timeline:
    bars: list[Bar]
    ticks: list[Tick]
    width: float
    start: datetime
    end: datetime


def timeline(versions: list[Record], now: datetime, width: float = 1000.0, ticks: int = 5) -> Timeline:
    """The versions of a slot, oldest first, one row each: a bar from when the version was said
    to when it stopped holding (superseded: the successor's time; expired: its validity's end;
    retracted or forgotten: when that was applied; still holding: now)."""
    ordered = sorted(versions, key=lambda r: (r.observed_at, r.id))
    row_of = {r.id: n for n, r in enumerate(ordered)}
    spans: list[tuple[Record, datetime, datetime | None, str]] = []
    for rec in ordered:
        start = rec.valid_from if rec.valid_from and rec.valid_from > rec.observed_at else rec.observed_at
        ending, end = _ending(rec, ordered, now)
        spans.append((rec, start, end, ending))
    if not spans:
        return Timeline([], [], width, now, now)
    first = min(s[1] for s in spans)
    last = max([now, *(s[2] for s in spans if s[2] is not None)])
    total = max((last - first).total_seconds(), 1.0)

    def x_of(at: datetime) -> float:
        return round((at - first).total_seconds() / total * width, 1)

    bars = []
    for rec, start, end, ending in spans:
        x0 = x_of(start)
        x1 = x_of(end) if end is not None else width
        successor = row_of.get(rec.superseded_by) if rec.superseded_by else None
        bars.append(Bar(rec, row_of[rec.id], x0, max(x1 - x0, 2.0), ending, end, successor))
    step = total / max(ticks - 1, 1)
    marks = [Tick(x_of(first + timedelta(seconds=step * n)), first + timedelta(seconds=step * n)) for n in range(ticks)]
    return Timeline(bars, marks, width, first, last)


def _ending(rec: Record, ordered: list[Record], now: datetime) -> tuple[str, datetime | None]:
    if rec.status == Status.SUPERSEDED:
        successor = next((r for r in ordered if r.id == rec.superseded_by), None)
        return ENDING_WORDS[Status.SUPERSEDED], successor.observed_at if successor else rec.updated_at
    if rec.status in ENDING_WORDS:
        at = rec.valid_until if rec.status == Status.EXPIRED and rec.valid_until else rec.updated_at
        return ENDING_WORDS[Status(rec.status)], at
    if rec.valid_until is not None and rec.valid_until <= now:
        return ENDING_WORDS[Status.EXPIRED], rec.valid_until
    return "", None


# --- the pipeline's figures --------------------------------------------------------------------


def pipeline_figures(families: list[Any], watermarks: dict[str, dict[int, int]], now_ms: int) -> dict[str, Any]:
    """The metric families the pipeline collector yields (consumer lag per partition, ops applied
    by outcome, dead letters by reason) as the health page's JSON. `behind_seconds`: per topic,
    how far the processors' event time trails now while messages wait (0 when caught up)."""
    lag: list[dict[str, Any]] = []
    applied: dict[str, float] = {}
    dead: dict[str, float] = {}
    for family in families:
        for sample in family.samples:
            if family.name == "slotstream_consumer_lag":
                lag.append(
                    {"topic": sample.labels["topic"], "partition": int(sample.labels["partition"]), "lag": sample.value}
                )
            elif family.name == "slotstream_ops_applied" and sample.name.endswith("_total"):
                applied[sample.labels["outcome"]] = sample.value
            elif family.name == "slotstream_dead_letters" and sample.name.endswith("_total"):
                dead[sample.labels["reason"]] = sample.value
    behind: dict[str, float] = {}
    for topic, marks in watermarks.items():
        waiting = sum(row["lag"] for row in lag if row["topic"] == topic)
        newest = max(marks.values(), default=0)
        behind[topic] = round(max(0, now_ms - newest) / 1000, 1) if waiting and newest else 0.0
    lag.sort(key=lambda row: (row["topic"], row["partition"]))
    return {"lag": lag, "applied": applied, "dead_letters": dead, "behind_seconds": behind}
