"""Pydantic models of the domain: records, scopes, evidence, commands, context requests/responses.

Wire models (`RecordIn`, commands) are what producers send; `Record` is what the engine stores.
All datetimes are timezone-aware UTC; naive input is taken as UTC.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Any, Literal, cast, overload

import msgspec
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from .errors import Reason, Rejected
from .limits import MAX_DEPTH, MAX_ID_CHARS, check_shape, check_time


class Kind(StrEnum):
    PREFERENCE = "preference"
    GOAL = "goal"
    PRIORITY = "priority"
    RULE = "rule"
    KNOWLEDGE = "knowledge"
    FACT = "fact"
    SESSION_CONTEXT = "session_context"


class Authority(StrEnum):
    USER_EXPLICIT = "user_explicit"
    USER_OBSERVED = "user_observed"
    SYSTEM_INFERRED = "system_inferred"
    EXTERNAL_UNTRUSTED = "external_untrusted"
    AUTHORITATIVE_SOURCE = "authoritative_source"


# Higher is stronger. Authoritative sources stand apart (facts only) and are not compared
# with the user's authorities by the preference rules.
AUTHORITY_RANK = {
    Authority.USER_EXPLICIT: 4,
    Authority.USER_OBSERVED: 3,
    Authority.SYSTEM_INFERRED: 2,
    Authority.EXTERNAL_UNTRUSTED: 1,
    Authority.AUTHORITATIVE_SOURCE: 5,
}
INFERRED_AUTHORITIES = frozenset({Authority.USER_OBSERVED, Authority.SYSTEM_INFERRED})


class Status(StrEnum):
    ACTIVE = "active"
    CANDIDATE = "candidate"
    PENDING_REVIEW = "pending_review"
    CONFLICTED = "conflicted"
    SUPERSEDED = "superseded"
    EXPIRED = "expired"
    REVIEW_DUE = "review_due"
    # a record derived from one that was corrected, retracted, forgotten or expired: kept, not used
    NEEDS_REVIEW = "needs_review"
    RETRACTED = "retracted"  # invalidated by the user without a new value: the slot has none
    DELETED = "deleted"


# Statuses that still belong to the slot's present (reconciliation looks at these).
LIVE_STATUSES = frozenset(
    {
        Status.ACTIVE,
        Status.CANDIDATE,
        Status.PENDING_REVIEW,
        Status.CONFLICTED,
        Status.REVIEW_DUE,
        Status.NEEDS_REVIEW,
    }
)
# Statuses the selector may use at all (further checks in eligibility).
SELECTABLE_STATUSES = frozenset({Status.ACTIVE, Status.CANDIDATE})
# Statuses with a row in the read model: the usable ones, and dependents waiting for review, which
# `explain` lists with their reason.
READ_MODEL_STATUSES = SELECTABLE_STATUSES | {Status.NEEDS_REVIEW}


class Outcome(StrEnum):
    """What an op did: one per op, on the changes topic and in the scenario runner's expectations."""

    APPLIED = "applied"  # it changed the state
    REFRESHED = "refreshed"  # a repeat or a same-value correction: an existing record was refreshed
    DUPLICATE = "duplicate"  # this op id was applied before (a redelivery): nothing changed
    REJECTED = "rejected"  # invalid, or refused by a rule; recorded, nothing changed
    DROPPED = "dropped"  # valid, but suppressed or for an erased user; recorded, nothing changed
    NOOP = "noop"  # nothing to do (the target was gone, not yet due, already deleted)
    REFUSED = "refused"  # extraction refused part of a turn (a secret, a scope it cannot honour)


class Change(StrEnum):
    """One entry of a transition's change list (the user's change log, the changes topic)."""

    CREATED = "created"
    SUPERSEDED = "superseded"
    REFRESHED = "refreshed"
    CONFIRMED = "confirmed"
    DELETED = "deleted"
    SUPPRESSED = "suppressed"
    UNSUPPRESSED = "unsuppressed"
    DROPPED = "dropped"
    REJECTED = "rejected"
    PENDING_REVIEW = "pending_review"
    CONFLICTED = "conflicted"
    CORRECTION_IGNORED = "correction_ignored"
    EXPIRED = "expired"
    REVIEW_DUE = "review_due"
    ERASED = "erased"
    RETRACTED = "retracted"
    NEEDS_REVIEW = "needs_review"
    MOVED = "moved"
    RESOLVED = "resolved"  # a correction in the user's words found its target
    REQUOTED = "requoted"  # a forget took what it named out of a record's quote, the record's value kept


class Consequence(StrEnum):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    CRITICAL = "critical"


CONSEQUENCE_WEIGHT = {
    Consequence.LOW: 0.0,
    Consequence.MEDIUM: 0.33,
    Consequence.HIGH: 0.66,
    Consequence.CRITICAL: 1.0,
}


class Sensitivity(StrEnum):
    NORMAL = "normal"
    PERSONAL = "personal"
    # a special category (health, religion, political opinion, sexual orientation, ethnicity, union
    # membership, biometrics): stored only as the user's own statement, used only on its topic
    SPECIAL = "special"
    SECRET = "secret"


class Cardinality(StrEnum):
    SINGLE = "single"
    MULTI = "multi"


class SourceType(StrEnum):
    CONVERSATION = "conversation"
    DOCUMENT = "document"
    SYSTEM = "system"
    ASSISTANT = "assistant"  # accepted on the wire only to be refused: never evidence


# --- ids and time -------------------------------------------------------------------------

# Tenant/user ids go into Redis key hash tags: no braces, colons or whitespace. Ids are checked
# as sent, whole (`fullmatch`: "$" would let a trailing newline through): never trimmed first, so
# "A " is refused rather than quietly becoming "A".
ID_RE = re.compile(r"^[A-Za-z0-9_.@+\-]{1,128}$")
SCOPE_ID_RE = re.compile(r"^[^\s{}|\x00-\x1f\x7f]{1,128}$")
# Slot key parts: "|" joins them, so neither subject nor attribute may contain it.
ATTRIBUTE_RE = re.compile(r"^[\w\-]+(?:\.[\w\-]+)*$")
SUBJECT_RE = re.compile(r"^[\w\-.:@/+]+$")
# Idempotency keys: printable, no whitespace (file:line, topic:partition:offset, producer ids).
OP_ID_RE = re.compile(r"^[^\s\x00-\x1f\x7f]{1,256}$")


def utc(dt: datetime) -> datetime:
    return dt.replace(tzinfo=UTC) if dt.tzinfo is None else dt.astimezone(UTC)


def parse_time(value: Any) -> datetime:
    """An aware UTC datetime in the supported range; ValueError for a malformed one, `Rejected`
    (time_out_of_range) for one outside `limits.MIN_TIME`..`MAX_TIME`."""
    if isinstance(value, datetime):
        return check_time(utc(value))
    if isinstance(value, str) and len(value) <= 64:
        text = value.strip()
        if text.endswith("Z"):
            text = text[:-1] + "+00:00"
        try:
            parsed = datetime.fromisoformat(text)
        except ValueError:
            raise ValueError("not an ISO-8601 timestamp") from None
        try:
            return check_time(utc(parsed))
        except OverflowError:  # an offset that pushes year 1 or 9999 past the calendar
            raise Rejected(Reason.TIME_OUT_OF_RANGE, "outside the supported range") from None
    raise ValueError("not a timestamp")


def wire_time(value: Any) -> datetime | None:
    """`parse_time` for pydantic validators: an out-of-range time keeps its reason code."""
    if value is None:
        return None
    try:
        return parse_time(value)
    except Rejected as rej:
        raise PydanticCustomError(rej.reason.value, rej.detail or rej.reason.value) from None


def wire_id(value: Any, missing: Reason) -> Any:
    """`check_id` for pydantic validators (run before any other coercion)."""
    try:
        return check_id(value, missing)
    except Rejected as rej:
        raise PydanticCustomError(rej.reason.value, rej.detail or rej.reason.value) from None


def to_ms(dt: datetime | None) -> int | None:
    return None if dt is None else int(dt.timestamp() * 1000)


@overload
def iso(dt: datetime) -> str: ...
@overload
def iso(dt: None) -> None: ...
def iso(dt: datetime | None) -> str | None:
    if dt is None:
        return None
    return utc(dt).isoformat().replace("+00:00", "Z")


def check_id(value: str | None, missing: Reason) -> str:
    if value is None or value == "":
        raise Rejected(missing)
    if not isinstance(value, str) or not ID_RE.fullmatch(value):
        raise Rejected(Reason.INVALID_ID, f"{str(value)[:MAX_ID_CHARS]!r} must match {ID_RE.pattern}")
    return value


def check_op_id(value: str) -> str:
    if not OP_ID_RE.fullmatch(value):
        raise Rejected(Reason.INVALID_ID, "an op id is 1..256 printable characters without whitespace")
    return value


def check_slot_parts(subject: str, attribute: str) -> None:
    if not attribute or len(attribute) > MAX_ID_CHARS or not ATTRIBUTE_RE.fullmatch(attribute):
        raise Rejected(
            Reason.INVALID_ATTRIBUTE, "an attribute is dotted words (letters, digits, _ and -), at most 128 characters"
        )
    if not subject or len(subject) > MAX_ID_CHARS or not SUBJECT_RE.fullmatch(subject):
        raise Rejected(
            Reason.INVALID_ATTRIBUTE, "a subject is letters, digits and - _ . : @ / +, at most 128 characters"
        )


def parse_scope(scope: str | None) -> str:
    """Canonical scope string; a project/session scope without its id is rejected, never widened."""
    if scope is None or scope == "" or scope == "global":
        return "global"
    if not isinstance(scope, str):
        raise Rejected(Reason.INVALID_SCOPE, repr(scope))
    head, sep, ident = scope.partition(":")
    if head not in ("project", "session"):
        raise Rejected(Reason.INVALID_SCOPE, f"{scope!r}: expected global, project:<id> or session:<id>")
    if not sep or not ident.strip():
        raise Rejected(Reason.SCOPE_MISSING_ID, f"{scope!r} has no id")
    if not SCOPE_ID_RE.fullmatch(ident):
        raise Rejected(Reason.INVALID_SCOPE, f"{scope[:MAX_ID_CHARS]!r}: bad id")
    return f"{head}:{ident}"


def scope_rank(scope: str) -> int:
    """Narrower scopes win over wider ones for the same attribute at read time."""
    if scope.startswith("session:"):
        return 2
    if scope.startswith("project:"):
        return 1
    return 0


def slot_key(subject: str, attribute: str, scope: str) -> str:
    return f"{subject}|{attribute}|{scope}"


# --- wire models --------------------------------------------------------------------------


class _Wire(BaseModel):
    model_config = ConfigDict(extra="forbid", use_enum_values=False)


class Evidence(_Wire):
    source_type: SourceType = SourceType.CONVERSATION
    source_id: str | None = None
    quote: str | None = None
    at: datetime | None = None

    @field_validator("at", mode="before")
    @classmethod
    def _time(cls, v: Any) -> Any:
        return wire_time(v)


class RecordIn(_Wire):
    """A record as producers send it (ops topic, scenario files). Validation is in `validate_record`."""

    id: str | None = None
    tenant: str | None = None
    user: str | None = None
    kind: str | None = None
    subject: str = "user"
    attribute: str
    scope: str | None = "global"
    value: Any
    statement: str | None = None
    authority: Authority = Authority.USER_EXPLICIT
    confidence: float | None = None
    importance: float | None = None
    consequence: Consequence | None = None
    actionability: float | None = None
    sensitivity: Sensitivity | None = None
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    review_at: datetime | None = None
    observed_at: datetime | None = None
    corrects: str | None = None
    # The extractor marked it as a correction of the slot's current value (rule 3): reconciliation,
    # the single ordered writer, resolves which record that is when it applies the op.
    corrects_current: bool = False
    evidence: list[Evidence] = Field(default_factory=list)
    # what this record was derived from: record ids, or "slot:<attribute>" (any scope of it)
    depends_on: list[str] = Field(default_factory=list)
    # who may see it: roles or principals; empty = everyone who may read the user's memory
    audience: list[str] = Field(default_factory=list)

    @field_validator("valid_from", "valid_until", "review_at", "observed_at", mode="before")
    @classmethod
    def _time(cls, v: Any) -> Any:
        return wire_time(v)


class EvidenceEntry(msgspec.Struct, kw_only=True, gc=False):
    """Evidence as a stored record keeps it (the wire's `Evidence`, validated, with the quote
    redacted and the time filled in)."""

    source_type: SourceType = SourceType.CONVERSATION
    source_id: str | None = None
    quote: str | None = None
    at: datetime | None = None

    def to_wire(self) -> Evidence:
        return Evidence(source_type=self.source_type, source_id=self.source_id, quote=self.quote, at=self.at)


class Record(msgspec.Struct, kw_only=True, gc=False):
    """A stored record: one value in one slot, with its lifecycle.

    A compiled struct, not a pydantic model: reconciliation copies records on every change and the
    engine encodes and decodes them on every apply. Its inputs are validated at the edge (RecordIn,
    validation.build_record). It answers to the same method names as the wire models, so code
    handling both reads alike."""

    id: str
    tenant: str
    user: str
    kind: Kind
    subject: str
    attribute: str
    scope: str
    value: Any
    normalized_value: str
    statement: str
    authority: Authority
    status: Status
    confidence: float
    importance: float
    consequence: Consequence
    actionability: float
    sensitivity: Sensitivity
    cardinality: Cardinality
    observed_at: datetime
    ingested_at: datetime
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    review_at: datetime | None = None
    evidence: list[EvidenceEntry] = msgspec.field(default_factory=list)
    supersedes: str | None = None
    superseded_by: str | None = None
    corrects: str | None = None  # the input's explicit link, kept for audit
    corrects_current: bool = False
    status_reason: str | None = None
    updated_at: datetime
    op_id: str
    depends_on: list[str] = msgspec.field(default_factory=list)
    # the earliest valid_until among the records it depends on: past it, it is not used (rule 4 at
    # read time; the dependency's expiry moves it to needs_review as well)
    dependency_until: datetime | None = None
    audience: list[str] = msgspec.field(default_factory=list)

    def model_copy(self, update: dict[str, Any] | None = None) -> Record:
        return msgspec.structs.replace(self, **update) if update else msgspec.structs.replace(self)

    def model_dump_json(self) -> str:
        return _RECORD_ENCODER.encode(self).decode()

    def model_dump(self, mode: str = "python") -> dict[str, Any]:
        """As a dict; mode "json": only JSON types (times as ISO text, enums as their values)."""
        if mode == "json":
            return cast(dict[str, Any], msgspec.to_builtins(self))
        return {name: getattr(self, name) for name in self.__struct_fields__}

    @classmethod
    def model_validate_json(cls, raw: bytes | str) -> Record:
        return _RECORD_DECODER.decode(raw)

    @classmethod
    def model_validate(cls, data: Any) -> Record:
        return data if isinstance(data, Record) else msgspec.convert(data, Record)

    @property
    def slot(self) -> str:
        return slot_key(self.subject, self.attribute, self.scope)

    @property
    def dependency_keys(self) -> list[str]:
        """The keys of the dependency index this record is listed under."""
        return [dependency_key(self.subject, d) for d in self.depends_on]

    @property
    def source(self) -> str | None:
        for ev in self.evidence:
            if ev.source_id and ev.source_type in (SourceType.DOCUMENT, SourceType.SYSTEM):
                return ev.source_id
        return self.evidence[0].source_id if self.evidence else None


SLOT_DEPENDENCY = "slot:"

_RECORD_ENCODER = msgspec.json.Encoder()
_RECORD_DECODER = msgspec.json.Decoder(Record)


def dependency_key(subject: str, dependency: str) -> str:
    """Index key of a `depends_on` entry: "slot:<attribute>" stands for every scope of the attribute."""
    if dependency.startswith(SLOT_DEPENDENCY):
        return f"attr:{subject}|{dependency[len(SLOT_DEPENDENCY) :]}"
    return f"id:{dependency}"


# suppressions that keep a value from its own slot only (see `Suppression.covers`)
SLOT_ONLY_REASONS = frozenset({"corrected", "retracted"})


class Suppression(BaseModel):
    """Recorded by a forget, a reject, a correction or a retraction: automatic extraction or a
    replay must not rebuild the value in the scopes it covers."""

    attribute: str
    scope: str | None = None  # None: every scope
    value_hash: str | None = None  # None: every value of the attribute
    at: datetime
    record_ids: list[str] = Field(default_factory=list)
    reason: str = "forget"

    def covers(self, scope: str) -> bool:
        """Does it hold for input in `scope`? A deletion made globally (or for every scope) holds in
        every scope, since a global value is visible in every request; one made in a project or a
        session holds there. A value corrected or retracted away is kept from coming back in its
        own slot's scope only."""
        if self.reason in SLOT_ONLY_REASONS:
            return self.scope == scope
        return self.scope is None or self.scope == "global" or self.scope == scope

    def lifted_by(self, scope: str) -> bool:
        """Does the user's own later statement in `scope` lift it? Only in the scope it was made in
        (a statement for every scope is a global one): a project statement never lifts a global
        deletion, and a global statement leaves a project's deletion standing."""
        return self.scope == scope or (self.scope is None and scope == "global")

    @property
    def key(self) -> str:
        return f"{self.attribute}|{self.scope or '*'}|{self.value_hash or '*'}"


# --- commands -----------------------------------------------------------------------------


class Match(_Wire):
    attribute: str
    value: Any | None = None
    scope: str | None = None
    subject: str = "user"
    # the attribute and every attribute under it ("knowledge.decision" -> "knowledge.decision.db")
    family: bool = False

    def attribute_matches(self, attribute: str) -> bool:
        return attribute == self.attribute or (self.family and attribute.startswith(self.attribute + "."))


class _Command(_Wire):
    id: str | None = None
    tenant: str | None = None
    user: str | None = None


class ForgetCommand(_Command):
    """By record id, by match (attribute and value), or by `about`: the user's own words for what
    to forget ("my favourite band"), resolved among the user's records when the forget applies."""

    op: Literal["forget"]
    record_id: str | None = None
    match: Match | None = None
    about: list[str] | None = None


class RestateCommand(_Command):
    """A new value for something the user's memory already holds, said in passing ("make that
    $150,000", "the priority is market expansion now", "send it to New York instead"): the record
    it replaces is found among the user's records when it applies (memory/resolution.py), by the
    words naming it (`about`), the value it replaces (`old_value`), the kind of value, and what the
    conversation last touched. `change`: the wording marks a change ("instead", "make that", "no
    wait"), not a plain statement. Ambiguous: nothing is replaced, and the session is told."""

    op: Literal["restate"]
    value: str
    about: list[str] = Field(default_factory=list)
    old_value: str | None = None
    change: bool = False
    statement: str
    session: str | None = None
    project: str | None = None
    # what a rule family wrote from the same sentence: not a target (the family has handled it)
    except_attributes: list[str] = Field(default_factory=list)
    evidence: list[Evidence] = Field(default_factory=list)


class CorrectCommand(_Command):
    op: Literal["correct"]
    record_id: str
    value: Any
    statement: str | None = None
    evidence: list[Evidence] = Field(default_factory=list)


class ConfirmCommand(_Command):
    op: Literal["confirm"]
    record_id: str


class RejectCommand(_Command):
    op: Literal["reject"]
    record_id: str


class RetractCommand(_Command):
    """The user invalidates a record without a new value ("that conclusion no longer holds"):
    by id, the live records a match finds (`latest`: only the most recently observed one), or
    those its `about` words name."""

    op: Literal["retract"]
    record_id: str | None = None
    match: Match | None = None
    latest: bool = False
    # the user's words for what no longer holds ("I quit the gym": ["gym"]), found among their
    # records when the command applies; a statement kept in their words loses the clauses naming it
    about: list[str] | None = None
    # what the user says holds now, in their words, with a word of change ("I work from my
    # kitchen table now"): it ends the one earlier record clearly closest to it in meaning (the statement itself
    # is kept as a record of its own)
    replaced_by: str | None = None
    # where `replaced_by` was said: given, the statement is kept as a record of its own when, and
    # only when, it ends an earlier one (a change told as news, "traded it in this morning, it's a
    # Mazda now", is no lasting statement on its own, but it is what holds now of something remembered)
    said_in: Evidence | None = None


class MoveCommand(_Command):
    """A slot and its history to another scope ("keep this for the whole project")."""

    op: Literal["move"]
    attribute: str
    subject: str = "user"
    from_scope: str
    to_scope: str


class RestoreCommand(_Command):
    """The user lifts a suppression explicitly: automatic input may bring the value back."""

    op: Literal["restore"]
    match: Match


class EraseUserCommand(_Command):
    op: Literal["erase_user"]


class ExpireCommand(_Command):
    """Emitted by the expiry sweep; a no-op unless the record really is past valid_until."""

    op: Literal["expire"]
    record_id: str


class ReviewDueCommand(_Command):
    """Emitted by the expiry sweep; a no-op unless the record really is past review_at."""

    op: Literal["review_due"]
    record_id: str


# Any command, for signatures; `Command` is the same union annotated for parsing by its `op`.
AnyCommand = (
    ForgetCommand
    | RestateCommand
    | CorrectCommand
    | ConfirmCommand
    | RejectCommand
    | EraseUserCommand
    | ExpireCommand
    | ReviewDueCommand
    | RetractCommand
    | MoveCommand
    | RestoreCommand
)
Command = Annotated[AnyCommand, Field(discriminator="op")]


def owner(op: Record | AnyCommand) -> tuple[str, str]:
    """(tenant, user) of a validated record or command."""
    if not op.tenant or not op.user:
        raise Rejected(Reason.MISSING_TENANT if not op.tenant else Reason.MISSING_USER)
    return op.tenant, op.user


COMMAND_OPS = (
    "forget",
    "restate",
    "correct",
    "confirm",
    "reject",
    "erase_user",
    "expire",
    "review_due",
    "retract",
    "move",
    "restore",
)


# --- read side ----------------------------------------------------------------------------


class ContextRequest(_Wire):
    tenant: str
    user: str
    session: str | None = None
    project: str | None = None
    text: str = ""
    max_items: int = Field(default=8, ge=1, le=200)
    max_chars: int = Field(default=2000, ge=50, le=100_000)
    # A current-request instruction ("this time in English") for this request only.
    overrides: dict[str, str] = Field(default_factory=dict)
    allow_personal: bool = True
    # the caller's roles and principal ids: a record with an audience is used only for a caller
    # holding one of them (the sidecar sets these from the API key, never from the body)
    roles: list[Annotated[str, Field(max_length=MAX_ID_CHARS)]] = Field(default_factory=list, max_length=64)
    explain: bool = False
    at: datetime | None = None

    @field_validator("at", mode="before")
    @classmethod
    def _time(cls, v: Any) -> Any:
        return wire_time(v)

    def scopes(self) -> list[str]:
        out = ["global"]
        if self.project:
            out.append(parse_scope(f"project:{self.project}"))
        if self.session:
            out.append(parse_scope(f"session:{self.session}"))
        return out


Section = Literal[
    "stated",
    "assumptions",
    "goals",
    "priorities",
    "rules",
    "knowledge",
    "facts",
    "session",
    "request",
]


class ContextItem(BaseModel):
    id: str
    section: Section
    kind: Kind
    attribute: str
    scope: str
    value: Any
    text: str
    score: float
    source: str | None = None


class Exclusion(BaseModel):
    id: str
    attribute: str
    reason: str
    detail: str | None = None  # e.g. why a dependent needs review
    # a record left out as unrelated to the request: its similarity score (memory/semantics/relevance.py)
    score: float | None = None


class ContextResponse(BaseModel):
    tenant: str
    user: str
    at: datetime
    context: str
    items: list[ContextItem]
    used_ids: list[str]
    excluded: list[Exclusion] = Field(default_factory=list)
    considered: int = 0


class OpIn(BaseModel):
    """One input to the engine: a record or a command, at an event time, with an idempotency key.

    `op_id` is the idempotency key: the ops topic uses topic/partition/offset, the scenario runner
    file/line; without one, a hash of the content and event time stands in.
    """

    model_config = ConfigDict(extra="forbid")

    at: datetime
    op_id: str | None = None
    record: dict[str, Any] | None = None
    command: dict[str, Any] | None = None

    @field_validator("at", mode="before")
    @classmethod
    def _time(cls, v: Any) -> Any:
        if v is None:
            raise PydanticCustomError("missing", "at: the event time is required")
        return wire_time(v)

    @field_validator("op_id")
    @classmethod
    def _op_id(cls, v: str | None) -> str | None:
        if v is None:
            return None
        try:
            return check_op_id(v)
        except Rejected as rej:
            raise PydanticCustomError(rej.reason.value, rej.detail) from None

    @model_validator(mode="after")
    def _shape(self) -> OpIn:
        for body in (self.record, self.command):
            if body is not None:
                try:
                    check_shape(body, MAX_DEPTH - 1, what="an op")
                except Rejected as rej:
                    raise PydanticCustomError(rej.reason.value, rej.detail) from None
        return self
