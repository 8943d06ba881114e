"""What the processors read and write on Kafka, independent of the runtime that moves it.

Every check that can refuse a message runs here or in the domain's validation, before anything
is written: size, JSON shape, the key against the payload's tenant and user, event time against
ingest time. A refused message becomes a bounded dead letter: the reason, a redacted excerpt, the
original's length and hash, and where it came from — never the payload itself, which may carry a
secret or be megabytes long.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar

from pydantic import BaseModel

from slotstream.memory.errors import Reason, Rejected
from slotstream.memory.limits import DEAD_LETTER_EXCERPT_CHARS, MAX_MESSAGE_BYTES
from slotstream.memory.models import ID_RE
from slotstream.memory.sealing import is_sealed
from slotstream.memory.secrets import redact
from slotstream.memory.validation import check_event_skew, parse_message
from slotstream.streams.messages import BatchOutput, Keyed, RawMessage
from slotstream.streams.schemas import DeadLetter
from slotstream.streams.topics import user_key

from .errors import BadMessage

__all__ = [
    "BadMessage",
    "BatchOutput",
    "Keyed",
    "RawMessage",
    "check_event_time",
    "check_key",
    "dead_letter",
    "decode",
    "refused",
]

M = TypeVar("M", bound=BaseModel)


def refused(rejected: Rejected) -> BadMessage:
    return BadMessage(rejected.reason.value, rejected.detail)


def decode(msg: RawMessage, model: type[M], defaults: dict[str, Any] | None = None) -> M:
    """One JSON object message as `model`, within the size and nesting bounds; BadMessage names
    the reason code."""
    try:
        return parse_message(msg.value or b"", model, defaults)
    except Rejected as rej:
        raise refused(rej) from None


def read(
    msg: RawMessage,
    model: type[M],
    id_field: str,
    owner: Callable[[M], tuple[Any, Any]],
    event_time: Callable[[M], datetime],
    max_skew_seconds: float | None,
) -> M:
    """An input message as `model` (its source position as its id when it has none), checked:
    the key names the payload's owner, the event time does not run ahead of the ingest time."""
    item = decode(msg, model, {id_field: msg.source_id})
    check_key(msg, *owner(item))
    if max_skew_seconds is not None:
        check_event_time(msg, event_time(item), max_skew_seconds)
    return item


def check_key(msg: RawMessage, tenant: Any, user: Any) -> None:
    """The message key decides whose message it is: a payload naming another tenant or user is
    refused. (A payload without valid ids is left to validation, which names what is wrong.)"""
    if not (isinstance(tenant, str) and ID_RE.fullmatch(tenant) and isinstance(user, str) and ID_RE.fullmatch(user)):
        return
    if msg.key is None:
        raise BadMessage(Reason.TENANT_MISMATCH.value, "the message has no key; it must be <tenant>/<user>")
    if msg.key != user_key(tenant, user):
        raise BadMessage(Reason.TENANT_MISMATCH.value, "the payload's tenant/user differ from the message key")


def check_event_time(msg: RawMessage, at: datetime, max_skew_seconds: float) -> None:
    """The event time against the message's timestamp (its ingest time), when it has one."""
    if msg.timestamp_ms is None or msg.timestamp_ms < 0:
        return
    try:
        check_event_skew(at, msg.timestamp_ms, max_skew_seconds)
    except Rejected as rej:
        raise refused(rej) from None


def refuse(
    out: BatchOutput,
    msg: RawMessage,
    reason: str,
    detail: str,
    processor: str,
    at: Any = None,
    error: str | None = None,
) -> None:
    """Send `msg` to the dead-letter topic (and count it by reason)."""
    out.dead.append((msg.key, dead_letter(msg, reason, detail, processor, at, error)))
    out.count(f"dead_letters:{reason}")


def dead_letter(
    msg: RawMessage, reason: str, detail: str, processor: str, at: Any = None, error: str | None = None
) -> bytes:
    raw = msg.value or b""
    excerpt: str | None = None
    # a sealed payload's content stays only in its topic, where erasing the user's key reaches it
    if reason != Reason.SECRET_VALUE.value and not msg.sealed and not is_sealed(raw):
        # redact the whole text before cutting it, so a cut never splits a secret out of a pattern
        text = raw[: MAX_MESSAGE_BYTES * 2].decode("utf-8", errors="replace")
        excerpt = redact(text)[:DEAD_LETTER_EXCERPT_CHARS]
    key = msg.key.decode("utf-8", errors="replace")[:300] if msg.key else None
    dl = DeadLetter(
        reason=reason,
        detail=redact(detail)[:500],
        processor=processor,
        source=msg.source,
        key=redact(key) if key else None,
        excerpt=excerpt,
        length=len(raw),
        sha256=hashlib.sha256(raw).hexdigest(),
        at=at,
        error=error,
    )
    return dl.model_dump_json().encode()
