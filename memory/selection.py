"""The read side, pure: eligibility, ranking, budgeting and rendering (docs/concepts.md, "Read path").

The state layer hands over `Candidate`s (a compact, selection-only view of the records in the
request's scopes); everything here decides from them and the request's own time.
"""

from __future__ import annotations

import heapq
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

import msgspec

from .models import (
    CONSEQUENCE_WEIGHT,
    INFERRED_AUTHORITIES,
    SLOT_ONLY_REASONS,
    Consequence,
    ContextItem,
    ContextRequest,
    ContextResponse,
    Exclusion,
    Kind,
    Record,
    Sensitivity,
    Status,
    Suppression,
    iso,
    scope_rank,
    to_ms,
)
from .registry import resolve
from .semantics import relevance
from .semantics.topics import topics_of
from .validation import normalize_value, value_hash

ASSUMPTION_MIN_CONFIDENCE = 0.7
_WORD = re.compile(r"[a-z0-9]+|[\u3400-\u9fff\uf900-\ufaff]+")
_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "of",
        "to",
        "in",
        "on",
        "for",
        "is",
        "are",
        "was",
        "be",
        "it",
        "this",
        "that",
        "my",
        "me",
        "i",
        "you",
        "your",
        "with",
        "what",
        "which",
        "how",
        "do",
        "does",
        "please",
        "can",
        "could",
        "would",
        "should",
    ]
)


def tokens(text: str) -> frozenset[str]:
    """Lexical tokens: lower-case words, and CJK character bigrams (no segmenter needed)."""
    out: set[str] = set()
    for m in _WORD.finditer(text.casefold()):
        w = m.group()
        if w[0] >= "\u3400":
            out.update(w[i : i + 2] for i in range(max(1, len(w) - 1)))
        elif w not in _STOP:
            out.add(w)
    return frozenset(out)


class RequestTerms:
    """What selection reads of a request's text: its words, its topics, and (worked out on first
    use: only records that must be related need it) its meaning. Worked out once per lookup (the
    read's arguments need them too)."""

    __slots__ = ("_meaning", "query", "scored", "text", "topics")

    def __init__(self, query: frozenset[str], topics: frozenset[str], text: str = "", scored: bool = False) -> None:
        self.query, self.topics, self.text = query, topics, text
        self._meaning: relevance.Meaning | None = None
        self.scored = scored  # every relation gets the relation model's score (`explain` reports it)

    @property
    def meaning(self) -> relevance.Meaning:
        if self._meaning is None:
            self._meaning = relevance.request_meaning(self.text)
        return self._meaning


def terms_of(req: ContextRequest) -> RequestTerms:
    if not req.text:
        return RequestTerms(frozenset(), frozenset())
    terms = RequestTerms(tokens(req.text), topics_of(req.text), req.text, scored=req.explain)
    # the areas the request is mostly about by meaning are topics of it too: the read index lists
    # records by the topics they are about, so these bring the related ones into the rows read
    meaning = terms.meaning
    terms.topics = terms.topics | meaning.topics
    return terms


class Candidate(msgspec.Struct, array_like=True, gc=False):
    """A selection-only view of a record: a read-model row (`compact`), decoded positionally.
    Enum-typed fields hold their plain string values (StrEnum members compare equal to them), so
    building thousands per request stays cheap."""

    id: str
    kind: str
    attribute: str
    scope: str
    value: Any
    statement: str
    authority: str
    status: str
    confidence: float
    importance: float
    consequence: str
    actionability: float
    sensitivity: str
    cardinality: str
    observed_ms: int
    valid_from_ms: int | None
    valid_until_ms: int | None
    review_ms: int | None
    source: str | None
    tokens: str  # " tok1 tok2 ... ": membership is a substring test, no set to build per request
    # static_value() as computed when the row was written; -1: compute
    base: float = -1.0
    # who may see it (roles or principals; empty: every caller), the earliest end of what it was
    # derived from, and why it waits for review (a dependent of a changed record); rows written
    # before audiences and dependencies existed end before these
    audience: tuple[str, ...] | None = None
    dependency_until_ms: int | None = None
    note: str | None = None
    # a record used only for a related request (registry `gated`): its meaning as
    # `relevance.pack` stores it (topics, int8 vector, calibration); rows written before it existed
    # end before it
    meaning: tuple[str, str, float, float, str] | None = None
    # never stored: set by prepare() for a candidate that will be selected many times (a cached
    # one): what eligibility needs apart from the request (`usable_window`), and the meaning unpacked
    window: tuple[bool, bool, int, float] | None = None
    unpacked: relevance.Meaning | None = None
    # the relation to the last request's terms it was related to (eligibility and ranking both ask),
    # set as one tuple: a cached candidate may be selected by two threads at once
    related: tuple[Any, relevance.Relation] | None = None


# a scope's read-model rows as one JSON array (context.lua joins them): decoded in one call
ROWS = msgspec.json.Decoder(list[Candidate])


@lru_cache(maxsize=4096)  # a refreshed value has the same words each time (texts are bounded in size)
def _row_words(text: str) -> str:
    """A read-model row's words: its tokens, sorted, each between spaces (a substring test finds one)."""
    return " " + " ".join(sorted(tokens(text))) + " "


def compact(rec: Record) -> list[Any]:
    """What the read model stores per selectable record: enough to select and render, positional
    (in `Candidate` field order) to keep the payload and its decoding small."""
    words = _row_words(f"{rec.attribute.replace('.', ' ').replace('_', ' ')} {rec.value} {rec.statement}")
    return [
        rec.id,
        rec.kind.value,
        rec.attribute,
        rec.scope,
        rec.value,
        rec.statement,
        rec.authority.value,
        rec.status.value,
        rec.confidence,
        rec.importance,
        rec.consequence.value,
        rec.actionability,
        rec.sensitivity.value,
        rec.cardinality.value,
        to_ms(rec.observed_at),
        to_ms(rec.valid_from),
        to_ms(rec.valid_until),
        to_ms(rec.review_at),
        rec.source,
        words,
        round(_static(rec.importance, rec.consequence, rec.actionability, rec.kind), 6),
        rec.audience,
        to_ms(rec.dependency_until),
        rec.status_reason if rec.status == Status.NEEDS_REVIEW else None,
        _meaning_row(rec),
    ]


def _meaning_row(rec: Record) -> tuple[str, str, float, float, str] | None:
    """A gated record's meaning (its statement's, with the topics its attribute names), for rows;
    a safety-relevant one (a special category, or high consequence) reaches the areas its areas
    bear on."""
    spec = resolve(rec.attribute, rec.kind)
    if not spec.gated:
        return None
    value = rec.value if isinstance(rec.value, str) else str(rec.value)
    text = rec.statement if value.casefold() in rec.statement.casefold() else f"{rec.statement} {value}"
    safety = spec.safety_reach and (rec.sensitivity == Sensitivity.SPECIAL or rec.consequence == Consequence.HIGH)
    return relevance.pack(relevance.record_meaning(text, spec.topics, spec.related, safety))


def from_compact(row: list[Any]) -> Candidate:
    return Candidate(*row[:25])


def from_record(rec: Record) -> Candidate:
    return from_compact(compact(rec))


def is_working_assumption(c: Candidate) -> bool:
    return (
        c.authority in INFERRED_AUTHORITIES
        and c.confidence >= ASSUMPTION_MIN_CONFIDENCE
        and c.consequence in (Consequence.LOW, Consequence.MEDIUM)
        and c.sensitivity == Sensitivity.NORMAL
    )


# plain-string constants: the read path compares thousands of rows, and a string comparison is
# cheaper than an Enum member lookup per row
_ACTIVE, _CANDIDATE, _SECRET, _PERSONAL, _FACT = "active", "candidate", "secret", "personal", "fact"
_AUTHORITATIVE, _MULTI, _SPECIAL = "authoritative_source", "multi", "special"


def exclusion_reason(c: Candidate, at_ms: int, req: ContextRequest, scopes: Iterable[str]) -> str | None:
    """Why `c` may not be used at `at_ms` for `req`, or None if it may (rule 4: checked against now)."""
    if c.scope not in scopes:
        return "out_of_scope"
    status = c.status
    if status != _ACTIVE and status != _CANDIDATE:
        return f"status_{status}"
    if c.observed_ms > at_ms:
        return "not_yet_known"
    if c.valid_from_ms is not None and at_ms < c.valid_from_ms:
        return "not_yet_valid"
    if c.valid_until_ms is not None and at_ms >= c.valid_until_ms:
        return "expired"
    if c.review_ms is not None and at_ms >= c.review_ms:
        return "review_due"
    if c.sensitivity == _SECRET:
        return "secret"
    if c.sensitivity == _PERSONAL and not req.allow_personal:
        return "sensitivity"
    if c.dependency_until_ms is not None and at_ms >= c.dependency_until_ms:
        return "dependency_expired"
    if c.kind == _FACT and c.authority != _AUTHORITATIVE:
        return "unverified_fact"
    if status == _CANDIDATE and not is_working_assumption(c):
        return "weak_assumption"
    return None


def usable_window(c: Candidate) -> tuple[bool, bool, int, float]:
    """`exclusion_reason` folded into what does not depend on the request: (passes the checks of
    status, secrecy, fact authority and assumption strength; is personal; usable from; until).
    `c` is usable at `at_ms` for `req` exactly when it passes, its scope is one of the request's,
    from <= at_ms < until, and it is not personal or the request allows personal records."""
    if c.window is None:
        status = c.status
        passes = (
            status in (_ACTIVE, _CANDIDATE)
            and c.sensitivity != _SECRET
            and not (c.kind == _FACT and c.authority != _AUTHORITATIVE)
            and not (status == _CANDIDATE and not is_working_assumption(c))
        )
        start = c.observed_ms if c.valid_from_ms is None else max(c.observed_ms, c.valid_from_ms)
        end = min(
            math.inf if c.valid_until_ms is None else c.valid_until_ms,
            math.inf if c.review_ms is None else c.review_ms,
            math.inf if c.dependency_until_ms is None else c.dependency_until_ms,
        )
        c.window = (passes, c.sensitivity == _PERSONAL, start, end)
    return c.window


def prepare(candidates: Iterable[Candidate]) -> None:
    """Work out once what every selection of these candidates would recompute: worth it for
    candidates kept between requests, not for ones parsed for a single request."""
    for c in candidates:
        usable_window(c)


def can_use(record: Record | Candidate, at: datetime, request: ContextRequest) -> bool:
    c = from_record(record) if isinstance(record, Record) else record
    return (
        exclusion_reason(c, to_ms(at) or 0, request, request.scopes()) is None
        and _withheld(c, request, topics_of(request.text)) is None
    )


def _withheld(c: Candidate, req: ContextRequest, request_topics: frozenset[str]) -> str | None:
    """Why this caller or this request may not see an otherwise usable record: its audience
    (rule: a record without one is visible to every request for its user), or a special category
    off the request's topic."""
    if c.audience and not set(c.audience).intersection(req.roles):
        return "audience"
    if c.sensitivity == _SPECIAL and c.meaning is None and not request_topics.intersection(topics_for(c.attribute)[0]):
        return "special_off_topic"
    return None


def relation_to(c: Candidate, terms: RequestTerms) -> relevance.Relation:
    """How a gated record relates to a request (its meaning unpacked once per candidate)."""
    if c.unpacked is None:
        assert c.meaning is not None
        c.unpacked = relevance.unpack(*c.meaning)
    if not terms.text:
        return relevance.Relation(False, 0.0, frozenset())
    known = c.related
    if known is not None and known[0] is terms:
        return known[1]
    related = relevance.relation(c.unpacked, terms.meaning, scored=terms.scored)
    c.related = (terms, related)
    return related


def section_of(c: Candidate) -> str:
    return section_for(c.status, c.kind)


def section_for(status: str, kind: str) -> str:
    """The context section a record of this status and kind is shown in."""
    if status == Status.CANDIDATE:
        return "assumptions"
    if kind == Kind.SESSION_CONTEXT:
        return "session"
    return _SECTION_OF_KIND.get(kind, "stated")


_SECTION_OF_KIND: dict[str, str] = {
    Kind.GOAL: "goals",
    Kind.PRIORITY: "priorities",
    Kind.RULE: "rules",
    Kind.KNOWLEDGE: "knowledge",
    Kind.FACT: "facts",
}


SECTION_TITLES = {
    "request": "For this request only",
    "stated": "What the user stated",
    "assumptions": "Working assumptions (inferred: not confirmed by the user, cannot authorize actions, "
    "current instructions win)",
    "goals": "Goals",
    "priorities": "Current priorities",
    "rules": "Collaboration rules",
    "knowledge": "Project knowledge and decisions",
    "facts": "Facts (from their source)",
    "session": "Current session",
}
SECTION_ORDER = list(SECTION_TITLES)


def _static(importance: float, consequence: str, actionability: float, kind: str) -> float:
    base = 0.25 * importance + 0.15 * CONSEQUENCE_WEIGHT[consequence] + 0.15 * actionability  # type: ignore[index]
    if kind in (Kind.RULE, Kind.PRIORITY, Kind.SESSION_CONTEXT):
        base += 0.05  # action boundaries and the current task matter to almost every request
    return base


def static_value(c: Candidate) -> float:
    """The part of a record's value that does not depend on the request (stored with the row)."""
    return c.base if c.base >= 0 else _static(c.importance, c.consequence, c.actionability, c.kind)


# the weight of relevance in a record's value for a request (the rest is its static value)
RELEVANCE_WEIGHT = 0.45

# relevance of a record whose family matters to the request's topic, whatever the words: "Suggest
# a dinner recipe" shares no word with "vegetarian", and still needs it
TOPIC_RELEVANCE = 0.5


@lru_cache(maxsize=4096)
def topics_for(attribute: str) -> tuple[frozenset[str], frozenset[str]]:
    """The request topics a record of this attribute matters to, and those it relates to (registry)."""
    spec = resolve(attribute, None)
    return frozenset(spec.topics), frozenset(spec.related)


@lru_cache(maxsize=4096)  # a call per row and request: a hit costs a fraction of working it out
def topic_relevance(attribute: str, request_topics: frozenset[str]) -> float:
    """`TOPIC_RELEVANCE` when the record's family matters to one of the request's topics, half of
    it when it only relates to one, else 0."""
    if not request_topics:
        return 0.0
    main, related = topics_for(attribute)
    if not main.isdisjoint(request_topics):
        return TOPIC_RELEVANCE
    return TOPIC_RELEVANCE / 2 if not related.isdisjoint(request_topics) else 0.0


# how a gated record related to a request ranks: from a quarter for a bare relation to all of it
# for one as much about the request's areas as `FULL_AGREEMENT`, or scored `FULL_SCORE` above the
# relation model's threshold (a bearing spreads a record's areas: a close match agrees less); a
# topic its attribute names (or the umbrella topic a general request names) at least
# `TOPIC_RELEVANCE`; half that through a topic it only bears on
LEAST_MEANING_RELEVANCE = 0.25
FULL_AGREEMENT = 0.5
FULL_SCORE = 2.5


def meaning_relevance(related: relevance.Relation) -> float:
    if not related.related:
        return 0.0
    share = min(max(related.agreement / FULL_AGREEMENT, related.score / FULL_SCORE), 1.0)
    value = LEAST_MEANING_RELEVANCE + (1 - LEAST_MEANING_RELEVANCE) * share
    if related.named:
        value = max(value, TOPIC_RELEVANCE)
    return value * related.strength


@dataclass(frozen=True, slots=True)
class DocFrequency:
    """How many of the rows in the request's scopes hold each query word, and how many rows there
    are: what the relevance weights are computed from. The whole-scope read counts them from the
    rows; the indexed read gets them from the index, so both rank with the same weights."""

    counts: dict[str, int]
    total: int


def doc_frequency(query: Iterable[str], candidates: list[Candidate]) -> DocFrequency:
    # every row's tokens are " a b c " with each word once: a word's rows are its count in them all
    joined = "".join([c.tokens for c in candidates])
    return DocFrequency({word: joined.count(f" {word} ") for word in query}, len(candidates))


def relevance_weights(query: Iterable[str], frequency: DocFrequency) -> dict[str, float]:
    """Each query word's weight in relevance: its inverse document frequency (BM25's) over the rows
    in the request's scopes, as a share of that of a word only one row holds, squared. A word only a
    few rows hold weighs close to 1, so the record the request is about stands out; a word a large
    share of the rows hold weighs little, so common words cannot lift records over their static
    value (and a read bounded by the budget can leave their rows out); a word no row holds cannot
    match and weighs nothing, so the rest of the request does not dilute the words that match.
    When the words sum to more than 1 they are scaled to sum to 1."""
    total = frequency.total
    if total < 1:
        return dict.fromkeys(query, 0.0)
    one_row = math.log(1 + (total - 1 + 0.5) / (1 + 0.5))
    weights = {}
    for word, df in _frequencies(query, frequency):
        ratio = math.log(1 + (total - df + 0.5) / (df + 0.5)) / one_row if df > 0 else 0.0
        weights[word] = ratio * ratio
    norm = sum(weights.values())
    if norm > 1:
        weights = {word: weight / norm for word, weight in weights.items()}
    return weights


def _frequencies(query: Iterable[str], frequency: DocFrequency) -> Iterable[tuple[str, int]]:
    counts = frequency.counts
    return ((word, min(counts.get(word, 0), frequency.total)) for word in sorted(query))


def score(
    c: Candidate,
    query: frozenset[str],
    request_topics: frozenset[str] = frozenset(),
    weights: dict[str, float] | None = None,
) -> float:
    """Value for this request: 0.45 x relevance + the static part. Relevance is the weighted share
    of the query's words the record has (`relevance_weights`; equal weights when none are given),
    at least `TOPIC_RELEVANCE` when its family matters to one of the request's topics. Confidence
    is deliberately not a weight."""
    if weights is None:
        weights = {word: 1 / len(query) for word in query} if query else {}
    rel = sum([weight for word, weight in weights.items() if f" {word} " in c.tokens])
    rel = max(rel, topic_relevance(c.attribute, request_topics))
    return RELEVANCE_WEIGHT * rel + static_value(c)


def left_out_bound(
    scope_bound: float | None,
    word_bounds: list[tuple[float | None, float]],
    topic_bounds: list[tuple[float | None, float]],
) -> float | None:
    """The most a row a budgeted read left out can score, or None when it left none out.

    A budgeted read takes the best rows by static value of the scope, of each query word and of
    each request topic; each `*_bound` is the static value of the first row its list left out
    (None: the list was read to its end). A left-out row holds only words whose lists were cut, and
    its static value is at most each of their bounds and the scope's: over the cut words sorted by
    bound, the worst case holds a prefix of them. Its topic relevance (main or related, given with
    each topic list's bound) comes only from cut topic lists; relevance is the larger of the two."""
    if scope_bound is None:  # the scope's own list was read to its end: every row was read
        return None
    worst = scope_bound
    weight = 0.0
    cut_words = sorted(((b, w) for b, w in word_bounds if b is not None), reverse=True)
    for word_bound, word_weight in cut_words:
        weight += word_weight
        worst = max(worst, min(scope_bound, word_bound) + RELEVANCE_WEIGHT * weight)
    for topic_bound, topical in topic_bounds:
        if topic_bound is not None:
            worst = max(worst, min(scope_bound, topic_bound) + RELEVANCE_WEIGHT * topical)
    return worst


def budget_certified(response: ContextResponse, req: ContextRequest, bound: float | None) -> bool:
    """Is a selection from some rows certainly the selection from all of them? Yes when no row was
    left out, or when the item budget is full and its last item outscores every row left out
    (`bound`, from `left_out_bound`): ranked in among all rows, the left-out ones come after it."""
    if bound is None:
        return True
    items = response.items
    if len(items) < req.max_items:
        return False  # a left-out row might still fit the budget
    return items[-1].section == "request" or items[-1].score > bound + 1e-9


def _fmt_ms(ms: int | None) -> str:
    return (iso(datetime.fromtimestamp(ms / 1000, tz=UTC)) or "") if ms is not None else ""


def render_line(c: Candidate) -> str:
    value = c.value if isinstance(c.value, str) else str(c.value)
    text = c.statement if value.casefold() in c.statement.casefold() else f"{c.statement} ({value})"
    if c.kind == Kind.FACT:
        window = f", valid until {_fmt_ms(c.valid_until_ms)}" if c.valid_until_ms else ""
        return f"- {text} [source: {c.source}{window}]"
    if c.kind == Kind.PRIORITY and c.valid_until_ms:
        return f"- {text} (until {_fmt_ms(c.valid_until_ms)})"
    if c.scope.startswith("session:") and c.kind != Kind.SESSION_CONTEXT:
        return f"- {text} (this session only)"
    return f"- {text}"


def suppressed(c: Candidate, suppressions: list[Suppression], tenant: str, user: str) -> bool:
    """A record learned before a matching suppression is not used, wherever it is stored."""
    for s in suppressions:
        if s.attribute != c.attribute or s.reason in SLOT_ONLY_REASONS:
            continue  # a value corrected or retracted away left by its record's status, not here
        if not s.covers(c.scope) or c.observed_ms > (to_ms(s.at) or 0):
            continue
        if s.value_hash is None or s.value_hash == value_hash(tenant, user, c.attribute, normalize_value(c.value)):
            return True
    return False


def select(
    req: ContextRequest,
    candidates: list[Candidate],
    at: datetime,
    suppressions: list[Suppression] | None = None,
    frequency: DocFrequency | None = None,
    considered: int | None = None,
    terms: RequestTerms | None = None,
) -> ContextResponse:
    """Scope, eligibility (incl. suppressions), one value per single-valued attribute, rank, budget, render.

    `candidates` are every row in the request's scopes, or (the indexed read) the ones that can
    make the budget: then `frequency` and `considered` describe all the rows, so the weights and
    the response are those of the whole read. `terms`: `terms_of(req)`, when the caller has it."""
    excluded: list[Exclusion] = []
    if terms is None:
        terms = terms_of(req)
    if frequency is None:
        frequency = doc_frequency(terms.query, candidates)
    usable = _eligible(req, candidates, to_ms(at) or 0, suppressions or [], excluded, terms)
    weights = relevance_weights(terms.query, frequency)
    scored = _ranked(req, _one_per_slot(req, usable, excluded), weights, terms)
    items = _budgeted(req, scored, excluded)
    blocks: list[str] = []
    for section in SECTION_ORDER:
        lines = [i.text for i in items if i.section == section]
        if lines:
            blocks.append(f"## {SECTION_TITLES[section]}\n" + "\n".join(lines))
    return ContextResponse(
        tenant=req.tenant,
        user=req.user,
        at=at,
        context="\n\n".join(blocks),
        items=items,
        used_ids=[i.id for i in items if i.section != "request"],
        excluded=excluded,
        considered=len(candidates) if considered is None else considered,
    )


def _eligible(
    req: ContextRequest,
    candidates: list[Candidate],
    at_ms: int,
    suppressions: list[Suppression],
    excluded: list[Exclusion],
    terms: RequestTerms,
) -> list[Candidate]:
    """Scope and eligibility at the request's time, suppressions, relation to the request (a
    gated record), the request's own overrides."""
    request_topics = terms.topics
    usable: list[Candidate] = []
    sup_attrs = {s.attribute for s in suppressions}
    scope_set = frozenset(req.scopes())
    allow_personal = req.allow_personal
    for c in candidates:
        window = c.window
        if window is None:
            reason = exclusion_reason(c, at_ms, req, scope_set)
        else:  # prepared: the folded check decides, the reason is only worked out for `explain`
            passes, personal, start, end = window
            fits = passes and start <= at_ms < end and c.scope in scope_set and (allow_personal or not personal)
            reason = None if fits else (exclusion_reason(c, at_ms, req, scope_set) if req.explain else "excluded")
        if reason is not None:
            if req.explain:
                excluded.append(Exclusion(id=c.id, attribute=c.attribute, reason=reason, detail=c.note))
            continue
        if c.audience or c.sensitivity == _SPECIAL:
            reason = _withheld(c, req, request_topics)
        if reason is None and c.attribute in sup_attrs and suppressed(c, suppressions, req.tenant, req.user):
            reason = "suppressed"
        if reason is None and c.meaning is not None and (terms.text or c.sensitivity == _SPECIAL):
            # (a request without text, a look at the whole profile, is not one to relate to; a
            # special category still needs a request on its topic)
            related = relation_to(c, terms)
            if not related.related:
                reason = "special_off_topic" if c.sensitivity == _SPECIAL else "unrelated"
                if req.explain:
                    excluded.append(Exclusion(id=c.id, attribute=c.attribute, reason=reason, score=related.score))
                continue
        if reason is None and req.overrides and c.attribute in req.overrides:
            reason = "overridden_by_request"
        if reason is None:
            usable.append(c)
        elif req.explain:
            excluded.append(Exclusion(id=c.id, attribute=c.attribute, reason=reason))
    return usable


def _one_per_slot(req: ContextRequest, usable: list[Candidate], excluded: list[Exclusion]) -> list[Candidate]:
    """A single-valued attribute shows one value: the user's word over an inference, then the
    narrowest scope (a session's "this time" beats the lasting preference), then the newest."""
    best: dict[str, Candidate] = {}
    keep: list[Candidate] = []
    for c in usable:
        if c.cardinality == _MULTI:
            keep.append(c)
            continue
        cur = best.get(c.attribute)
        if cur is None:
            best[c.attribute] = c
            continue
        if (c.status == _ACTIVE, scope_rank(c.scope), c.observed_ms) > (
            cur.status == _ACTIVE,
            scope_rank(cur.scope),
            cur.observed_ms,
        ):
            if req.explain:
                excluded.append(Exclusion(id=cur.id, attribute=cur.attribute, reason="shadowed"))
            best[c.attribute] = c
        elif req.explain:
            excluded.append(Exclusion(id=c.id, attribute=c.attribute, reason="shadowed"))
    keep.extend(best.values())
    return keep


SORTED_UP_TO = 400  # rows: up to here a sort picks the best faster than heapq (its Python code)


def _ranked(
    req: ContextRequest, keep: list[Candidate], weights: dict[str, float], terms: RequestTerms
) -> list[tuple[float, Candidate]]:
    """Best first: weighted lexical relevance to the query plus the stored static value (never confidence)."""
    request_topics = terms.topics
    # relevance summed word by word in the weights' order (the indexed read sums in the same order);
    # a word that weighs nothing (no row holds it) adds nothing and is not looked for
    words = [(f" {word} ", weight) for word, weight in weights.items() if weight > 0]
    # (-value, id, position): tuples order by value, then id; the position finds the candidate
    order = []
    for position, c in enumerate(keep):
        row_words = c.tokens
        relevance = 0.0
        for padded, weight in words:
            if padded in row_words:
                relevance += weight
        base = c.base if c.base >= 0 else static_value(c)
        if c.meaning is not None and terms.text:
            # a gated record made it here only by being related: its relevance is how much, and
            # its standing counts in full only for a request it is clearly about (an allergy wins
            # the budget of a food request, not of every request it bears on in passing)
            relevance = max(relevance, meaning_relevance(relation_to(c, terms)))
            base *= 0.5 + 0.5 * (min(relevance / TOPIC_RELEVANCE, 1.0) if TOPIC_RELEVANCE else 1.0)
        elif request_topics and relevance < TOPIC_RELEVANCE:
            relevance = max(relevance, topic_relevance(c.attribute, request_topics))
        order.append((-(RELEVANCE_WEIGHT * relevance + base), c.id, position))
    # only the best few can fit the item budget (the char budget may skip a long one: spares); a
    # sort finds them faster than heapq's selection (Python code) up to a few hundred rows
    spares = 4 * req.max_items
    if req.explain or len(order) <= SORTED_UP_TO:
        order.sort()
        if not req.explain:  # explain lists every row's fate
            del order[spares:]
    else:
        order = heapq.nsmallest(spares, order)
    return [(-negated, keep[position]) for negated, _, position in order]


def _budgeted(
    req: ContextRequest, scored: list[tuple[float, Candidate]], excluded: list[Exclusion]
) -> list[ContextItem]:
    """The request's overrides first, then the ranked records while the item and char budgets last."""
    items = [_override_item(attr, value) for attr, value in sorted(req.overrides.items())]
    used = len(items)
    chars = sum(len(i.text) + 1 for i in items) + (len(SECTION_TITLES["request"]) + 5 if items else 0)
    headers: set[str] = {"request"} if items else set()
    for value_score, c in scored:
        if used >= req.max_items:
            if not req.explain:
                break
            excluded.append(Exclusion(id=c.id, attribute=c.attribute, reason="over_item_budget"))
            continue
        section = section_of(c)
        line = render_line(c)
        cost = len(line) + 1 + (0 if section in headers else len(SECTION_TITLES[section]) + 5)
        if chars + cost > req.max_chars:
            if req.explain:
                excluded.append(Exclusion(id=c.id, attribute=c.attribute, reason="over_char_budget"))
            continue
        items.append(
            ContextItem(
                id=c.id,
                section=section,
                kind=c.kind,
                attribute=c.attribute,
                scope=c.scope,
                value=c.value,
                text=line,
                score=value_score,
                source=c.source,
            )
        )
        headers.add(section)
        used += 1
        chars += cost
    return items


def _override_item(attr: str, value: str) -> ContextItem:
    label = resolve(attr, None).label or attr
    return ContextItem(
        id=f"request:{attr}",
        section="request",
        kind=Kind.PREFERENCE,
        attribute=attr,
        scope="request",
        value=value,
        text=f"- {label}: {value} (this request only)",
        score=1.0,
    )
