"""What the processors accept from a topic, and what a refusal leaves behind: bounded, redacted
dead letters that never carry the payload itself."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime

import orjson
import pytest

from slotstream.memory.extraction import Turn
from slotstream.memory.limits import DEAD_LETTER_EXCERPT_CHARS, MAX_MESSAGE_BYTES, MAX_NODES
from slotstream.processors.extraction import ExtractionService
from slotstream.processors.messages import (
    BadMessage,
    RawMessage,
    check_event_time,
    check_key,
    dead_letter,
)
from slotstream.processors.reconciliation import parse_op

AT = "2026-10-01T09:00:00Z"
AT_MS = int(datetime(2026, 10, 1, 9, tzinfo=UTC).timestamp() * 1000)


def msg(value: bytes | None, key: bytes | None = b"t/u", timestamp_ms: int | None = AT_MS) -> RawMessage:
    return RawMessage("x.ops", 2, 41, key, value, timestamp_ms)


def op(**record: object) -> bytes:
    return orjson.dumps(
        {
            "at": AT,
            "record": {
                "tenant": "t",
                "user": "u",
                "kind": "knowledge",
                "attribute": "knowledge.x",
                "value": "v",
                **record,
            },
        }
    )


def reason_of(fn, *args) -> str:
    with pytest.raises(BadMessage) as err:
        fn(*args)
    return err.value.reason


def test_decode_bounds() -> None:
    assert reason_of(parse_op, msg(b"x" * (MAX_MESSAGE_BYTES + 1))) == "too_large"
    assert reason_of(parse_op, msg(b"[" * 300 + b"]" * 300)) == "too_deep"
    assert (
        reason_of(parse_op, msg(orjson.dumps({"at": AT, "record": {"v": [[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]}})))
        == "too_deep"
    )
    many = orjson.dumps({"at": AT, "record": {"v": [0] * (MAX_NODES + 1)}})  # small and flat, too many elements
    assert reason_of(parse_op, msg(many)) == "too_large"
    assert reason_of(parse_op, msg(b"{not json")) == "invalid_json"
    assert reason_of(parse_op, msg(b'"a string"')) == "invalid_field"
    assert parse_op(msg(op())).op_id == "x.ops:2:41"  # no op id of its own: the source position


def test_the_key_decides_the_tenant() -> None:
    assert reason_of(parse_op, msg(op(), key=b"other/u")) == "tenant_mismatch"
    assert reason_of(parse_op, msg(op(), key=b"t/someone")) == "tenant_mismatch"
    assert reason_of(parse_op, msg(op(), key=None)) == "tenant_mismatch"
    check_key(msg(op()), "t", "u")
    check_key(msg(op(), key=None), None, "u")  # no tenant: validation names it (missing_tenant)


def test_event_time_may_trail_ingest_time_but_lead_it_only_by_the_skew() -> None:
    when = datetime(2026, 10, 1, 9, 4, tzinfo=UTC)
    check_event_time(msg(b"", timestamp_ms=AT_MS), when, 300)
    assert reason_of(check_event_time, msg(b"", timestamp_ms=AT_MS), when, 60) == "event_time_in_future"
    check_event_time(msg(b"", timestamp_ms=AT_MS + 10**10), datetime(2000, 1, 1, tzinfo=UTC), 60)
    check_event_time(msg(b"", timestamp_ms=None), when, 0)  # no ingest time known: nothing to compare


def test_a_dead_letter_is_bounded_redacted_and_never_the_payload() -> None:
    raw = b'{"note": "my password is hunter2222 ' + b"x" * 50_000 + b'"}'
    dl = orjson.loads(dead_letter(msg(raw), "invalid_field", "detail with pwd: s3cr3t!", "reconciliation"))
    assert len(dl["excerpt"]) == DEAD_LETTER_EXCERPT_CHARS
    assert "hunter2222" not in dl["excerpt"] and "[REDACTED:password]" in dl["excerpt"]
    assert "s3cr3t" not in dl["detail"]
    assert dl["length"] == len(raw) and dl["sha256"] == hashlib.sha256(raw).hexdigest()
    assert dl["source"] == {"topic": "x.ops", "partition": 2, "offset": 41}


def test_a_value_refused_as_a_secret_keeps_no_excerpt() -> None:
    raw = op(attribute="account.password", value="correct horse")
    dl = orjson.loads(dead_letter(msg(raw), "secret_value", "secrets are never stored", "reconciliation"))
    assert dl["excerpt"] is None and dl["length"] == len(raw)


def test_a_turn_with_too_many_statements_is_refused_whole() -> None:
    text = " ".join(f"I moved to City{i}." for i in range(40))
    value = orjson.dumps({"tenant": "t", "user": "u", "role": "user", "text": text, "at": AT})
    out = ExtractionService().handle([RawMessage("x.turns", 0, 5, b"t/u", value, AT_MS)])
    assert not out.ops
    assert [orjson.loads(v)["reason"] for _, v in out.dead] == ["too_many_ops"]


def test_a_turn_whose_key_names_another_user_is_refused() -> None:
    value = orjson.dumps({"tenant": "t", "user": "u", "role": "user", "text": "I moved to Rome.", "at": AT})
    out = ExtractionService().handle([RawMessage("x.turns", 0, 5, b"t/v", value, AT_MS)])
    assert not out.ops and [orjson.loads(v)["reason"] for _, v in out.dead] == ["tenant_mismatch"]


def test_an_ingest_stamped_turn_within_the_skew_is_extracted() -> None:
    value = orjson.dumps({"tenant": "t", "user": "u", "role": "user", "text": "I moved to Rome.", "at": AT})
    out = ExtractionService(max_skew_seconds=300).handle([RawMessage("x.turns", 0, 5, b"t/u", value, AT_MS)])
    assert len(out.ops) == 1 and not out.dead
    assert Turn.model_validate_json(value).user == "u"
