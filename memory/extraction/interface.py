"""The extraction interface: a turn in, proposed records and commands out."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from ..errors import Reason
from ..limits import MAX_TURN_CHARS
from ..models import OP_ID_RE, SCOPE_ID_RE, iso, wire_id, wire_time
from ..validation import derive_id

REFUSED_SECRET = Reason.SECRET_VALUE.value  # "secret_value"
REFUSED_NO_SESSION = "temporary_without_session"
REFUSED_NO_PROJECT = "project_scope_without_project"
# the rules found something lasting, the lasting model read the turn as chat: nothing new is kept
REFUSED_CHAT = "read_as_chat"


class Turn(BaseModel):
    """One conversation turn as it arrives on the turns topic (event time in `at`)."""

    model_config = ConfigDict(extra="ignore")

    tenant: str
    user: str
    session: str | None = None
    project: str | None = None
    role: Literal["user", "assistant", "system"] = "user"
    text: str
    at: datetime
    # The processor sets it (e.g. topic/partition/offset); without one a hash of the turn stands in.
    turn_id: str | None = None
    # The producer waits on this turn: extraction records the op ids it produced for it.
    track: bool = False

    @field_validator("at", mode="before")
    @classmethod
    def _time(cls, v: Any) -> Any:
        return wire_time(v)

    @field_validator("tenant", mode="before")
    @classmethod
    def _tenant(cls, v: Any) -> Any:
        return wire_id(v, Reason.MISSING_TENANT)

    @field_validator("user", mode="before")
    @classmethod
    def _user(cls, v: Any) -> Any:
        return wire_id(v, Reason.MISSING_USER)

    @field_validator("session", "project", mode="before")
    @classmethod
    def _scope_id(cls, v: Any) -> Any:
        if v is not None and (not isinstance(v, str) or not SCOPE_ID_RE.fullmatch(v)):
            raise PydanticCustomError(
                Reason.INVALID_SCOPE.value,
                "a session or project id is 1..128 characters without whitespace, braces or |",
            )
        return v

    @field_validator("turn_id", mode="before")
    @classmethod
    def _turn_id(cls, v: Any) -> Any:
        if v is not None and (not isinstance(v, str) or not OP_ID_RE.fullmatch(v)):
            raise PydanticCustomError(Reason.INVALID_ID.value, "a turn id is 1..256 printable characters")
        return v

    @field_validator("text")
    @classmethod
    def _text(cls, v: str) -> str:
        if len(v) > MAX_TURN_CHARS:
            raise PydanticCustomError(Reason.TOO_LARGE.value, f"text: {len(v)} characters, at most {MAX_TURN_CHARS}")
        return v

    def source_id(self) -> str:
        return self.turn_id or derive_id("turn_", self.tenant, self.user, iso(self.at), self.text)


class Proposal(BaseModel):
    """Either a record (RecordIn wire dict) or a command dict, never both."""

    record: dict[str, Any] | None = None
    command: dict[str, Any] | None = None
    # True when the user explicitly corrects/changes the value: link to the slot's current record.
    link_current: bool = False
    rule: str = ""  # which rule produced it (audit, tests)

    @model_validator(mode="after")
    def _one(self) -> Proposal:
        if (self.record is None) == (self.command is None):
            raise ValueError("a proposal is exactly one of record or command")
        return self


class Extraction(BaseModel):
    items: list[Proposal] = Field(default_factory=list)
    refused: list[str] = Field(default_factory=list)  # reason codes, each once, in order
    redacted_text: str = ""

    @property
    def records(self) -> list[dict[str, Any]]:
        return [p.record for p in self.items if p.record is not None]

    @property
    def commands(self) -> list[dict[str, Any]]:
        return [p.command for p in self.items if p.command is not None]


@runtime_checkable
class Extractor(Protocol):
    def extract(self, turn: Turn) -> Extraction: ...
