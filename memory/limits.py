"""Bounds on every input, so that no valid-looking message can crash a processor or flood a user.

A message outside these bounds is refused with a reason code (a dead letter on the topics);
nothing already stored changes. The figures are generous for conversation memory and small
against Kafka's default 1 MB message limit.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from .errors import Reason, Rejected

# Every timestamp (event time, validity, review, observation) lies in this range. Lifetimes
# added by the registry stay far below year 9999, where datetime arithmetic overflows.
MIN_TIME = datetime(1970, 1, 1, tzinfo=UTC)
MAX_TIME = datetime(2200, 1, 1, tzinfo=UTC)

MAX_MESSAGE_BYTES = 256 * 1024  # one turn or op message on the wire
MAX_DEPTH = 16  # nesting of a whole message (objects and arrays)
MAX_VALUE_DEPTH = 8  # nesting inside a record's value
MAX_NODES = 10_000  # objects, arrays and scalars in one message
MAX_VALUE_CHARS = 4_000  # a record's value, serialized
MAX_TEXT_CHARS = 2_000  # a statement, a quote, a command's wording
MAX_EVIDENCE = 20  # evidence entries on one record
MAX_TURN_CHARS = 16_000  # the text of one turn
MAX_OPS_PER_TURN = 32  # records and commands extracted from one turn
MAX_ID_CHARS = 128
MAX_ABOUT_WORDS = 12  # the words a forget or a restatement names its target by
DEAD_LETTER_EXCERPT_CHARS = 1_000  # how much of a refused payload a dead letter keeps (redacted)


def check_time(value: datetime, field: str = "time") -> datetime:
    if not MIN_TIME <= value < MAX_TIME:
        raise Rejected(
            Reason.TIME_OUT_OF_RANGE, f"{field}: {value.isoformat()} is outside {MIN_TIME.year}..{MAX_TIME.year - 1}"
        )
    return value


def check_shape(data: Any, max_depth: int = MAX_DEPTH, max_nodes: int = MAX_NODES, what: str = "message") -> None:
    """Depth and size of parsed JSON. The walk stops one level past `max_depth`, so a deep value
    cannot exhaust the stack."""
    if _count(data, 1, max_depth, what) > max_nodes:
        raise Rejected(Reason.TOO_LARGE, f"{what} has more than {max_nodes} JSON elements")


def within_shape(raw: bytes, max_depth: int = MAX_DEPTH, max_nodes: int = MAX_NODES) -> bool:
    """True when the JSON text `raw` cannot parse to anything `check_shape` refuses, whatever it
    holds: every element starts at a byte of its own, and every level of nesting opens with a
    bracket (brackets inside strings only make the test stricter). Spares small messages the walk."""
    return len(raw) <= max_nodes and raw.count(b"{") + raw.count(b"[") <= max_depth


def _count(item: Any, depth: int, max_depth: int, what: str) -> int:
    if isinstance(item, dict):
        children: Any = item.values()
    elif isinstance(item, list):
        children = item
    else:
        return 1
    if depth > max_depth:
        raise Rejected(Reason.TOO_DEEP, f"{what} nests deeper than {max_depth} levels")
    n = 1 + len(children)
    for child in children:
        if isinstance(child, (dict, list)):
            n += _count(child, depth + 1, max_depth, what) - 1
    return n


def check_text(value: str | None, field: str, limit: int = MAX_TEXT_CHARS) -> None:
    if value is not None and len(value) > limit:
        raise Rejected(Reason.TOO_LARGE, f"{field}: {len(value)} characters, at most {limit}")
