"""`slotstream eval open-language`: does what users say of themselves, in their own words, reach the
requests it matters for, and only those; and does ordinary chat leave no memory behind?

A corpus (`corpora/open_language_*`, written by authors who never read the extractor) holds:
- `statements_{en,zh}.jsonl`: `{"id", "lang", "domain", "statement", "related", "unrelated",
  "critical", "form"}`: a lasting statement, a request where it must be taken into account, and a
  request from another area of life where it must not appear;
- `distractors_{en,zh}.jsonl`: `{"id", "lang", "kind", "text"}`: chat that states nothing lasting
  about the writer (code and writing requests, pasted text, questions, small talk, other people,
  role-play, passing states, instructions for the task at hand);
- `corrections.jsonl`: conversations where a statement is corrected, forgotten, retracted,
  bound in time, or said again unchanged, then a request whose context must hold the new value
  and not the old one (`Conversation`).

Each statement is a conversation of one user: the statement, then two distractor turns of the same
language (unrelated chat), all in one session; a day later, in a new session, the related request
and the unrelated one are looked up. The statement *reaches* its request when a record made from
its turn is used in the context, and is *over-included* when one is used for the unrelated request.
Each distractor, alone for a user of its own, is a *false memory* when it leaves a lasting record
(used outside its session). Pure: the engine's own extraction, validation, reconciliation and
selection, in memory (the read path on Redis runs the same `select`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from slotstream.memory.errors import Rejected
from slotstream.memory.extraction import Extractor, RuleExtractor, Turn
from slotstream.memory.models import ContextRequest, ContextResponse, OpIn
from slotstream.memory.reconcile import UserView, reconcile
from slotstream.memory.selection import from_record, select
from slotstream.memory.validation import validate_op

from .corpus import LANGS, Cell, corpus_path, fraction, pct, read_jsonl

AT = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)  # a Monday: the statement; the requests a day later
REACHED_TARGET, OVER_TARGET, FALSE_MEMORY_TARGET = 0.90, 0.10, 0.02


@dataclass(frozen=True, slots=True)
class Statement:
    id: str
    lang: str
    domain: str
    statement: str
    related: str
    unrelated: str
    critical: bool
    form: str


@dataclass(frozen=True, slots=True)
class Distractor:
    id: str
    lang: str
    kind: str
    text: str


def load(corpus: Path) -> tuple[list[Statement], list[Distractor]]:
    """A corpus's statements and distractors; a corpus of conversations only has neither."""
    if not any(corpus.glob("statements_*.jsonl")) and (corpus / "corrections.jsonl").exists():
        return [], []
    # (a corpus may hold one language: the other's files are absent)
    langs = [lang for lang in LANGS if (corpus / f"statements_{lang}.jsonl").exists()]
    statements = [
        Statement(
            r["id"], r["lang"], r["domain"], r["statement"], r["related"], r["unrelated"], r["critical"], r["form"]
        )
        for lang in langs
        for r in read_jsonl(corpus / f"statements_{lang}.jsonl")
    ]
    distractors = [
        Distractor(r["id"], r["lang"], r["kind"], r["text"])
        for lang in langs
        for r in read_jsonl(corpus / f"distractors_{lang}.jsonl")
    ]
    return statements, distractors


class MemoryUser:
    """One user's memory in process: turns through the extractor, ops through validation and
    reconciliation, lookups through selection."""

    def __init__(self, extractor: Extractor, name: str) -> None:
        self.extractor, self.name = extractor, name
        self.view = UserView()
        self.turns = 0

    def say(self, text: str, at: datetime, session: str) -> list[str]:
        """A user turn; the ids of the records it made."""
        self.turns += 1
        turn = Turn(tenant="eval", user=self.name, session=session, text=text, at=at, turn_id=f"t{self.turns}")
        made: list[str] = []
        for n, proposal in enumerate(self.extractor.extract(turn).items):
            raw: dict[str, Any] = {"at": at, "op_id": f"t{self.turns}#{n}"}
            if proposal.command is not None:
                raw["command"] = proposal.command
            else:
                record = dict(proposal.record or {})
                if proposal.link_current and not record.get("corrects"):
                    record["corrects_current"] = True
                raw["record"] = record
            try:
                op_id, parsed = validate_op(OpIn.model_validate(raw))
                transition = reconcile(self.view, parsed, at, op_id)
            except Rejected:
                continue
            self.view.apply(transition)
            made += transition.created
        return made

    def context(self, text: str, at: datetime, session: str, max_items: int = 8) -> ContextResponse:
        request = ContextRequest(tenant="eval", user=self.name, session=session, text=text, max_items=max_items)
        candidates = [from_record(r) for r in self.view.records.values()]
        return select(request, candidates, at, list(self.view.suppressions.values()))

    def lasting(self, ids: list[str]) -> list[str]:
        """Of these records, those used outside their session (not session-scoped, still live)."""
        return [
            rid
            for rid in ids
            if not self.view.records[rid].scope.startswith("session:")
            and self.view.records[rid].status.value in ("active", "candidate")
        ]


@dataclass
class Result:
    captured: dict[tuple[str, str], Cell] = field(default_factory=dict)  # (domain, lang)
    reached: dict[tuple[str, str], Cell] = field(default_factory=dict)
    over: dict[tuple[str, str], Cell] = field(default_factory=dict)
    false_memory: dict[tuple[str, str], Cell] = field(default_factory=dict)  # (kind, lang)
    misses: list[tuple[Statement, str]] = field(default_factory=list)  # (line, what happened)
    leaks: list[tuple[Statement, list[str]]] = field(default_factory=list)  # (line, the records shown)
    remembered: list[tuple[Distractor, list[str]]] = field(default_factory=list)

    def total(self, cells: dict[tuple[str, str], Cell], lang: str | None = None) -> Cell:
        out = Cell()
        for (_, lg), cell in cells.items():
            if lang is None or lg == lang:
                out.merge(cell)
        return out


def _chatter(distractors: list[Distractor], lang: str, index: int) -> list[str]:
    """Two distractor turns of the language, picked by the statement's place in the corpus."""
    pool = [d.text for d in distractors if d.lang == lang]
    return [pool[(2 * index) % len(pool)], pool[(2 * index + 1) % len(pool)]] if pool else []


def run_statement(extractor: Extractor, line: Statement, chatter: list[str]) -> tuple[bool, bool, list[str], str]:
    """(captured, reached, the records over-included, what happened) for one statement's
    conversation."""
    user = MemoryUser(extractor, line.id)
    made = user.lasting(user.say(line.statement, AT, "s1"))
    for k, text in enumerate(chatter):
        user.say(text, AT + timedelta(minutes=5 * (k + 1)), "s1")
    later = AT + timedelta(days=1)
    related = user.context(line.related, later, "s2")
    unrelated = user.context(line.unrelated, later + timedelta(minutes=5), "s2")
    reached = any(rid in related.used_ids for rid in made)
    over = [f"{user.view.records[rid].attribute}" for rid in made if rid in unrelated.used_ids]
    why = "nothing stored" if not made else ("not related" if not reached else "")
    return bool(made), reached, over, why


def evaluate(corpus: Path, extractor: Extractor | None = None) -> Result:
    extractor = extractor or RuleExtractor()
    statements, distractors = load(corpus)
    res = Result()
    for index, line in enumerate(statements):
        key = (line.domain, line.lang)
        captured, reached, over, why = run_statement(extractor, line, _chatter(distractors, line.lang, index))
        res.captured.setdefault(key, Cell()).add(captured)
        res.reached.setdefault(key, Cell()).add(reached)
        res.over.setdefault(key, Cell()).add(bool(over))
        if not reached:
            res.misses.append((line, why))
        if over:
            res.leaks.append((line, over))
    for chat in distractors:
        user = MemoryUser(extractor, chat.id)
        kept = user.lasting(user.say(chat.text, AT, "s1"))
        res.false_memory.setdefault((chat.kind, chat.lang), Cell()).add(bool(kept))
        if kept:
            res.remembered.append(
                (chat, [f"{user.view.records[rid].attribute}: {user.view.records[rid].statement}" for rid in kept])
            )
    return res


@dataclass(frozen=True, slots=True)
class Conversation:
    """A corrections-corpus line: turns (a statement, chat, then a correction, a forget, a
    retraction, a time bound, or a plain restatement that must keep the value), then a request
    whose context must hold `must_include` and none of `must_exclude`."""

    id: str
    lang: str
    kind: str
    turns: list[tuple[datetime, str]]
    request: tuple[datetime, str]
    must_include: list[str]
    must_exclude: list[str]


def load_conversations(corpus: Path) -> list[Conversation]:
    path = corpus / "corrections.jsonl"
    if not path.exists():
        return []
    return [
        Conversation(
            r["id"],
            r["lang"],
            r["kind"],
            [(datetime.fromisoformat(t["at"]), t["text"]) for t in r["turns"]],
            (datetime.fromisoformat(r["request"]["at"]), r["request"]["text"]),
            r["must_include"],
            r["must_exclude"],
        )
        for r in read_jsonl(path)
    ]


def run_conversation(extractor: Extractor, line: Conversation) -> tuple[bool, list[str], list[str]]:
    """(right, what is missing, what is stale): the turns in one session, the request a session later."""
    user = MemoryUser(extractor, line.id)
    for at, text in line.turns:
        user.say(text, at, "s1")
    at, text = line.request
    context = user.context(text, at, "s2").context.casefold()
    missing = [w for w in line.must_include if w.casefold() not in context]
    stale = [w for w in line.must_exclude if w.casefold() in context]
    return not missing and not stale, missing, stale


def evaluate_conversations(corpus: Path, extractor: Extractor | None = None) -> dict[tuple[str, str], Cell]:
    """Per (kind, language): the conversations whose request gets the right context."""
    extractor = extractor or RuleExtractor()
    out: dict[tuple[str, str], Cell] = {}
    for line in load_conversations(corpus):
        right, _, _ = run_conversation(extractor, line)
        out.setdefault((line.kind, line.lang), Cell()).add(right)
    return out


def _row(label: str, cells: list[Cell]) -> str:
    return f"{label:<20}" + "".join(f" {c.n:>4} {pct(c):>7}" for c in cells)


def report_lines(res: Result, verbose: bool = False) -> list[str]:
    if not res.captured and not res.false_memory:
        return []  # a corpus of conversations only: they are reported on their own
    out = ["open-language memory: per domain, statements (n) and the share captured / reaching their request /", ""]
    out[0] += " shown for an unrelated one"
    head = "".join(f" {'n':>4} {name + '-' + lang:>7}" for lang in LANGS for name in ("capt", "reach", "over"))
    out.append(f"{'domain':<20}{head}")
    for domain in sorted({d for d, _ in res.reached}):
        cells = [
            cells_by[(domain, lang)] if (domain, lang) in cells_by else Cell()
            for lang in LANGS
            for cells_by in (res.captured, res.reached, res.over)
        ]
        out.append(_row(domain, cells))
    totals = [res.total(cells, lang) for lang in LANGS for cells in (res.captured, res.reached, res.over)]
    out.append(_row("(all)", totals))
    out.append("")
    kinds = sorted({k for k, _ in res.false_memory})
    for lang in LANGS:
        if not res.total(res.false_memory, lang).n:
            continue
        per_kind = ", ".join(
            f"{kind} {res.false_memory[(kind, lang)].hits}/{res.false_memory[(kind, lang)].n}"
            for kind in kinds
            if (kind, lang) in res.false_memory
        )
        out.append(f"false memories, {lang}: {fraction(res.total(res.false_memory, lang))} ({per_kind})")
    out.append("")
    out += _verdict(res)
    if verbose:
        out += _details(res)
    return out


def _verdict(res: Result) -> list[str]:
    lines = []
    for lang in LANGS:
        reached, over, false = (res.total(c, lang) for c in (res.reached, res.over, res.false_memory))
        if not reached.n and not false.n:
            continue  # a language the corpus does not hold
        met = reached.rate >= REACHED_TARGET and over.rate <= OVER_TARGET and false.rate <= FALSE_MEMORY_TARGET
        lines.append(
            f"{lang}: reached {pct(reached).strip()} (target >= 90%), over-inclusion {pct(over).strip()} "
            f"(<= 10%), false memories {pct(false).strip()} (<= 2%): {'MET' if met else 'NOT MET'}"
        )
    return lines


def _details(res: Result) -> list[str]:
    out = ["", "missed:"]
    why = Counter(reason for _, reason in res.misses)
    out.append("  by cause: " + ", ".join(f"{k} {v}" for k, v in why.most_common()))
    out += [f"  [{line.id} {reason}] {line.statement}  -> {line.related}" for line, reason in res.misses]
    out.append("shown for an unrelated request:")
    out += [f"  [{line.id} {', '.join(shown)}] {line.statement}  -> {line.unrelated}" for line, shown in res.leaks]
    out.append("false memories:")
    out += [f"  [{chat.id} {chat.kind}] {chat.text[:100]!r} -> {kept}" for chat, kept in res.remembered]
    return out


def conversation_lines(cells: dict[tuple[str, str], Cell]) -> list[str]:
    if not cells:
        return []
    out = ["", "corrections, forgets, retractions and time bounds said in conversation: the request a session later"]
    out.append("gets the new value and not the old one (per kind)")
    for lang in LANGS:
        kinds = sorted(k for k, lg in cells if lg == lang)
        total = Cell()
        for kind in kinds:
            total.merge(cells[(kind, lang)])
        per_kind = ", ".join(f"{kind} {cells[(kind, lang)].hits}/{cells[(kind, lang)].n}" for kind in kinds)
        out.append(f"  {lang}: {fraction(total)} ({per_kind})")
    return out


def main(corpus: Path | None = None, verbose: bool = False) -> int:
    folder = corpus or corpus_path("open_language_dev")
    res = evaluate(folder)
    for line in report_lines(res, verbose=verbose):
        print(line)
    for line in conversation_lines(evaluate_conversations(folder)):
        print(line)
    if verbose:
        for talk in load_conversations(folder):
            right, missing, stale = run_conversation(RuleExtractor(), talk)
            if not right:
                print(f"  [{talk.id} {talk.kind}] missing {missing} stale {stale}: {talk.turns[-1][1][:90]}")
    return 0
