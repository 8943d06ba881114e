"""Turn wire input into validated domain objects, or reject it with a reason code.

Validation never looks at stored state: it is the same for the engine, the ops topic consumer
and the scenario runner, so bad input is refused before anything is read or written.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from datetime import datetime
from typing import Any, TypeVar

import orjson
from pydantic import BaseModel, TypeAdapter, ValidationError

from .errors import Reason, Rejected
from .limits import (
    MAX_ABOUT_WORDS,
    MAX_DEPTH,
    MAX_EVIDENCE,
    MAX_ID_CHARS,
    MAX_MESSAGE_BYTES,
    MAX_VALUE_CHARS,
    MAX_VALUE_DEPTH,
    check_shape,
    check_text,
    within_shape,
)
from .models import (
    COMMAND_OPS,
    ID_RE,
    SLOT_DEPENDENCY,
    AnyCommand,
    Authority,
    Command,
    Evidence,
    EvidenceEntry,
    Kind,
    OpIn,
    Record,
    RecordIn,
    Sensitivity,
    SourceType,
    Status,
    check_id,
    check_slot_parts,
    iso,
    parse_scope,
    to_ms,
)
from .registry import TEMPORARY_LIFETIME, AttributeSpec, resolve
from .secret_spans import REDACTION_MARK, bare_secret, contains_secret, redact
from .secrets import is_secret_name, value_has_secret

_COMMAND = TypeAdapter(Command)
# a role ("vp", "finance") or a principal ("user:alice", "key:3f2a"): no whitespace or braces
AUDIENCE_RE = re.compile(r"^[A-Za-z0-9_.@+:\-]{1,128}$")
_FIELD_REASONS = {
    "kind": Reason.UNKNOWN_KIND,
    "authority": Reason.INVALID_FIELD,
    "confidence": Reason.CONFIDENCE_OUT_OF_RANGE,
}


def normalize_value(value: Any) -> str:
    """Comparable form of a value: NFKC, case-folded, whitespace collapsed; JSON for structures."""
    if isinstance(value, str):
        text = value
    elif isinstance(value, (dict, list)):
        text = orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
    else:
        text = str(value)
    text = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(text.split()).strip(" .。!！")


def value_hash(tenant: str, user: str, attribute: str, normalized: str) -> str:
    # Suppressions and tombstones keep a hash, not the forgotten value itself.
    return hashlib.sha256(f"{tenant}\x1f{user}\x1f{attribute}\x1f{normalized}".encode()).hexdigest()[:32]


def derive_id(prefix: str, *parts: Any) -> str:
    h = hashlib.sha1("\x1f".join(str(p) for p in parts).encode()).hexdigest()[:20]
    return f"{prefix}{h}"


_REASON_VALUES = {r.value: r for r in Reason}


def pydantic_reason(err: ValidationError) -> Rejected:
    """The first error of a pydantic validation as a reason code; never the offending input,
    which may be a secret or megabytes long."""
    first = err.errors(include_input=False, include_url=False)[0]
    loc = first.get("loc") or ("?",)
    field = ".".join(str(part) for part in loc) or "?"
    kind = str(first.get("type"))
    if kind == "missing":
        return Rejected(Reason.MISSING_FIELD, field)
    if kind in _REASON_VALUES:  # raised by our own validators with a reason code as its type
        return Rejected(_REASON_VALUES[kind], f"{field}: {first.get('msg')}")
    return Rejected(_FIELD_REASONS.get(str(loc[0]), Reason.INVALID_FIELD), f"{field}: {first.get('msg')}"[:300])


M = TypeVar("M", bound=BaseModel)


def parse_message(raw: bytes, model: type[M], defaults: dict[str, Any] | None = None) -> M:
    """One JSON object message as `model`, within the size and nesting bounds, or Rejected. The
    processors read every turn and op so, and the sidecar reads what it is about to produce so:
    what passes the door passes the processor's read."""
    if len(raw) > MAX_MESSAGE_BYTES:
        raise Rejected(Reason.TOO_LARGE, f"{len(raw)} bytes, at most {MAX_MESSAGE_BYTES}")
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as err:
        raise Rejected(Reason.INVALID_JSON, str(err)[:200]) from None
    if not within_shape(raw, MAX_DEPTH):
        check_shape(data, MAX_DEPTH)
    if not isinstance(data, dict):
        raise Rejected(Reason.INVALID_FIELD, f"a {model.__name__} message is a JSON object")
    for k, v in (defaults or {}).items():
        if data.get(k) is None:
            data[k] = v
    try:
        return model.model_validate(data)
    except ValidationError as err:
        raise pydantic_reason(err) from None


def check_event_skew(at: datetime, ingest_ms: int, max_skew_seconds: float) -> None:
    """Event time may trail ingest time by any amount (backfills) but lead it only by the skew:
    one message dated years ahead would otherwise move its user's event-time clock. The worker
    measures against the message's timestamp, the sidecar against its clock before it produces."""
    if (to_ms(at) or 0) > ingest_ms + max_skew_seconds * 1000:
        raise Rejected(
            Reason.EVENT_TIME_IN_FUTURE,
            f"event time {iso(at)} is more than {max_skew_seconds:g} s after ingest time",
        )


def check_no_secret(*texts: str | None) -> None:
    """Refuse when any of the texts holds a secret or a redaction marker. One search over all of
    them together: a record's fields are checked in a single pass."""
    joined = "\n".join(t for t in texts if t)
    if joined and (contains_secret(joined) or REDACTION_MARK.search(joined)):
        raise Rejected(Reason.SECRET_VALUE, "secrets (passwords, keys, codes, card numbers) are never stored")


def check_value(value: Any, attribute: str) -> str:
    """A record value within bounds and without a credential-named key or attribute; returns its
    text form, for the caller to search together with the record's other texts."""
    if isinstance(value, (dict, list)):
        check_shape(value, MAX_VALUE_DEPTH, what="a value")
    try:
        text = value if isinstance(value, str) else orjson.dumps(value).decode()
    except (TypeError, orjson.JSONEncodeError):
        raise Rejected(Reason.INVALID_FIELD, "value: not representable as JSON") from None
    check_text(text, "value", MAX_VALUE_CHARS)
    if (
        is_secret_name(attribute)
        or (isinstance(value, (dict, list)) and value_has_secret(value))
        or (isinstance(value, str) and bare_secret(value))  # a value that is itself a key or token
    ):
        raise Rejected(Reason.SECRET_VALUE, "secrets (passwords, keys, codes, card numbers) are never stored")
    return text


def parse_record(data: Any) -> RecordIn:  # raw JSON: checked below
    if not isinstance(data, dict):
        raise Rejected(Reason.INVALID_FIELD, "record must be an object")
    try:
        return RecordIn.model_validate(data)
    except ValidationError as err:
        raise pydantic_reason(err) from None


def parse_command(data: Any) -> AnyCommand:  # raw JSON: checked below
    if not isinstance(data, dict):
        raise Rejected(Reason.INVALID_FIELD, "command must be an object")
    if data.get("op") not in COMMAND_OPS:
        raise Rejected(Reason.UNKNOWN_COMMAND, repr(data.get("op")))
    try:
        cmd = _COMMAND.validate_python(data)
    except ValidationError as err:
        raise pydantic_reason(err) from None
    check_id(cmd.tenant, Reason.MISSING_TENANT)
    check_id(cmd.user, Reason.MISSING_USER)
    record_id = getattr(cmd, "record_id", None)
    if record_id is not None:
        check_id(record_id, Reason.INVALID_ID)
    about = getattr(cmd, "about", None)
    replaced_by = getattr(cmd, "replaced_by", None)
    if replaced_by is not None:
        check_text(replaced_by, "replaced_by")
        if not replaced_by.strip():
            raise Rejected(Reason.MISSING_FIELD, "replaced_by: an empty statement names nothing")
        check_no_secret(replaced_by)
    said_in = getattr(cmd, "said_in", None)
    if said_in is not None:
        if replaced_by is None:
            raise Rejected(Reason.MISSING_FIELD, "said_in: says where replaced_by was said, and there is none")
        _check_evidence([said_in])
        check_no_secret(said_in.source_id)
    if cmd.op in ("forget", "retract") and not cmd.record_id and cmd.match is None and not about and not replaced_by:
        raise Rejected(Reason.MISSING_FIELD, f"{cmd.op} needs record_id, match, about or replaced_by")
    if about:
        if len(about) > MAX_ABOUT_WORDS:
            raise Rejected(Reason.TOO_LARGE, f"about: more than {MAX_ABOUT_WORDS} words")
        for word in about:
            check_text(word, "about", MAX_ID_CHARS)
            if not word.strip():
                raise Rejected(Reason.MISSING_FIELD, "about: an empty word names nothing")
        check_no_secret(*about)
    if cmd.op == "restate":
        check_text(cmd.statement, "statement")
        _check_evidence(cmd.evidence)
        check_no_secret(check_value(cmd.value, ""), cmd.old_value, cmd.statement, *(e.source_id for e in cmd.evidence))
        if len(cmd.except_attributes) > MAX_ABOUT_WORDS:
            raise Rejected(Reason.TOO_LARGE, f"except_attributes: more than {MAX_ABOUT_WORDS}")
        for attribute in cmd.except_attributes:
            check_slot_parts("user", attribute)
        if cmd.old_value is not None:
            check_text(cmd.old_value, "old_value", MAX_VALUE_CHARS)
            check_value(cmd.old_value, "")  # the value it replaces: a key alone is refused as a value is
        for name in ("session", "project"):
            if getattr(cmd, name) is not None:
                check_id(getattr(cmd, name), Reason.INVALID_SCOPE)
    match = getattr(cmd, "match", None)
    if match is not None:
        check_slot_parts(match.subject, match.attribute)
        if match.value is not None:
            check_no_secret(check_value(match.value, match.attribute))
        if match.scope is not None:
            match.scope = parse_scope(match.scope)
    if cmd.op == "move":
        check_slot_parts(cmd.subject, cmd.attribute)
        cmd.from_scope, cmd.to_scope = parse_scope(cmd.from_scope), parse_scope(cmd.to_scope)
        if cmd.from_scope == cmd.to_scope:
            raise Rejected(Reason.INVALID_SCOPE, "a move needs two different scopes")
        if resolve(cmd.attribute, None).kind == Kind.SESSION_CONTEXT and not cmd.to_scope.startswith("session:"):
            raise Rejected(Reason.SESSION_CONTEXT_NOT_IN_SESSION, "session_context lives with a session scope")
    if cmd.op == "correct":
        if cmd.value is None or (isinstance(cmd.value, str) and not cmd.value.strip()):
            raise Rejected(Reason.MISSING_FIELD, "value: a correction needs the new value")
        check_text(cmd.statement, "statement")
        _check_evidence(cmd.evidence)
        check_no_secret(check_value(cmd.value, ""), cmd.statement, *(ev.source_id for ev in cmd.evidence))
    return cmd


def _check_evidence(evidence: list[Evidence]) -> None:
    if len(evidence) > MAX_EVIDENCE:
        raise Rejected(Reason.TOO_LARGE, f"evidence: {len(evidence)} entries, at most {MAX_EVIDENCE}")
    for ev in evidence:
        check_text(ev.quote, "evidence.quote")
        check_text(ev.source_id, "evidence.source_id", 256)  # kept as is; a quote is redacted instead


def _unit(name: str, v: float | None, default: float, reason: Reason = Reason.VALUE_OUT_OF_RANGE) -> float:
    if v is None:
        return default
    if not 0.0 <= v <= 1.0:
        raise Rejected(reason, f"{name}={v} outside 0..1")
    return float(v)


def build_record(rin: RecordIn, *, op_id: str, at: datetime) -> Record:
    """Validate a wire record and fill its defaults from the registry. Raises `Rejected`."""
    tenant = check_id(rin.tenant, Reason.MISSING_TENANT)
    user = check_id(rin.user, Reason.MISSING_USER)
    if rin.id is not None:
        check_id(rin.id, Reason.INVALID_ID)
    if not rin.attribute:
        raise Rejected(Reason.MISSING_FIELD, "attribute")
    check_slot_parts(rin.subject, rin.attribute)
    scope = parse_scope(rin.scope)
    kind, spec = _kind_and_spec(rin)
    if rin.value is None or (isinstance(rin.value, str) and not rin.value.strip()):
        raise Rejected(Reason.MISSING_FIELD, "value")
    explicit = rin.authority in (Authority.USER_EXPLICIT, Authority.AUTHORITATIVE_SOURCE)
    confidence = _unit("confidence", rin.confidence, 1.0 if explicit else 0.6, Reason.CONFIDENCE_OUT_OF_RANGE)
    importance = _unit("importance", rin.importance, spec.importance)
    actionability = _unit("actionability", rin.actionability, spec.actionability)
    if rin.valid_from and rin.valid_until and rin.valid_until <= rin.valid_from:
        raise Rejected(Reason.VALIDITY_INVERTED, "valid_until must be after valid_from")
    sensitivity = _sensitivity(rin, spec)
    value_text = _check_content(rin, scope, sensitivity)
    depends_on = _check_dependencies(rin)
    audience = _check_audience(rin.audience)
    _check_kind_rules(rin, kind, scope)
    observed = rin.observed_at or at
    valid_until, review_at = _lifetime(rin, kind, spec, scope, observed)
    return Record(
        id=rin.id or derive_id("r_", op_id),
        tenant=tenant,
        user=user,
        kind=kind,
        subject=rin.subject or "user",
        attribute=rin.attribute,
        scope=scope,
        value=rin.value,
        normalized_value=normalize_value(rin.value),
        statement=rin.statement
        or (value_text if kind != Kind.PREFERENCE else f"{spec.label or rin.attribute}: {value_text}"),
        authority=rin.authority,
        status=Status.ACTIVE,
        confidence=confidence,
        importance=importance,
        consequence=rin.consequence or spec.consequence,
        actionability=actionability,
        sensitivity=sensitivity,
        cardinality=spec.cardinality,
        observed_at=observed,
        ingested_at=at,
        valid_from=rin.valid_from,
        valid_until=valid_until,
        review_at=review_at,
        evidence=_evidence(rin, observed),
        corrects=rin.corrects,
        corrects_current=rin.corrects_current and rin.corrects is None,
        updated_at=at,
        op_id=op_id,
        depends_on=depends_on,
        audience=audience,
    )


def _evidence(rin: RecordIn, observed: datetime) -> list[EvidenceEntry]:
    """The record's evidence, quotes redacted (rule 7), each dated (when not, as the record)."""
    return [
        EvidenceEntry(
            source_type=ev.source_type,
            source_id=ev.source_id,
            quote=redact(ev.quote) if ev.quote else ev.quote,
            at=ev.at or observed,
        )
        for ev in rin.evidence
    ]


MAX_DEPENDENCIES = 32
MAX_AUDIENCE = 32


def _sensitivity(rin: RecordIn, spec: AttributeSpec) -> Sensitivity:
    """A special category stays special whatever the producer says, and only the user's own
    statement (or an authoritative document) of it is stored: an inference is refused."""
    given = rin.sensitivity or spec.sensitivity
    special = Sensitivity.SPECIAL in (given, spec.sensitivity)
    if not special or given == Sensitivity.SECRET:
        return given
    if rin.authority not in (Authority.USER_EXPLICIT, Authority.AUTHORITATIVE_SOURCE):
        raise Rejected(
            Reason.SPECIAL_CATEGORY_INFERRED,
            f"{rin.attribute}: a special category is stored only when the user states it",
        )
    return Sensitivity.SPECIAL


def _check_dependencies(rin: RecordIn) -> list[str]:
    if len(rin.depends_on) > MAX_DEPENDENCIES:
        raise Rejected(Reason.TOO_LARGE, f"depends_on: {len(rin.depends_on)} entries, at most {MAX_DEPENDENCIES}")
    out: list[str] = []
    for dep in rin.depends_on:
        if not isinstance(dep, str):
            raise Rejected(Reason.INVALID_DEPENDENCY, "depends_on entries are record ids or slot:<attribute>")
        if dep.startswith(SLOT_DEPENDENCY):
            try:
                check_slot_parts(rin.subject, dep[len(SLOT_DEPENDENCY) :])
            except Rejected:
                raise Rejected(Reason.INVALID_DEPENDENCY, "slot:<attribute> needs a valid attribute") from None
        elif not ID_RE.fullmatch(dep):
            raise Rejected(Reason.INVALID_DEPENDENCY, "depends_on entries are record ids or slot:<attribute>")
        if dep == rin.id or dep == f"{SLOT_DEPENDENCY}{rin.attribute}":
            raise Rejected(Reason.INVALID_DEPENDENCY, "a record cannot depend on itself")
        if dep not in out:
            out.append(dep)
    return out


def _check_audience(audience: list[str]) -> list[str]:
    if len(audience) > MAX_AUDIENCE:
        raise Rejected(Reason.TOO_LARGE, f"audience: {len(audience)} entries, at most {MAX_AUDIENCE}")
    for entry in audience:
        if not isinstance(entry, str) or not AUDIENCE_RE.fullmatch(entry):
            raise Rejected(Reason.INVALID_FIELD, f"audience: entries must match {AUDIENCE_RE.pattern}")
    return sorted(set(audience))


def _kind_and_spec(rin: RecordIn) -> tuple[Kind, AttributeSpec]:
    """The record's kind (given, else the registry's) and its attribute's spec."""
    given: Kind | None = None
    if rin.kind is not None:
        try:
            given = Kind(rin.kind)
        except ValueError:
            raise Rejected(Reason.UNKNOWN_KIND, repr(rin.kind)) from None
    spec = resolve(rin.attribute, given)
    kind = given or spec.kind
    if kind is None:
        raise Rejected(Reason.UNKNOWN_KIND, f"no kind given and {rin.attribute!r} is not registered")
    return kind, spec


def _check_content(rin: RecordIn, scope: str, sensitivity: Sensitivity) -> str:
    """Evidence, size and secrets (rule 7); returns the value's text."""
    for ev in rin.evidence:
        if ev.source_type == SourceType.ASSISTANT:
            raise Rejected(Reason.ASSISTANT_NOT_EVIDENCE, "an assistant's own answer is never evidence")
    _check_evidence(rin.evidence)
    if sensitivity == Sensitivity.SECRET:
        raise Rejected(Reason.SECRET_VALUE, "secrets (passwords, keys, codes, card numbers) are never stored")
    value_text = check_value(rin.value, rin.attribute)
    check_text(rin.statement, "statement")
    check_no_secret(
        value_text, rin.statement, rin.attribute, rin.subject, scope, *(ev.source_id for ev in rin.evidence)
    )
    return value_text


def _check_kind_rules(rin: RecordIn, kind: Kind, scope: str) -> None:
    """Session context lives in a session; a fact needs a source and a validity window (rule 8),
    and only facts come from an authoritative source."""
    if kind == Kind.SESSION_CONTEXT and not scope.startswith("session:"):
        raise Rejected(Reason.SESSION_CONTEXT_NOT_IN_SESSION, "session_context lives with a session scope")
    if kind == Kind.FACT:
        if not any(ev.source_id and ev.source_type in (SourceType.DOCUMENT, SourceType.SYSTEM) for ev in rin.evidence):
            raise Rejected(Reason.FACT_WITHOUT_SOURCE, "a fact needs evidence with source_type and source_id")
        if rin.valid_from is None or (rin.valid_until is None and rin.review_at is None):
            raise Rejected(Reason.FACT_WITHOUT_VALIDITY, "a fact needs valid_from and valid_until or review_at")
    elif rin.authority == Authority.AUTHORITATIVE_SOURCE:
        raise Rejected(Reason.SOURCE_NOT_AUTHORIZED, "authoritative_source writes facts only")


def _lifetime(
    rin: RecordIn, kind: Kind, spec: AttributeSpec, scope: str, observed: datetime
) -> tuple[datetime | None, datetime | None]:
    """(valid_until, review_at): as given, else from the registry; a session preference without
    a lifetime of its own lives `TEMPORARY_LIFETIME` ("this time")."""
    valid_until, review_at = rin.valid_until, rin.review_at
    start = rin.valid_from or observed
    if valid_until is None and kind != Kind.FACT:
        lifetime = spec.lifetime
        if lifetime is None and scope.startswith("session:") and kind == Kind.PREFERENCE:
            lifetime = TEMPORARY_LIFETIME
        if lifetime is not None:
            valid_until = start + lifetime
    if review_at is None and spec.review is not None and kind != Kind.FACT:
        review_at = start + spec.review
    if valid_until is not None and rin.valid_from is not None and valid_until <= rin.valid_from:
        raise Rejected(Reason.VALIDITY_INVERTED, "valid_until must be after valid_from")
    return valid_until, review_at


def op_id_for(op: OpIn) -> str:
    if op.op_id:
        return op.op_id
    body = orjson.dumps({"r": op.record, "c": op.command, "at": iso(op.at)}, option=orjson.OPT_SORT_KEYS)
    return "h:" + hashlib.sha1(body).hexdigest()[:24]


def validate_op(op: OpIn, op_id: str | None = None) -> tuple[str, Record | AnyCommand]:
    """(op_id, Record | command) or raises Rejected. Pure: reads no state."""
    op_id = op_id or op_id_for(op)
    if (op.record is None) == (op.command is None):
        raise Rejected(Reason.MISSING_FIELD, "exactly one of record or command")
    if op.record is not None:
        return op_id, build_record(parse_record(op.record), op_id=op_id, at=op.at)
    assert op.command is not None
    return op_id, parse_command(op.command)
