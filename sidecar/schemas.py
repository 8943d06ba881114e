"""The sidecar's request and response bodies (the Python client uses the same models)."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Discriminator, Field, Tag, field_validator
from pydantic.json_schema import JsonDict
from pydantic_core import PydanticCustomError

from slotstream.memory.errors import Reason
from slotstream.memory.limits import MAX_ID_CHARS, MAX_TIME, MAX_TURN_CHARS, MIN_TIME
from slotstream.memory.models import ID_RE, OP_ID_RE, SCOPE_ID_RE, Exclusion, wire_id, wire_time

MAX_QUERY_CHARS = 4_000
MAX_TURNS_PER_REQUEST = 100
MAX_OPS_PER_REQUEST = 500
MAX_WAIT_SECONDS = 30.0
MAX_STATEMENT_CHARS = 2_000


def anchored(pattern: re.Pattern[str]) -> str:
    """A pattern for the OpenAPI document. The server matches its ids whole (`fullmatch`); a JSON
    Schema pattern is searched, and a trailing `$` there also matches before a final newline, which
    the server refuses: the document's patterns end at the string's end (`(?!\\n)` after `$`)."""
    return pattern.pattern.removesuffix("$") + "$(?!\\n)"


# What the document says of ids, scopes and times (the validators below enforce the same; these
# annotate the schema only, so a request's error keeps the engine's reason code)
ID_SCHEMA: JsonDict = {"pattern": anchored(ID_RE), "minLength": 1, "maxLength": MAX_ID_CHARS}
SCOPE_ID_SCHEMA: JsonDict = {"pattern": anchored(SCOPE_ID_RE), "minLength": 1, "maxLength": MAX_ID_CHARS}
OP_ID_SCHEMA: JsonDict = {"pattern": anchored(OP_ID_RE), "minLength": 1, "maxLength": 256}
# RFC 3339 with its zone: the one form of a time over HTTP (Python reads more forms; a client
# sends this one). The server checks the form, then the range (limits.check_time, its own reason
# code); the document states both, the years in its pattern.
_YEARS = "(19[7-9][0-9]|2[01][0-9][0-9])"
_RFC3339 = (
    r"^{year}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
    r"T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]+)?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$"
)
TIME_RE = re.compile(_RFC3339.format(year=r"[0-9]{4}"))
MAX_TIME_CHARS = 64
TIME_SCHEMA: JsonDict = {
    "format": "date-time",
    "pattern": anchored(re.compile(_RFC3339.format(year=_YEARS))),
    "maxLength": MAX_TIME_CHARS,
    "description": f"RFC 3339 with its zone (Z or an offset), from {MIN_TIME.year} to {MAX_TIME.year - 1}",
}


class _Body(BaseModel):
    # strict: no string-to-number or number-to-bool coercion ("max_items": "8", "explain": 0 are refused)
    model_config = ConfigDict(extra="forbid", strict=True)


def _http_time(value: Any) -> Any:
    """A time sent over HTTP: RFC 3339 with its zone (Z or an offset); one without is refused rather
    than read as UTC."""
    if isinstance(value, str) and len(value) <= MAX_TIME_CHARS:
        if not _ZONE.search(value):
            raise PydanticCustomError(Reason.INVALID_FIELD.value, "a time needs its zone: Z or an offset like +02:00")
        if not TIME_RE.fullmatch(value):
            raise PydanticCustomError(Reason.INVALID_FIELD.value, "a time is RFC 3339: 2026-01-31T09:30:00+02:00")
    return wire_time(value)


_ZONE = re.compile(r"([Zz]|[+-]\d{2}:?\d{2})$")


def _integral(value: Any) -> Any:
    """JSON has one number type: 8.0 is the integer 8 (as the document's `integer` says); 8.5 and
    "8" are still refused."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


# an integer field of a body
JsonInt = Annotated[int, BeforeValidator(_integral)]


def _scope_id(value: Any) -> Any:
    if value is not None and (not isinstance(value, str) or not SCOPE_ID_RE.fullmatch(value)):
        raise PydanticCustomError(Reason.INVALID_SCOPE.value, "1..128 characters without whitespace, braces or |")
    return value


def _op_id(value: Any) -> Any:
    if value is not None and (not isinstance(value, str) or not OP_ID_RE.fullmatch(value)):
        raise PydanticCustomError(Reason.INVALID_ID.value, "1..256 printable characters without whitespace")
    return value


class ContextQuery(_Body):
    """A context lookup. The tenant is the key's; `at` defaults to now."""

    user: str = Field(json_schema_extra=ID_SCHEMA)
    project: str | None = Field(None, json_schema_extra=SCOPE_ID_SCHEMA)
    session: str | None = Field(None, json_schema_extra=SCOPE_ID_SCHEMA)
    query: str = Field("", max_length=MAX_QUERY_CHARS)
    max_items: JsonInt = Field(8, ge=1, le=200)
    max_chars: JsonInt = Field(2000, ge=50, le=100_000)
    at: datetime | None = Field(None, json_schema_extra=TIME_SCHEMA)
    explain: bool = False

    model_config = ConfigDict(json_schema_extra={"examples": [{"user": "alice", "query": "what do I eat?"}]})

    _user = field_validator("user", mode="before")(lambda v: wire_id(v, Reason.MISSING_USER))
    _scopes = field_validator("project", "session", mode="before")(_scope_id)
    _at = field_validator("at", mode="before")(_http_time)


class ContextLine(BaseModel):
    id: str
    attribute: str
    scope: str
    value: Any
    text: str
    source: str | None = None


class ContextResult(BaseModel):
    user: str
    at: datetime
    context: str  # the rendered block, ready for a prompt
    sections: dict[str, list[ContextLine]]  # stated, assumptions, goals, priorities, rules, knowledge, facts, ...
    used_ids: list[str]
    excluded: list[Exclusion] | None = None  # with `explain`: why each other candidate was left out


class TurnIn(_Body):
    user: str = Field(json_schema_extra=ID_SCHEMA)
    session: str | None = Field(None, json_schema_extra=SCOPE_ID_SCHEMA)
    project: str | None = Field(None, json_schema_extra=SCOPE_ID_SCHEMA)
    role: Literal["user", "assistant", "system"] = "user"
    text: str = Field(max_length=MAX_TURN_CHARS)
    at: datetime | None = Field(None, json_schema_extra=TIME_SCHEMA)
    turn_id: str | None = Field(None, json_schema_extra=OP_ID_SCHEMA)

    model_config = ConfigDict(json_schema_extra={"examples": [{"user": "alice", "text": "I'm vegetarian now"}]})

    _user = field_validator("user", mode="before")(lambda v: wire_id(v, Reason.MISSING_USER))
    _scopes = field_validator("session", "project", mode="before")(_scope_id)
    _at = field_validator("at", mode="before")(_http_time)
    _turn_id = field_validator("turn_id", mode="before")(_op_id)


class TurnBatch(_Body):
    turns: list[TurnIn] = Field(min_length=1, max_length=MAX_TURNS_PER_REQUEST)


def _one_or_batch(list_field: str) -> Discriminator:
    """A body is one item or `{list_field: [...]}`: decided by that key, so an error names the
    field of the form the caller sent (not whichever form pydantic tried first)."""
    return Discriminator(lambda v: "batch" if isinstance(v, dict) and list_field in v else "one")


class OpBody(_Body):
    """A record or a command, as on the ops topic; its tenant is the key's."""

    record: dict[str, Any] | None = None
    command: dict[str, Any] | None = None
    at: datetime | None = Field(None, json_schema_extra=TIME_SCHEMA)
    op_id: str | None = Field(None, json_schema_extra=OP_ID_SCHEMA)

    _at = field_validator("at", mode="before")(_http_time)
    _op_id = field_validator("op_id", mode="before")(_op_id)


class OpBatch(_Body):
    ops: list[OpBody] = Field(min_length=1, max_length=MAX_OPS_PER_REQUEST)


TurnsBody = Annotated[Annotated[TurnBatch, Tag("batch")] | Annotated[TurnIn, Tag("one")], _one_or_batch("turns")]
OpsBody = Annotated[Annotated[OpBatch, Tag("batch")] | Annotated[OpBody, Tag("one")], _one_or_batch("ops")]


class CorrectBody(_Body):
    model_config = ConfigDict(
        json_schema_extra={"examples": [{"value": "vegan", "statement": "I'm vegan, not vegetarian"}]}
    )

    value: Any
    statement: str | None = Field(None, max_length=MAX_STATEMENT_CHARS)


class OpOutcome(BaseModel):
    op_id: str
    outcome: str  # applied | refreshed | duplicate | rejected | dropped | noop | pending
    reason: str | None = None


class Accepted(BaseModel):
    """One turn or op: where it went, and with `wait`, what it did."""

    id: str  # the turn id or op id
    topic: str
    partition: int
    offset: int
    outcome: str | None = None  # ops: as OpOutcome; turns: "extracted" once extraction ran, else "pending"
    reason: str | None = None
    ops: list[OpOutcome] | None = None  # turns, with `wait`: the ops extracted from it
    refused: list[str] | None = None  # turns, with `wait`: what extraction refused (secret_value, ...)


class IngestResult(BaseModel):
    accepted: list[Accepted]
    complete: bool  # every item's outcome is known (always false without `wait`)


class MemoryPage(BaseModel):
    items: list[dict[str, Any]]
    next_cursor: int | None  # pass it back as `cursor`; None: the last page


class History(BaseModel):
    record: dict[str, Any]
    lineage: list[dict[str, Any]]  # the slot's records, oldest first: what replaced what, and why


class Problem(BaseModel):
    """An error body: a reason code (the engine's where it applies), the field, a detail."""

    reason: str
    detail: str = ""
    field: str | None = None
