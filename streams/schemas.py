"""Wire schemas of the topics (JSON values). Records and commands use memory/'s wire models."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from memory.extraction import Turn
from memory.models import OpIn, parse_time

__all__ = ["Turn", "OpIn", "ChangeMessage", "DeadLetter", "SourceRef"]


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
    """Bad input: why, where it came from, and the original payload, untouched."""

    model_config = ConfigDict(extra="forbid")

    reason: str
    detail: str = ""
    processor: Literal["extraction", "reconciliation", "expiry"]
    source: SourceRef
    key: str | None = None
    payload: str  # the original bytes, decoded as UTF-8 with replacement characters
    at: datetime | None = None  # event time when it could be read

    @field_validator("at", mode="before")
    @classmethod
    def _time(cls, v: Any) -> Any:
        return None if v is None else parse_time(v)
