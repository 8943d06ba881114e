"""What the processors read and write on Kafka, independent of the Faust app that moves it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeVar

import orjson
from pydantic import BaseModel, ValidationError

from memory.errors import Reason
from streams.schemas import DeadLetter, SourceRef

M = TypeVar("M", bound=BaseModel)


@dataclass(slots=True)
class RawMessage:
    topic: str
    partition: int
    offset: int
    key: bytes | None
    value: bytes | None

    @property
    def source(self) -> SourceRef:
        return SourceRef(topic=self.topic, partition=self.partition, offset=self.offset)

    @property
    def source_id(self) -> str:
        return f"{self.topic}:{self.partition}:{self.offset}"


Keyed = tuple[bytes | None, bytes]


@dataclass
class BatchOutput:
    """A batch's records to produce; the source offsets count as done only once they are delivered."""

    ops: list[Keyed] = field(default_factory=list)
    changes: list[Keyed] = field(default_factory=list)
    dead: list[Keyed] = field(default_factory=list)
    watermark: dict[int, int] = field(default_factory=dict)  # partition -> newest event time (ms)


class BadMessage(ValueError):
    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(reason, detail)
        self.reason, self.detail = reason, detail


def decode(msg: RawMessage, model: type[M], defaults: dict[str, Any] | None = None) -> M:
    """One JSON object message as `model`; BadMessage names the reason code."""
    try:
        data = orjson.loads(msg.value or b"")
    except orjson.JSONDecodeError as err:
        raise BadMessage(Reason.INVALID_JSON.value, str(err)) from None
    if not isinstance(data, dict):
        raise BadMessage(Reason.INVALID_FIELD.value, f"a {model.__name__} message is a JSON object")
    for k, v in (defaults or {}).items():
        if data.get(k) is None:
            data[k] = v
    try:
        return model.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        field_name = str((first.get("loc") or ("?",))[0])
        reason = Reason.MISSING_FIELD if first.get("type") == "missing" else Reason.INVALID_FIELD
        raise BadMessage(reason.value, f"{field_name}: {first.get('msg')}") from None


def dead_letter(msg: RawMessage, reason: str, detail: str, processor: str, at: Any = None) -> bytes:
    payload = (msg.value or b"").decode("utf-8", errors="replace")
    dl = DeadLetter(reason=reason, detail=detail[:500], processor=processor,  # type: ignore[arg-type]
                    source=msg.source, key=msg.key.decode("utf-8", errors="replace") if msg.key else None,
                    payload=payload, at=at)
    return dl.model_dump_json().encode()
