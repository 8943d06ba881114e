"""Wire schemas of the topics (JSON values). Records and commands use memory/'s wire models."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from slotstream.memory.extraction import Turn
from slotstream.memory.models import OpIn, parse_time

__all__ = ["ChangeMessage", "DeadLetter", "OpIn", "SourceRef", "Turn"]


class SourceRef(BaseModel):
    topic: str
    partition: int
    offset: int


class ChangeMessage(BaseModel):
    """One per applied op on the changes topic: audit, cache invalidation, test barriers."""

    op_id: str
    outcome: str
    reason: str | None = None
    tenant: str | None = None
    user: str | None = None
    at: datetime
    changes: list[dict[str, Any]] = Field(default_factory=list)
    source: SourceRef | None = None


class DeadLetter(BaseModel):
    """Refused input: why, where it came from, and enough to find and recognise the original in
    its topic (length, hash, a redacted excerpt) without keeping what it said."""

    model_config = ConfigDict(extra="forbid")

    reason: str
    detail: str = ""
    processor: Literal["extraction", "reconciliation", "expiry"]
    source: SourceRef
    key: str | None = None
    excerpt: str | None = None  # the start of the payload, secrets redacted; none for a refused secret
    length: int = 0  # of the original payload, in bytes
    sha256: str = ""  # of the original payload
    at: datetime | None = None  # event time when it could be read
    error: str | None = None  # the error's class, for internal_error

    @field_validator("at", mode="before")
    @classmethod
    def _time(cls, v: Any) -> Any:
        return None if v is None else parse_time(v)
