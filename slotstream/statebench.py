"""StateBench adapter: timelines -> scenario lines (docs/scenarios.md) -> the engine -> metrics.

`convert` turns one StateBench timeline into scenario lines using only its *structured* writes:
initial persistent facts, `state_write` / `supersession` writes (with `supersedes` given as a key
or an id), environment signals and `[SCOPE: ...]` working-set items. Conversation text is never
parsed: a supersession that lives only in the conversation needs the extractor (see --turns).

`evaluate` runs the converted timelines through the engine (one user per timeline, writes between
two queries in one `apply_many` batch) and measures, per track:

* stale-leak rate: the fraction of queries whose rendered context contains any `must_not_mention`
  string (case-insensitive substring);
* fresh-inclusion rate: over the `must_mention` strings that occur in the timeline's own converted
  values that are current when the query is asked (global scope, not superseded by a later write of
  the timeline), the fraction found in the context. The others are not counted (reported as skipped).

Both look at the rendered record lines of the context (the fixed section headings are left out).

`main` prints one table per file and a closing line. The mapping is documented in
docs/statebench.md.
"""

from __future__ import annotations

import functools
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import orjson

from slotstream.memory.models import ContextRequest, OpIn, iso, parse_time
from slotstream.memory.validation import normalize_value

TENANT = "sb"
QUERY_SESSION = "statebench-query"  # no working-set scope is ever named like this
MAX_ITEMS = 50
MAX_CHARS = 20_000
TARGET_TRACKS = ("supersession", "environmental_freshness", "scope_leak", "commitment_durability")
ENV_ATTRIBUTE = "knowledge.env"

_SCOPE_PREFIX = re.compile(r"^\s*\[SCOPE:\s*([^\]]*?)\s*\]\s*(.*)$", re.S)
_ITEM_KEY = re.compile(r"^([A-Za-z][A-Za-z0-9_]{0,63})\s*:\s*(.+)$", re.S)
_NOT_ID = re.compile(r"[^A-Za-z0-9_.@+\-]")


# --- conversion -----------------------------------------------------------------------------


def slug(text: str, sep: str = "_") -> str:
    """Lower-case ASCII identifier: runs of anything else become one separator."""
    out = re.sub(r"[^a-z0-9]+", sep, text.casefold()).strip(sep)
    return out[:64] or "x"


def _label(key: str) -> str:
    return key.replace("_", " ").strip()


def _text(value: Any) -> str:
    return value if isinstance(value, str) else orjson.dumps(value).decode()


def _ts(value: Any) -> str:
    """StateBench timestamps are naive; scenario lines carry ISO-8601 UTC (naive is taken as UTC)."""
    return iso(parse_time(value)) or ""


@dataclass
class QueryCase:
    """One StateBench query and what its metrics count."""

    line: int  # index into Converted.lines
    at: str
    prompt: str
    must_mention: list[str]
    counted: list[str]  # must_mention strings in a current global value of the timeline when asked
    skipped: list[str]  # the others (in no value, or only in superseded / session-scoped ones): not counted
    must_not_mention: list[str]


@dataclass
class Converted:
    timeline_id: str
    track: str
    tenant: str
    user: str
    lines: list[dict[str, Any]] = field(default_factory=list)
    queries: list[QueryCase] = field(default_factory=list)
    notes: Counter = field(default_factory=Counter)  # what was mapped, retargeted or left out


class _Converter:
    def __init__(self, timeline: dict[str, Any], user: str | None, env_mode: str) -> None:
        if env_mode not in ("reading", "per_key"):
            raise ValueError(f"env_mode must be 'reading' or 'per_key', not {env_mode!r}")
        self.tl = timeline
        self.env_mode = env_mode
        tid = str(timeline.get("id") or "timeline")
        self.out = Converted(
            timeline_id=tid,
            track=str(timeline.get("track") or "unknown"),
            tenant=TENANT,
            user=user or (_NOT_ID.sub("_", tid)[:100] or "timeline"),
        )
        self.key_attr: dict[str, str] = {}  # StateBench key -> attribute
        self.key_rec: dict[str, str] = {}  # StateBench key -> the record id last emitted for it
        self.sbid_rec: dict[str, str] = {}  # StateBench fact/write id -> the record id emitted for it
        self.rec_slot: dict[str, tuple[str, str]] = {}  # record id -> (attribute, scope)
        self.head: dict[tuple[str, str], str] = {}  # (attribute, scope) -> current record id
        self.used_attrs: set[str] = {ENV_ATTRIBUTE}  # reserved for the environment
        self.rec_value: dict[str, str] = {}  # record id -> value text
        self.ever: list[tuple[str, str]] = []  # (scope, value text) of every record emitted so far
        self.n_records = 0

    # -- helpers --

    def _attribute_for(self, key: str) -> str:
        attr = self.key_attr.get(key)
        if attr is None:
            base = f"knowledge.{slug(key)}"
            attr, n = base, 2
            while attr in self.used_attrs:  # two keys with the same slug stay two slots
                attr, n = f"{base}_{n}", n + 1
            self.used_attrs.add(attr)
            self.key_attr[key] = attr
        return attr

    def _emit(
        self,
        at: str,
        *,
        attribute: str,
        kind: str,
        scope: str,
        value: Any,
        statement: str,
        source: dict[str, Any] | None,
        sb_id: str | None,
        corrects: str | None,
    ) -> str:
        """Append a record line; return the id of the record that holds the value afterwards."""
        self.n_records += 1
        rid = f"{self.out.user}.r{self.n_records}"
        at = _ts(at)
        stype = (source or {}).get("type")
        evidence = {
            "source_type": "system" if stype in ("system", "policy") else "conversation",
            "source_id": sb_id or f"{self.out.timeline_id}@{at}",
        }
        self.out.lines.append(
            {
                "at": at,
                "record": {
                    "id": rid,
                    "tenant": self.out.tenant,
                    "user": self.out.user,
                    "kind": kind,
                    "subject": "user",
                    "attribute": attribute,
                    "scope": scope,
                    "value": value,
                    "statement": statement,
                    "authority": "user_explicit",
                    "corrects": corrects,
                    "evidence": [evidence],
                },
            }
        )
        self.ever.append((scope, _text(value)))
        if corrects is not None and normalize_value(value) == normalize_value(self.rec_value[corrects]):
            # the same value again: the engine refreshes the current record instead of creating this
            # one (rule 1), so `rid` will not exist and the current record stays the slot's head
            self.out.notes["same_value_refresh"] += 1
            return corrects
        self.rec_slot[rid] = (attribute, scope)
        self.rec_value[rid] = _text(value)
        self.head[(attribute, scope)] = rid
        return rid

    def _scope_of(self, scope: Any) -> str:
        if scope in (None, "", "global"):
            return "global"
        self.out.notes["non_global_write_scope"] += 1
        return f"session:{slug(str(scope), '-')}"

    # -- the parts of a timeline --

    def fact(self, at: str, fact: dict[str, Any], *, supersedes: Any, event: str) -> None:
        """A persistent fact: an initial one, a state_write or a supersession write."""
        key = str(fact.get("key") or "")
        value = fact.get("value")
        if not key or value is None or (isinstance(value, str) and not value.strip()):
            self.out.notes["write_without_key_or_value"] += 1
            return
        scope = self._scope_of(fact.get("scope"))
        sb_id = fact.get("id") if isinstance(fact.get("id"), str) else None
        target: str | None = None
        if supersedes:
            s = str(supersedes)
            # an id names one record; a key names the record last written under it
            target = self.sbid_rec.get(s) or self.key_rec.get(s)
            self.out.notes[
                "supersedes_by_id"
                if s in self.sbid_rec
                else "supersedes_by_key"
                if s in self.key_rec
                else "supersedes_unresolved"
            ] += 1
        elif key in self.key_rec:
            target = self.key_rec[key]  # a keyed write to a key that holds a value replaces it
            self.out.notes["rewrite_of_key"] += 1
        if target is not None:
            attribute, scope = self.rec_slot[target]  # the engine corrects only within one slot
            current = self.head[(attribute, scope)]
            if current != target:
                self.out.notes["supersedes_retargeted_to_current"] += 1
            corrects: str | None = current
            self.key_attr[key] = attribute
        else:
            attribute = self._attribute_for(key)
            corrects = self.head.get((attribute, scope))
        rid = self._emit(
            at,
            attribute=attribute,
            kind="knowledge",
            scope=scope,
            value=value,
            statement=f"{_label(key)}: {_text(value)}",
            source=fact.get("source"),
            sb_id=sb_id,
            corrects=corrects,
        )
        self.key_rec[key] = rid
        if sb_id and sb_id != "W-AUTO":
            self.sbid_rec[sb_id] = rid
        self.out.notes[f"facts_{event}"] += 1

    def env(self, at: str, key: str, value: Any, source: dict[str, Any] | None, sb_id: str | None) -> None:
        """An environment signal. `reading`: one slot, a newer signal replaces the previous one
        whatever its key; `per_key`: one slot per signal key."""
        if value is None or (isinstance(value, str) and not value.strip()):
            self.out.notes["write_without_key_or_value"] += 1
            return
        attribute = ENV_ATTRIBUTE if self.env_mode == "reading" else f"{ENV_ATTRIBUTE}.{slug(key)}"
        self.used_attrs.add(attribute)
        corrects = self.head.get((attribute, "global"))
        self._emit(
            at,
            attribute=attribute,
            kind="knowledge",
            scope="global",
            value=value,
            statement=f"{_label(key)} (environment, as of {_ts(at)}): {_text(value)}",
            source=source or {"type": "system"},
            sb_id=sb_id,
            corrects=corrects,
        )
        self.out.notes["env_signals"] += 1

    def working_item(self, item: dict[str, Any], default_at: str) -> None:
        content = str(item.get("content") or "")
        m = _SCOPE_PREFIX.match(content)
        if not m or not m.group(1).strip():
            self.out.notes["working_set_unscoped_not_mapped"] += 1
            return
        scope = f"session:{slug(m.group(1), '-')}"
        body = m.group(2).strip()
        km = _ITEM_KEY.match(body)
        key, value = (km.group(1), km.group(2).strip()) if km else ("item", body)
        if not value:
            self.out.notes["write_without_key_or_value"] += 1
            return
        attribute = f"session.{slug(key)}"
        self._emit(
            str(item.get("ts") or default_at),
            attribute=attribute,
            kind="session_context",
            scope=scope,
            value=value,
            statement=f"{_label(key)}: {value}",
            source=None,
            sb_id=None,
            corrects=self.head.get((attribute, scope)),
        )
        self.out.notes["working_set_scoped"] += 1

    def query(self, event: dict[str, Any]) -> None:
        gt = event.get("ground_truth") or {}
        mm = [str(s) for s in gt.get("must_mention") or []]
        mnm = [str(s) for s in gt.get("must_not_mention") or []]
        # fresh = the current value of each global slot (what the mapping says the engine must show)
        fresh = [self.rec_value[rid].casefold() for (_, scope), rid in self.head.items() if scope == "global"]
        ever = [v.casefold() for scope, v in self.ever]
        counted = [s for s in mm if any(s.casefold() in v for v in fresh)]
        skipped = [s for s in mm if s not in counted]
        self.out.notes["must_mention_only_in_superseded_or_scoped_values"] += sum(
            1 for s in skipped if any(s.casefold() in v for v in ever)
        )
        at = _ts(event["ts"])
        self.out.lines.append(
            {
                "at": at,
                "query": {
                    "tenant": self.out.tenant,
                    "user": self.out.user,
                    "session": QUERY_SESSION,
                    "project": None,
                    "text": str(event.get("prompt") or ""),
                    "max_items": MAX_ITEMS,
                    "max_chars": MAX_CHARS,
                },
                "expect": {"include": counted, "exclude": mnm},
            }
        )
        self.out.queries.append(
            QueryCase(len(self.out.lines) - 1, at, str(event.get("prompt") or ""), mm, counted, skipped, mnm)
        )

    # -- the whole timeline --

    def run(self) -> Converted:
        init = self.tl.get("initial_state") or {}
        env = dict(init.get("environment") or {})
        now = str(env.pop("now", None) or _first_ts(self.tl) or "1970-01-01T00:00:00")
        for f in init.get("persistent_facts") or []:
            if f.get("is_valid") is False or f.get("superseded_by"):
                # already superseded before the timeline starts: its key is known, its value is not used
                self._attribute_for(str(f.get("key") or ""))
                self.out.notes["initial_fact_invalid_not_mapped"] += 1
                continue
            self.fact(str(f.get("ts") or now), f, supersedes=f.get("supersedes"), event="initial")
        for key, value in env.items():
            self.env(now, key, value, {"type": "system"}, None)
        for item in init.get("working_set") or []:
            self.working_item(item, now)
        for ev in self.tl.get("events") or []:
            etype = ev.get("type")
            if etype in ("state_write", "supersession"):
                for w in ev.get("writes") or []:
                    layer = w.get("layer")
                    if layer == "environment":
                        self.env(
                            str(ev["ts"]),
                            str(w.get("key") or "signal"),
                            w.get("value"),
                            w.get("source"),
                            w.get("id") if w.get("id") != "W-AUTO" else None,
                        )
                    elif layer == "persistent_facts":
                        self.fact(str(ev["ts"]), w, supersedes=w.get("supersedes"), event=etype)
                    elif layer == "working_set":
                        self.working_item({"content": w.get("value"), "ts": ev["ts"]}, str(ev["ts"]))
                    else:
                        self.out.notes[f"layer_{layer}_not_mapped"] += 1
            elif etype == "query":
                self.query(ev)
            elif etype == "conversation_turn":
                self.out.notes["conversation_turns_not_parsed"] += 1
            else:
                self.out.notes[f"event_{etype}_not_mapped"] += 1
        return self.out


def _first_ts(tl: dict[str, Any]) -> str | None:
    for ev in tl.get("events") or []:
        if ev.get("ts"):
            return str(ev["ts"])
    return None


def convert(timeline: dict[str, Any], *, user: str | None = None, env_mode: str = "reading") -> Converted:
    """One StateBench timeline -> scenario lines (records and queries), from structured writes only."""
    return _Converter(timeline, user, env_mode).run()


def read_timelines(path: str | Path) -> list[dict[str, Any]]:
    out = []
    for raw in Path(path).read_text(encoding="utf-8").splitlines():
        if raw.strip():
            out.append(orjson.loads(raw))
    return out


# --- evaluation -----------------------------------------------------------------------------


@dataclass
class QueryOutcome:
    timeline_id: str
    track: str
    prompt: str
    leaked: list[str]  # must_not_mention strings found in the context
    missing: list[str]  # counted must_mention strings not found
    counted: int
    skipped: int
    context: str


@dataclass
class TrackStats:
    timelines: int = 0
    queries: int = 0
    leaking_queries: int = 0
    mm_counted: int = 0
    mm_included: int = 0
    mm_skipped: int = 0

    def add(self, o: TrackStats) -> None:
        for f in ("timelines", "queries", "leaking_queries", "mm_counted", "mm_included", "mm_skipped"):
            setattr(self, f, getattr(self, f) + getattr(o, f))

    @property
    def leak_rate(self) -> float | None:
        return self.leaking_queries / self.queries if self.queries else None

    @property
    def inclusion_rate(self) -> float | None:
        return self.mm_included / self.mm_counted if self.mm_counted else None


@dataclass
class Table:
    label: str
    tracks: dict[str, TrackStats] = field(default_factory=dict)
    outcomes: list[QueryOutcome] = field(default_factory=list)
    engine_notes: Counter = field(default_factory=Counter)  # rejected ops, ignored corrections, pending_review
    mapping_notes: Counter = field(default_factory=Counter)
    seconds: float = 0.0

    @property
    def total(self) -> TrackStats:
        t = TrackStats()
        for s in self.tracks.values():
            t.add(s)
        return t

    def leaks(self, tracks: Iterable[str] | None = None) -> int:
        wanted = set(tracks) if tracks is not None else None
        return sum(s.leaking_queries for name, s in self.tracks.items() if wanted is None or name in wanted)


def run_converted(engine: Any, conv: Converted, notes: Counter | None = None) -> list[QueryOutcome]:
    """Apply a converted timeline: the writes between two queries as one batch, each query as of its `at`."""
    notes = notes if notes is not None else Counter()
    outcomes: list[QueryOutcome] = []
    batch: list[OpIn] = []
    by_line = {q.line: q for q in conv.queries}

    def flush() -> None:
        if not batch:
            return
        for res in engine.apply_many(batch):
            if res.outcome == "rejected":
                notes[f"rejected:{res.reason}"] += 1
            for ch in res.changes:
                if ch.get("type") in ("correction_ignored", "pending_review", "conflicted"):
                    notes[ch["type"]] += 1
        batch.clear()

    for i, line in enumerate(conv.lines):
        if "query" in line:
            flush()
            q = by_line[i]
            resp = engine.context(ContextRequest.model_validate(line["query"]), parse_time(line["at"]))
            # the memory the context carries: the rendered record lines (the fixed section headings,
            # e.g. "## Project knowledge and decisions", are renderer text, not memory)
            low = "\n".join(item.text for item in resp.items).casefold()
            outcomes.append(
                QueryOutcome(
                    conv.timeline_id,
                    conv.track,
                    q.prompt,
                    leaked=[s for s in q.must_not_mention if s.casefold() in low],
                    missing=[s for s in q.counted if s.casefold() not in low],
                    counted=len(q.counted),
                    skipped=len(q.skipped),
                    context=resp.context,
                )
            )
        else:
            kind = "record" if "record" in line else "command"
            batch.append(OpIn(at=line["at"], op_id=f"sb:{conv.user}:{i}", **{kind: line[kind]}))
    flush()
    return outcomes


def evaluate(
    paths: Sequence[str | Path],
    engine_factory: Callable[[], Any],
    *,
    tracks: Iterable[str] | None = None,
    env_mode: str = "reading",
    label: str | None = None,
) -> Table:
    """Run every timeline of `paths` through an engine from `engine_factory()` (called once per path;
    each timeline is its own user there) and measure per track."""
    wanted = set(tracks) if tracks else None
    table = Table(label or ", ".join(Path(p).name for p in paths))
    start = time.perf_counter()
    for path in paths:
        engine = engine_factory()
        users: Counter = Counter()
        for tl in read_timelines(path):
            track = str(tl.get("track") or "unknown")
            if wanted is not None and track not in wanted:
                continue
            base = _NOT_ID.sub("_", str(tl.get("id") or "timeline"))[:100] or "timeline"
            users[base] += 1
            user = base if users[base] == 1 else f"{base}.{users[base]}"  # a repeated id stays its own user
            conv = convert(tl, user=user, env_mode=env_mode)
            table.mapping_notes.update(conv.notes)
            outs = run_converted(engine, conv, table.engine_notes)
            st = table.tracks.setdefault(track, TrackStats())
            st.timelines += 1
            for o in outs:
                st.queries += 1
                st.leaking_queries += bool(o.leaked)
                st.mm_counted += o.counted
                st.mm_included += o.counted - len(o.missing)
                st.mm_skipped += o.skipped
            table.outcomes.extend(outs)
    table.seconds = time.perf_counter() - start
    return table


# --- printing -------------------------------------------------------------------------------


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.1f}"


def format_table(table: Table) -> str:
    head = (
        f"{'track':<26} {'timelines':>9} {'queries':>7} {'stale-leak %':>14} {'fresh-inclusion %':>19} "
        f"{'must_mention counted/skipped':>28}"
    )
    rows = [f"StateBench {table.label}  ({table.seconds:.1f} s)", head, "-" * len(head)]

    def row(name: str, s: TrackStats) -> str:
        leak = f"{_pct(s.leak_rate)} ({s.leaking_queries})"
        inc = f"{_pct(s.inclusion_rate)} ({s.mm_included}/{s.mm_counted})"
        return f"{name:<26} {s.timelines:>9} {s.queries:>7} {leak:>14} {inc:>19} {f'{s.mm_counted}/{s.mm_skipped}':>28}"

    for name in sorted(table.tracks, key=lambda n: (n not in TARGET_TRACKS, n)):
        rows.append(row(("* " if name in TARGET_TRACKS else "  ") + name, table.tracks[name]))
    rows.append("-" * len(head))
    rows.append(row("  total", table.total))
    rows.append("* target track: stale-leak must be 0. leak = a must_not_mention string in the rendered records;")
    rows.append("  inclusion counts only the must_mention strings found in a current value of the timeline's writes")
    eng = ", ".join(f"{k} {v}" for k, v in sorted(table.engine_notes.items())) or "none"
    rows.append(f"engine notes: {eng}")
    mapping = ", ".join(f"{k} {v}" for k, v in sorted(table.mapping_notes.items()) if v)
    rows.append(f"mapping: {mapping or 'nothing'}")
    return "\n".join(rows)


def format_outcome(o: QueryOutcome) -> str:
    lines = [f"  {o.track} {o.timeline_id}: {o.prompt!r}"]
    if o.leaked:
        lines.append(f"    LEAK {o.leaked}")
        for ctx_line in o.context.splitlines():
            if any(s.casefold() in ctx_line.casefold() for s in o.leaked):
                lines.append(f"      {ctx_line}")
    if o.missing:
        lines.append(f"    missing {o.missing}")
    return "\n".join(lines)


def main(
    files: Sequence[str | Path],
    settings: Any,
    tracks: Sequence[str] | None = None,
    verbose: bool = False,
    out: TextIO | None = None,
) -> int:
    """`slotstream eval statebench FILE...`: one table per file, then a closing line. A measurement,
    not a gate: exit 0 when it ran, 2 when a file is missing."""
    from slotstream.state.engine import Engine
    from slotstream.state.namespaces import drop_namespace

    from .runtime import redis_client
    from .scenario import fresh_namespace

    out = out or sys.stdout
    missing = [str(f) for f in files if not Path(f).is_file()]
    if missing:
        print(f"statebench: no such file: {', '.join(missing)}", file=out)
        return 2
    tables: list[Table] = []
    with redis_client(settings) as client:
        for path in files:
            ns = fresh_namespace("sb")
            try:
                table = evaluate(
                    [path], functools.partial(Engine, client, namespace=ns), tracks=tracks, label=str(path)
                )
            finally:
                drop_namespace(client, ns)
            tables.append(table)
            print(format_table(table), file=out)
            if verbose:
                bad = [o for o in table.outcomes if o.leaked or o.missing]
                print(f"queries with a leak or a missing must_mention: {len(bad)}", file=out)
                for o in bad:
                    print(format_outcome(o), file=out)
            print(file=out, flush=True)
    total = TrackStats()
    target = TrackStats()
    for t in tables:
        for name, s in t.tracks.items():
            total.add(s)
            if name in TARGET_TRACKS:
                target.add(s)
    verdict = "0 (target met)" if target.leaking_queries == 0 else f"{target.leaking_queries} (TARGET MISSED)"
    print(
        f"statebench: {len(tables)} file(s), {total.timelines} timelines, {total.queries} queries; "
        f"stale-leak {_pct(total.leak_rate)}% overall, fresh-inclusion {_pct(total.inclusion_rate)}%; "
        f"leaking queries on the target tracks ({target.queries} queries): {verdict}",
        file=out,
        flush=True,
    )
    return 0
