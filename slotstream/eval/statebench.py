"""StateBench adapter: timelines -> scenario lines (docs/evaluation.md) -> the engine -> metrics.

`convert` turns one StateBench timeline into scenario lines from its *structured* data: initial
persistent facts, `state_write` / `supersession` writes (with `supersedes` given as a key or an id),
environment signals, `[SCOPE: ...]` working-set items, `[RESTRICTED: ... restricted to <who>]`
values (-> `audience`), `[INVALIDATED ...]` writes (-> `retract` of the conclusion they name),
`depends_on` / `derived_facts` (-> `depends_on`), and the caller's roles from `identity_role`.
With `turns=True` the user's `conversation_turn` events also become `turn` lines, which
`run_converted` sends through the rule extractor exactly as the extraction processor does
(`processors.extraction.ExtractionService.ops_for_turn`), beside the structured writes.

`evaluate` runs the converted timelines through the engine (one user per timeline, everything
between two queries in one `apply_many` batch) and measures, per track:

* stale-leak rate: the fraction of queries whose rendered context mentions any `must_not_mention`
  string (case-insensitive, as a whole: "500" is not mentioned by "1500"); a string a query lists
  under both `must_mention` and `must_not_mention` cannot be scored and is left out (counted in the
  notes);
* fresh-inclusion rate: over the `must_mention` strings that occur in the timeline's own converted
  values that are current and visible to the caller when the query is asked (global scope, not
  replaced, retracted or waiting for review), the fraction found in the context. The others are
  not counted (reported as skipped);
* the class of every leak (`classify_leak`): (a) the engine showed a record that, by the ops it
  was given, it must not use (replaced, retracted, forgotten, expired, out of scope or audience,
  or depending on one of those); (b) the record is current by the mapped input, and a later user
  turn holds what the query expects while no structured record of the context does (the correction
  lives only in the conversation); (c) the string is part of a value that is current and valid by
  the mapped input (keeping it out of the answer is the answering model's job).

Both look at the rendered record lines of the context (the fixed section headings are left out).
`main` prints one table per file and a closing line. The mapping is documented in
docs/evaluation.md.
"""

from __future__ import annotations

import functools
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

import orjson

from slotstream.memory.errors import Rejected
from slotstream.memory.models import (
    ContextItem,
    ContextRequest,
    Match,
    OpIn,
    Record,
    RetractCommand,
    iso,
    parse_time,
)
from slotstream.memory.validation import normalize_value, validate_op

TENANT = "sb"
QUERY_SESSION = "statebench-query"  # no working-set scope is ever named like this
MAX_ITEMS = 50
MAX_CHARS = 20_000
TARGET_TRACKS = ("supersession", "environmental_freshness", "scope_leak", "commitment_durability")
ENV_ATTRIBUTE = "knowledge.env"
# attributes the rule extractor writes under: a StateBench key never lands there (with --turns the
# two sources stay side by side instead of correcting each other by accident)
EXTRACTOR_ATTRIBUTES = ("knowledge.decision",)
LEAK_CLASSES = ("a", "b", "c")

_SCOPE_PREFIX = re.compile(r"^\s*\[SCOPE:\s*([^\]]*?)\s*\]\s*(.*)$", re.S)
_ITEM_KEY = re.compile(r"^([A-Za-z][A-Za-z0-9_]{0,63})\s*:\s*(.+)$", re.S)
_NOT_ID = re.compile(r"[^A-Za-z0-9_.@+\-]")
_RESTRICTED = re.compile(r"^\s*\[RESTRICTED:\s*(?P<label>[^\]]*)\]", re.I)
_RESTRICTED_TO = re.compile(r"\brestricted to\s+(?P<who>.+?)\s*$", re.I)
_INVALIDATED = re.compile(r"^\s*\[INVALIDATED\b[^\]]*\]", re.I)


# --- roles and audiences ----------------------------------------------------------------------
#
# The one place that says who may see a restricted value. The data restricts by level ("VP+",
# "Director+", "C-suite"), by team ("HR", "Finance", "Security team") and by a team's leadership
# ("CS leadership"); callers carry a job title (`identity_role.authority`). Roles are plain strings:
# `level:<level>`, `team:<team>`, `team:<team>:leadership` (a team's director or above).

# the ladder, lowest first: "X+" is X and every level above it
LEVELS = ("staff", "lead", "manager", "director", "vp", "c-suite")
_LEVEL_WORDS = (  # first match wins; a title matching none is staff
    ("c-suite", r"\b(?:c-suite|c-level|chief|ceo|cfo|cto|coo|cio|chro|ciso|general counsel)\b"),
    ("vp", r"\b(?:vp|svp|evp|vice president)\b"),
    ("director", r"\b(?:director|head of)\b"),
    ("manager", r"\bmanager\b"),
    ("lead", r"\blead\b"),
)
_TEAM_WORDS = (
    ("hr", r"\b(?:hr|human resources|people|chro|recruit\w*)\b"),
    ("finance", r"\b(?:finance|cfo|accounting|controller)\b"),
    ("security", r"\b(?:security|ciso)\b"),
    ("customer-success", r"\b(?:cs|customer success)\b"),
    ("support", r"\bsupport\b"),
    ("sales", r"\b(?:sales|account executive)\b"),
    ("engineering", r"\b(?:engineering|engineer|developer|tech lead|cto)\b"),
    ("procurement", r"\b(?:procurement|vendor)\b"),
    ("product", r"\bproduct\b"),
    ("operations", r"\boperations\b"),
)
LEADERSHIP_FROM = "director"  # a team's leadership: its members at this level or above
NOBODY = "restricted:unknown"  # the audience of a restriction naming no known role: nobody sees it


def level_of(title: str) -> str | None:
    low = title.casefold()
    for level, words in _LEVEL_WORDS:
        if re.search(words, low):
            return level
    return None


def teams_of(text: str) -> list[str]:
    low = text.casefold()
    return [team for team, words in _TEAM_WORDS if re.search(words, low)]


def caller_roles(identity: dict[str, Any] | None) -> list[str]:
    """The roles of the caller a timeline's queries come from (`identity_role.authority`, a title)."""
    title = str((identity or {}).get("authority") or "")
    if not title.strip():
        return []
    level = level_of(title) or "staff"
    teams = teams_of(title)
    roles = [f"level:{level}"] + [f"team:{t}" for t in teams]
    if LEVELS.index(level) >= LEVELS.index(LEADERSHIP_FROM):
        roles += [f"team:{t}:leadership" for t in teams]
    return roles


def audience_for(who: str) -> list[str] | None:
    """The roles a "restricted to <who>" allows: "VP+" -> every level from vp up, "HR" ->
    team:hr, "CS leadership" -> team:customer-success:leadership; None when it names nothing known."""
    text = who.strip().rstrip(".").strip()
    plus = text.endswith("+")
    base = text.rstrip("+").strip()
    lead = re.fullmatch(r"(?P<team>.+?)\s+(?:leadership|leaders|management)", base, re.I)
    if lead:
        teams = teams_of(lead.group("team"))
        return [f"team:{t}:leadership" for t in teams] or None
    level = level_of(base)
    if level is not None and not teams_of(base):
        return [f"level:{lv}" for lv in LEVELS[LEVELS.index(level) :]] if plus else [f"level:{level}"]
    teams = teams_of(re.sub(r"\s+(?:team|department|dept)$", "", base, flags=re.I))
    return [f"team:{t}" for t in teams] or None


def restriction_of(value: Any) -> tuple[str, list[str]] | None:
    """(`<who>`, audience) of a `[RESTRICTED: ... restricted to <who>] ...` value, else None."""
    if not isinstance(value, str):
        return None
    m = _RESTRICTED.match(value)
    if not m:
        return None
    to = _RESTRICTED_TO.search(m.group("label"))
    who = to.group("who") if to else m.group("label")
    return who, audience_for(who) or [NOBODY]


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
    counted: list[str]  # must_mention strings in a current global value visible to the caller when asked
    skipped: list[str]  # the others (in no value, or only in superseded / session-scoped ones): not counted
    must_not_mention: list[str]


@dataclass
class ConversationTurn:
    at: datetime
    speaker: str
    text: str


@dataclass
class Converted:
    timeline_id: str
    track: str
    tenant: str
    user: str
    roles: list[str] = field(default_factory=list)
    lines: list[dict[str, Any]] = field(default_factory=list)
    queries: list[QueryCase] = field(default_factory=list)
    turns: list[ConversationTurn] = field(default_factory=list)  # every conversation turn (for leak classes)
    notes: Counter = field(default_factory=Counter)  # what was mapped, retargeted or left out


class _Converter:
    def __init__(self, timeline: dict[str, Any], user: str | None, env_mode: str, turns: bool) -> None:
        if env_mode not in ("reading", "per_key"):
            raise ValueError(f"env_mode must be 'reading' or 'per_key', not {env_mode!r}")
        self.tl = timeline
        self.env_mode = env_mode
        self.turns = turns
        tid = str(timeline.get("id") or "timeline")
        init = timeline.get("initial_state") or {}
        self.out = Converted(
            timeline_id=tid,
            track=str(timeline.get("track") or "unknown"),
            tenant=TENANT,
            user=user or (_NOT_ID.sub("_", tid)[:100] or "timeline"),
            roles=caller_roles(init.get("identity_role")),
        )
        self.key_attr: dict[str, str] = {}  # StateBench key -> attribute
        self.key_rec: dict[str, str] = {}  # StateBench key -> the record id last emitted for it
        self.sbid_rec: dict[str, str] = {}  # StateBench fact/write id -> the record id emitted for it
        self.rec_slot: dict[str, tuple[str, str]] = {}  # record id -> (attribute, scope)
        self.head: dict[tuple[str, str], str] = {}  # (attribute, scope) -> live record id (none once retracted)
        self.used_attrs: set[str] = {ENV_ATTRIBUTE, *EXTRACTOR_ATTRIBUTES}
        self.rec_value: dict[str, str] = {}  # record id -> value text
        self.rec_audience: dict[str, list[str]] = {}  # record id -> audience (absent: everyone)
        self.dependents: dict[str, list[str]] = {}  # record id -> records that depend on it
        self.needs_review: set[str] = set()  # live records whose basis was replaced or retracted
        self.derived_wait: dict[str, list[str]] = {}  # a fact id/key -> records it is derived from
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

    def _current(self, ref: str) -> str | None:
        """The live record of the slot a StateBench id or key names (an id first: it names one record)."""
        rid = self.sbid_rec.get(ref) or self.key_rec.get(ref)
        return self.head.get(self.rec_slot[rid]) if rid in self.rec_slot else None

    def _ended(self, rid: str, why: str) -> None:
        """`rid` was replaced or retracted: what depends on it needs review (transitively)."""
        todo = list(self.dependents.get(rid, []))
        while todo:
            dep = todo.pop()
            if dep in self.needs_review:
                continue
            self.needs_review.add(dep)
            self.out.notes[f"dependents_to_review_{why}"] += 1
            todo += self.dependents.get(dep, [])

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
        audience: list[str] | None = None,
        depends_on: list[str] | None = None,
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
        record: dict[str, Any] = {
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
        }
        if audience:
            record["audience"] = audience
        if depends_on:
            record["depends_on"] = depends_on
        self.out.lines.append({"at": at, "record": record})
        self.ever.append((scope, _text(value)))
        if corrects is not None and normalize_value(value) == normalize_value(self.rec_value[corrects]):
            # the same value again: the engine refreshes the current record instead of creating this
            # one (rule 1), so the current record stays the slot's head
            self.out.notes["same_value_refresh"] += 1
            return corrects
        if corrects is not None:
            self._ended(corrects, "corrected")
        self.rec_slot[rid] = (attribute, scope)
        self.rec_value[rid] = _text(value)
        if audience:
            self.rec_audience[rid] = audience
        for dep in depends_on or []:
            self.dependents.setdefault(dep, []).append(rid)
        self.head[(attribute, scope)] = rid
        return rid

    def _scope_of(self, scope: Any) -> str:
        if scope in (None, "", "global"):
            return "global"
        self.out.notes["non_global_write_scope"] += 1
        return f"session:{slug(str(scope), '-')}"

    def _dependencies(self, fact: dict[str, Any], sb_id: str | None, key: str) -> list[str]:
        """`depends_on` (StateBench ids or keys) and earlier facts' `derived_facts` naming this one,
        as the live records they resolve to; an unresolved one is left out (the engine refuses an
        unknown id)."""
        out: list[str] = []
        for ref in fact.get("depends_on") or []:
            rid = self._current(str(ref))
            self.out.notes["depends_on_mapped" if rid else "depends_on_unresolved_not_mapped"] += 1
            if rid and rid not in out:
                out.append(rid)
        for ref in (sb_id, key):
            for rid in self.derived_wait.pop(ref or "", []):
                self.out.notes["derived_facts_mapped"] += 1
                if rid not in out:
                    out.append(rid)
        return out

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
        if _INVALIDATED.match(_text(value)):
            self.invalidate(at, key, target, sb_id)
            return
        if target is not None:
            attribute, scope = self.rec_slot[target]  # the engine corrects only within one slot
            current = self.head.get((attribute, scope))
            if current is not None and current != target:
                self.out.notes["supersedes_retargeted_to_current"] += 1
            corrects = current
            self.key_attr[key] = attribute
        else:
            attribute = self._attribute_for(key)
            corrects = self.head.get((attribute, scope))
        restriction = restriction_of(value)
        if restriction is not None:
            self.out.notes["restricted_audience" if NOBODY not in restriction[1] else "restricted_to_unknown_role"] += 1
        depends_on = self._dependencies(fact, sb_id, key)
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
            audience=restriction[1] if restriction else None,
            depends_on=depends_on,
        )
        self.key_rec[key] = rid
        if sb_id and sb_id != "W-AUTO":
            self.sbid_rec[sb_id] = rid
        for ref in fact.get("derived_facts") or []:  # those facts, when they come, depend on this one
            self.derived_wait.setdefault(str(ref), []).append(rid)
        self.out.notes[f"facts_{event}"] += 1

    def invalidate(self, at: str, key: str, target: str | None, sb_id: str | None) -> None:
        """`[INVALIDATED - was based on wrong data: X] Original conclusion: Y` superseding the
        conclusion: the conclusion no longer holds and nothing replaces it, so its record is
        retracted (the slot has no current value). The text itself restates the stale conclusion
        and the stale basis: it is not stored."""
        if target is None:
            self.out.notes["invalidated_without_target_not_mapped"] += 1
            return
        slot = self.rec_slot[target]
        self.key_attr[key] = slot[0]
        # a later write naming this key or id goes to the same slot (which then has no current value)
        self.key_rec[key] = target
        if sb_id and sb_id != "W-AUTO":
            self.sbid_rec[sb_id] = target
        current = self.head.pop(slot, None)
        if current is None:
            self.out.notes["invalidated_target_already_gone"] += 1
            return
        self.out.lines.append(
            {
                "at": _ts(at),
                "command": {"op": "retract", "tenant": self.out.tenant, "user": self.out.user, "record_id": current},
            }
        )
        self.needs_review.discard(current)
        self._ended(current, "retracted")
        self.out.notes["invalidated_retracted"] += 1

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

    def turn(self, ev: dict[str, Any]) -> None:
        speaker = str(ev.get("speaker") or "")
        text = str(ev.get("text") or "")
        at = _ts(ev["ts"])
        self.out.turns.append(ConversationTurn(parse_time(at), speaker, text))
        role = speaker if speaker in ("user", "assistant", "system") else None
        if not self.turns or role is None or not text.strip():
            self.out.notes["conversation_turns_not_parsed"] += 1
            return
        self.out.lines.append(
            {
                "at": at,
                "turn": {
                    "tenant": self.out.tenant,
                    "user": self.out.user,
                    "session": QUERY_SESSION,  # the queries are asked in the same conversation
                    "project": None,
                    "role": role,
                    "text": text,
                },
            }
        )
        self.out.notes[f"conversation_turns_extracted_{role}"] += 1

    def _usable(self, rid: str) -> bool:
        audience = self.rec_audience.get(rid)
        return rid not in self.needs_review and (not audience or bool(set(audience) & set(self.out.roles)))

    def query(self, event: dict[str, Any]) -> None:
        gt = event.get("ground_truth") or {}
        mm = [str(s) for s in gt.get("must_mention") or []]
        mnm = [str(s) for s in gt.get("must_not_mention") or []]
        # a string the query must mention and must not mention at once cannot be scored either way
        both = {s.casefold() for s in mm} & {s.casefold() for s in mnm}
        if both:
            self.out.notes["must_not_mention_also_must_mention"] += len(both)
            mnm = [s for s in mnm if s.casefold() not in both]
        # fresh = the current value of each global slot the caller may see (what the engine must show)
        fresh = [
            self.rec_value[rid].casefold()
            for (_, scope), rid in self.head.items()
            if scope == "global" and self._usable(rid)
        ]
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
                    "roles": list(self.out.roles),
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
        if self.out.roles:
            self.out.notes["caller_roles_from_identity_role"] += 1
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
        events = list(self.tl.get("events") or [])
        # in the order they happened: a timeline may list a write after the turns that follow it
        # in time, and a correction can only find a record written before it
        ordered = sorted(events, key=lambda ev: _ts(ev.get("ts")))
        if ordered != events:
            self.out.notes["events_put_in_time_order"] += 1
        for ev in ordered:
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
                self.turn(ev)
            else:
                self.out.notes[f"event_{etype}_not_mapped"] += 1
        return self.out


def mentions(text: str, s: str) -> bool:
    """Whether case-folded `text` mentions `s` as written, not inside a longer word or number
    ("500" is not mentioned by "1500", nor "$150" by "$1500")."""
    needle = s.casefold()
    head = r"(?<![0-9a-z])" if needle[:1].isalnum() else ""
    tail = r"(?![0-9a-z])" if needle[-1:].isalnum() else ""
    return re.search(head + re.escape(needle) + tail, text) is not None


def _first_ts(tl: dict[str, Any]) -> str | None:
    for ev in tl.get("events") or []:
        if ev.get("ts"):
            return str(ev["ts"])
    return None


def convert(
    timeline: dict[str, Any], *, user: str | None = None, env_mode: str = "reading", turns: bool = False
) -> Converted:
    """One StateBench timeline -> scenario lines (records, commands, queries; with `turns`, also the
    conversation's turns for the extractor)."""
    return _Converter(timeline, user, env_mode, turns).run()


def read_timelines(path: str | Path) -> list[dict[str, Any]]:
    out = []
    for raw in Path(path).read_text(encoding="utf-8").splitlines():
        if raw.strip():
            out.append(orjson.loads(raw))
    return out


# --- what the engine may show: an independent reading of the ops it was given -----------------


@dataclass
class _Entry:
    rec: Record
    from_turn: bool = False  # proposed by the extractor from a conversation turn
    ended: str | None = None  # why it may no longer be used: superseded, retract, forget, ...
    ended_at: datetime | None = None


class Expected:
    """Which records the engine may use, read from the ops it was given, not from the engine: a
    record stops being usable when an explicit correction replaces it, a retract/forget/reject/
    expire names it, its valid_until passes, or a record it depends on stops (transitively); at a
    query it must also be in the request's scopes and audience. Deliberately permissive where the
    outcome depends on the engine's ranking (an unlinked second value, `corrects_current` or
    `latest` among several candidates): nothing is ended then, so a leak is called the engine's
    only when the input leaves no doubt."""

    def __init__(self) -> None:
        self.entries: list[_Entry] = []
        self.by_id: dict[str, _Entry] = {}  # record ids, and ids of ops that refreshed a record

    def _live(self, attribute: str, scope: str, subject: str = "user") -> list[_Entry]:
        return [
            e
            for e in self.entries
            if e.ended is None and e.rec.attribute == attribute and e.rec.scope == scope and e.rec.subject == subject
        ]

    def _end(self, e: _Entry, why: str, at: datetime) -> None:
        if e.ended is None:
            e.ended, e.ended_at = why, at

    def apply(self, op: OpIn, from_turn: bool = False) -> None:
        try:
            _, parsed = validate_op(op, op.op_id)
        except (Rejected, ValueError):
            return  # refused by validation: the engine rejects it too, nothing changes
        if isinstance(parsed, Record):
            self._record(parsed, op.at, from_turn)
        else:
            self._command(parsed, op.at)

    def _record(self, rec: Record, at: datetime, from_turn: bool) -> None:
        live = self._live(rec.attribute, rec.scope, rec.subject)
        target: _Entry | None = None
        if rec.corrects:
            t = self.by_id.get(rec.corrects)
            target = t if t in live else None
        elif rec.corrects_current and len(live) == 1:
            target = live[0]
        if target is not None:
            if target.rec.normalized_value == rec.normalized_value:
                self.by_id[rec.id] = target  # refreshed: the op's id names the record it refreshed
                return
            self._end(target, "superseded", at)
        else:
            same = [e for e in live if e.rec.normalized_value == rec.normalized_value]
            if same:
                self.by_id[rec.id] = same[0]
                return
        e = _Entry(rec, from_turn)
        self.entries.append(e)
        self.by_id[rec.id] = e

    def _matching(self, m: Match) -> list[_Entry]:
        wanted = normalize_value(m.value) if m.value is not None else None
        return [
            e
            for e in self.entries
            if e.ended is None
            and e.rec.subject == m.subject
            and m.attribute_matches(e.rec.attribute)
            and (m.scope is None or e.rec.scope == m.scope)
            and (wanted is None or e.rec.normalized_value == wanted)
        ]

    def _command(self, cmd: Any, at: datetime) -> None:
        op = cmd.op
        if op in ("retract", "forget", "reject", "expire"):
            record_id = getattr(cmd, "record_id", None)
            if record_id:
                found = self.by_id.get(record_id)
                targets = [found] if found is not None and found.ended is None else []
            else:
                targets = self._matching(cmd.match) if getattr(cmd, "match", None) is not None else []
                if isinstance(cmd, RetractCommand) and cmd.latest and targets:
                    newest = max(e.rec.observed_at for e in targets)
                    newest_ones = [e for e in targets if e.rec.observed_at == newest]
                    targets = newest_ones if len(newest_ones) == 1 else []  # a tie: the engine decides
            for e in targets:
                self._end(e, op, at)
        elif op == "erase_user":
            for e in self.entries:
                self._end(e, "erased", at)
        elif op == "correct":
            found = self.by_id.get(cmd.record_id)
            if found is not None and found.ended is None:
                self._end(found, "superseded", at)
        elif op == "move":
            for e in self._live(cmd.attribute, cmd.from_scope, cmd.subject):
                e.rec = e.rec.model_copy(update={"scope": cmd.to_scope})

    def _dependency_ended(self, e: _Entry, at: datetime, seen: set[int]) -> str | None:
        for dep in e.rec.depends_on:
            if dep.startswith("slot:"):
                attribute = dep[len("slot:") :]
                for o in self.entries:
                    if o.rec.attribute == attribute and o.ended_at is not None and o.ended_at >= e.rec.ingested_at:
                        return f"depends on slot {attribute}, whose {o.rec.id} was {o.ended}"
                continue
            base = self.by_id.get(dep)
            if base is None or id(base) in seen:
                continue
            seen.add(id(base))
            if base.ended is not None:
                return f"depends on {base.rec.id}, {base.ended}"
            if base.rec.valid_until is not None and base.rec.valid_until <= at:
                return f"depends on {base.rec.id}, expired"
            deeper = self._dependency_ended(base, at, seen)
            if deeper:
                return f"depends on {base.rec.id}, which {deeper}"
        return None

    def why_not(self, e: _Entry, at: datetime, scopes: Sequence[str], roles: Sequence[str]) -> str | None:
        """None when the record may be used for this request at `at`; else why not."""
        if e.ended is not None:
            return e.ended
        if e.rec.valid_until is not None and e.rec.valid_until <= at:
            return "expired"
        if e.rec.scope not in scopes:
            return f"scope {e.rec.scope}"
        if e.rec.audience and not set(e.rec.audience) & set(roles):
            return "audience"
        return self._dependency_ended(e, at, set())

    def extracted(self, item: ContextItem) -> bool:
        """Is the item one of the extractor's records (and none of the structured writes')?"""
        entries = self.entry_for(item)
        return bool(entries) and all(e.from_turn for e in entries)

    def entry_for(self, item: ContextItem) -> list[_Entry]:
        """The entries a context item can be: by id (or an id that refreshed it), else by slot and value."""
        found = self.by_id.get(item.id)
        if found is not None:
            return [found]
        wanted = (item.attribute, item.scope, normalize_value(item.value))
        return [e for e in self.entries if (e.rec.attribute, e.rec.scope, e.rec.normalized_value) == wanted]


# --- leak classes -----------------------------------------------------------------------------


@dataclass
class LeakVerdict:
    string: str
    cls: str  # "a" | "b" | "c"
    detail: str


def _word(s: str) -> re.Pattern[str]:
    return re.compile(r"(?<!\w)" + re.escape(s.casefold()) + r"(?!\w)")


def classify_leak(
    s: str,
    items: Sequence[ContextItem],
    expected: Expected,
    at: datetime,
    scopes: Sequence[str],
    roles: Sequence[str],
    must_mention: Sequence[str],
    turns: Sequence[ConversationTurn],
    context_low: str,
) -> LeakVerdict:
    """(a) a record carrying `s` may not be used by the ops the engine was given; (b) every record
    carrying it is current, but for each a later user turn (before the query) states a must_mention
    string that no record of the structured writes in the context holds, without repeating `s`: the
    correction exists only in the conversation (with --turns the extractor may have stored the new
    value in a slot of its own, beside the stale one: that is still (b), the stale record stands);
    (c) otherwise: `s` is part of a current, valid value."""
    low = s.casefold()
    carriers = [it for it in items if low in it.text.casefold()]
    usable: list[tuple[ContextItem, _Entry]] = []
    for it in carriers:
        entries = expected.entry_for(it)
        if not entries:
            return LeakVerdict(s, "a", f"{it.id} ({it.attribute}) is in no op the engine was given")
        reasons = [expected.why_not(e, at, scopes, roles) for e in entries]
        ok = [e for e, r in zip(entries, reasons, strict=True) if r is None]
        if not ok:
            return LeakVerdict(s, "a", f"{it.id} ({it.attribute}) shown although {reasons[0]}")
        usable.append((it, ok[0]))
    # what the context holds apart from the extractor's own records
    held = "\n".join(it.text for it in items if not expected.extracted(it)).casefold()
    missing = [m for m in must_mention if m.casefold() not in held]
    stale = _word(s)
    corrected: list[str] = []
    for it, e in usable:
        since = e.rec.observed_at
        hit = next(
            (
                (t, m)
                for t in turns
                if t.speaker == "user" and since < t.at <= at and not stale.search(t.text.casefold())
                for m in missing
                if _word(m).search(t.text.casefold())
            ),
            None,
        )
        if hit is None:
            return LeakVerdict(s, "c", f"in current {it.attribute}: {it.text[:120]}")
        beside = " (extracted beside it, not replacing it)" if hit[1].casefold() in context_low else ""
        corrected.append(f"{it.attribute} corrected only in the turn at {iso(hit[0].at)} ({hit[1]!r}){beside}")
    return LeakVerdict(s, "b", "; ".join(corrected))


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
    verdicts: list[LeakVerdict] = field(default_factory=list)

    @property
    def leak_class(self) -> str | None:
        """The query's class: its worst leak (a before b before c)."""
        return min((v.cls for v in self.verdicts), default=None)


@dataclass
class TrackStats:
    timelines: int = 0
    queries: int = 0
    leaking_queries: int = 0
    mm_counted: int = 0
    mm_included: int = 0
    mm_skipped: int = 0
    leaks_a: int = 0
    leaks_b: int = 0
    leaks_c: int = 0

    def add(self, o: TrackStats) -> None:
        for f in self.__dataclass_fields__:
            setattr(self, f, getattr(self, f) + getattr(o, f))

    @property
    def leak_rate(self) -> float | None:
        return self.leaking_queries / self.queries if self.queries else None

    @property
    def inclusion_rate(self) -> float | None:
        return self.mm_included / self.mm_counted if self.mm_counted else None

    @property
    def classes(self) -> str:
        return f"{self.leaks_a}/{self.leaks_b}/{self.leaks_c}"


@dataclass
class Table:
    label: str
    tracks: dict[str, TrackStats] = field(default_factory=dict)
    outcomes: list[QueryOutcome] = field(default_factory=list)
    engine_notes: Counter = field(default_factory=Counter)  # rejected ops, ignored corrections, retractions, ...
    mapping_notes: Counter = field(default_factory=Counter)
    extraction_notes: Counter = field(default_factory=Counter)  # what the extractor made of the turns
    seconds: float = 0.0
    turns: bool = False

    @property
    def total(self) -> TrackStats:
        t = TrackStats()
        for s in self.tracks.values():
            t.add(s)
        return t

    def leaks(self, tracks: Iterable[str] | None = None) -> int:
        wanted = set(tracks) if tracks is not None else None
        return sum(s.leaking_queries for name, s in self.tracks.items() if wanted is None or name in wanted)


_ENGINE_CHANGES = ("correction_ignored", "pending_review", "conflicted", "retracted", "needs_review")


def _extraction_service() -> Any:
    """The extraction processor's own turn -> ops step, with the rule extractor (no Kafka involved)."""
    from slotstream.memory.extraction import RuleExtractor
    from slotstream.processors.extraction import ExtractionService

    return ExtractionService(RuleExtractor())


class _TimelineRun:
    """One converted timeline through an engine: everything between two queries applied as one
    batch (turn lines become the extractor's ops, in place), each query answered as of its `at`."""

    def __init__(self, engine: Any, conv: Converted, notes: Counter, extraction_notes: Counter, service: Any) -> None:
        self.engine, self.conv, self.service = engine, conv, service
        self.notes, self.extraction_notes = notes, extraction_notes
        self.outcomes: list[QueryOutcome] = []
        self.batch: list[OpIn] = []
        self.from_turn: list[bool] = []  # per op of the batch: proposed by the extractor
        self.by_line = {q.line: q for q in conv.queries}
        self.expected = Expected()

    def flush(self) -> None:
        if not self.batch:
            return
        for op, extracted, res in zip(self.batch, self.from_turn, self.engine.apply_many(self.batch), strict=True):
            # the expectation reads the op itself, never the engine's outcome: an op the engine
            # refuses beyond validation, and which would have kept a stale value out, shows as (a)
            self.expected.apply(op, extracted)
            if res.outcome in ("rejected", "dropped"):
                self.notes[f"{res.outcome}:{res.reason}"] += 1
            for ch in res.changes:
                if ch.get("type") in _ENGINE_CHANGES:
                    self.notes[str(ch["type"])] += 1
        self.batch.clear()
        self.from_turn.clear()

    def query(self, i: int, line: dict[str, Any]) -> None:
        self.flush()
        q = self.by_line[i]
        request = ContextRequest.model_validate(line["query"])
        at = parse_time(line["at"])
        resp = self.engine.context(request, at)
        # the memory the context carries: the rendered record lines (the fixed section headings,
        # e.g. "## Project knowledge and decisions", are renderer text, not memory)
        low = "\n".join(item.text for item in resp.items).casefold()
        leaked = [s for s in q.must_not_mention if mentions(low, s)]
        turns, expected = self.conv.turns, self.expected
        verdicts = [
            classify_leak(s, resp.items, expected, at, request.scopes(), request.roles, q.must_mention, turns, low)
            for s in leaked
        ]
        self.outcomes.append(
            QueryOutcome(
                self.conv.timeline_id,
                self.conv.track,
                q.prompt,
                leaked=leaked,
                missing=[s for s in q.counted if s.casefold() not in low],
                counted=len(q.counted),
                skipped=len(q.skipped),
                context=resp.context,
                verdicts=verdicts,
            )
        )

    def turn(self, op_id: str, line: dict[str, Any]) -> None:
        from slotstream.memory.extraction import Turn

        self.service = self.service or _extraction_service()
        try:
            turn = Turn.model_validate({**line["turn"], "at": line["at"], "turn_id": op_id})
        except ValueError:
            self.extraction_notes["turn_invalid"] += 1
            return
        out = self.service.ops_for_turn(turn, op_prefix=op_id)
        self.extraction_notes["turns"] += 1
        for reason in out.refused:
            self.extraction_notes[f"refused:{reason}"] += 1
        for op in out.ops:
            if op.command is not None:
                self.extraction_notes[f"command:{op.command.get('op')}"] += 1
            else:
                assert op.record is not None
                linked = ":corrects_current" if op.record.get("corrects_current") else ""
                self.extraction_notes[f"record:{op.record.get('attribute')}{linked}"] += 1
        self.batch.extend(out.ops)
        self.from_turn.extend([True] * len(out.ops))

    def run(self) -> list[QueryOutcome]:
        for i, line in enumerate(self.conv.lines):
            op_id = f"sb:{self.conv.user}:{i}"
            if "query" in line:
                self.query(i, line)
            elif "turn" in line:
                self.turn(op_id, line)
            else:
                kind = "record" if "record" in line else "command"
                self.batch.append(OpIn(at=line["at"], op_id=op_id, **{kind: line[kind]}))
                self.from_turn.append(False)
        self.flush()
        return self.outcomes


def run_converted(
    engine: Any,
    conv: Converted,
    notes: Counter | None = None,
    extraction_notes: Counter | None = None,
    service: Any = None,
) -> list[QueryOutcome]:
    """Apply a converted timeline: everything between two queries as one batch (turn lines become
    the extractor's ops, in place), each query as of its `at`; classify every leak."""
    notes = notes if notes is not None else Counter()
    extraction_notes = extraction_notes if extraction_notes is not None else Counter()
    return _TimelineRun(engine, conv, notes, extraction_notes, service).run()


def evaluate(
    paths: Sequence[str | Path],
    engine_factory: Callable[[], Any],
    *,
    tracks: Iterable[str] | None = None,
    env_mode: str = "reading",
    turns: bool = False,
    label: str | None = None,
) -> Table:
    """Run every timeline of `paths` through an engine from `engine_factory()` (called once per path;
    each timeline is its own user there) and measure per track."""
    wanted = set(tracks) if tracks else None
    table = Table(label or ", ".join(Path(p).name for p in paths), turns=turns)
    service = _extraction_service() if turns else None
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
            conv = convert(tl, user=user, env_mode=env_mode, turns=turns)
            table.mapping_notes.update(conv.notes)
            outs = run_converted(engine, conv, table.engine_notes, table.extraction_notes, service)
            st = table.tracks.setdefault(track, TrackStats())
            st.timelines += 1
            for o in outs:
                st.queries += 1
                st.leaking_queries += bool(o.leaked)
                st.mm_counted += o.counted
                st.mm_included += o.counted - len(o.missing)
                st.mm_skipped += o.skipped
                cls = o.leak_class
                if cls is not None:
                    setattr(st, f"leaks_{cls}", getattr(st, f"leaks_{cls}") + 1)
            table.outcomes.extend(outs)
    table.seconds = time.perf_counter() - start
    return table


# --- printing -------------------------------------------------------------------------------


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.1f}"


# mappings printed even when the data never triggers them (so a 0 says "looked, found none")
SHOWN_MAPPINGS = (
    "caller_roles_from_identity_role",
    "depends_on_mapped",
    "derived_facts_mapped",
    "invalidated_retracted",
    "restricted_audience",
)


def _counter_line(c: Counter, always: Iterable[str] = ()) -> str:
    keys = {k for k, v in c.items() if v} | set(always)
    return ", ".join(f"{k} {c[k]}" for k in sorted(keys))


def format_table(table: Table) -> str:
    head = (
        f"{'track':<26} {'timelines':>9} {'queries':>7} {'stale-leak %':>14} {'leaks a/b/c':>12} "
        f"{'fresh-inclusion %':>19} {'must_mention counted/skipped':>28}"
    )
    mode = "structured writes + conversation turns (--turns)" if table.turns else "structured writes"
    rows = [f"StateBench {table.label}  [{mode}]  ({table.seconds:.1f} s)", head, "-" * len(head)]

    def row(name: str, s: TrackStats) -> str:
        leak = f"{_pct(s.leak_rate)} ({s.leaking_queries})"
        inc = f"{_pct(s.inclusion_rate)} ({s.mm_included}/{s.mm_counted})"
        return (
            f"{name:<26} {s.timelines:>9} {s.queries:>7} {leak:>14} {s.classes:>12} {inc:>19} "
            f"{f'{s.mm_counted}/{s.mm_skipped}':>28}"
        )

    for name in sorted(table.tracks, key=lambda n: (n not in TARGET_TRACKS, n)):
        rows.append(row(("* " if name in TARGET_TRACKS else "  ") + name, table.tracks[name]))
    rows.append("-" * len(head))
    rows.append(row("  total", table.total))
    rows.append("* target track: stale-leak must be 0. leak = a must_not_mention string in the rendered records;")
    rows.append("  leaks a/b/c = leaking queries by class: (a) the engine used a record the ops it was given rule out,")
    rows.append("  (b) the correction exists only in the conversation, (c) the string is in a current, valid value;")
    rows.append("  inclusion counts only the must_mention strings found in a current value of the timeline's writes")
    rows.append(f"engine notes: {_counter_line(table.engine_notes) or 'none'}")
    rows.append(f"mapping: {_counter_line(table.mapping_notes, SHOWN_MAPPINGS)}")
    if table.turns:
        rows.append(f"extraction: {_counter_line(table.extraction_notes) or 'nothing'}")
    return "\n".join(rows)


def format_outcome(o: QueryOutcome) -> str:
    lines = [f"  {o.track} {o.timeline_id}: {o.prompt!r}"]
    for v in o.verdicts:
        lines.append(f"    LEAK ({v.cls}) {v.string!r}: {v.detail}")
    if o.leaked:
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
    turns: bool = False,
) -> int:
    """`slotstream eval statebench FILE... [--turns]`: one table per file, then a closing line. A
    measurement, not a gate: exit 0 when it ran, 2 when a file is missing."""
    from slotstream.eval.scenarios import fresh_namespace
    from slotstream.local.redis_server import configured_or_local
    from slotstream.state.engine import Engine
    from slotstream.state.namespaces import drop_namespace

    out = out or sys.stdout
    missing = [str(f) for f in files if not Path(f).is_file()]
    if missing:
        print(f"statebench: no such file: {', '.join(missing)}", file=out)
        return 2
    tables: list[Table] = []
    with configured_or_local(settings) as client:
        for path in files:
            ns = fresh_namespace("sb")
            try:
                table = evaluate(
                    [path],
                    functools.partial(Engine, client, namespace=ns),
                    tracks=tracks,
                    turns=turns,
                    label=str(path),
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
        f"statebench: {len(tables)} file(s), {total.timelines} timelines, {total.queries} queries"
        f"{' (with --turns)' if turns else ''}; stale-leak {_pct(total.leak_rate)}% overall, "
        f"fresh-inclusion {_pct(total.inclusion_rate)}%; leaks a/b/c {total.classes}; "
        f"leaking queries on the target tracks ({target.queries} queries): {verdict}",
        file=out,
        flush=True,
    )
    return 0
