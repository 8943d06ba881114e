"""Input bounds: every timestamp in range, JSON shape bounded, ids and slot key parts checked as
sent. Each refusal carries its reason code; none of them crashes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from slotstream.memory.errors import Reason, Rejected
from slotstream.memory.extraction import Turn
from slotstream.memory.limits import MAX_DEPTH, MAX_NODES, MAX_TURN_CHARS, check_shape, within_shape
from slotstream.memory.models import OpIn, parse_time, slot_key
from slotstream.memory.validation import (
    build_record,
    parse_command,
    parse_record,
    pydantic_reason,
)

T0 = datetime(2026, 10, 1, tzinfo=UTC)


def nested(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = [value]
    return value


def record(**kw: Any) -> dict[str, Any]:
    return {"tenant": "t", "user": "u", "kind": "knowledge", "attribute": "knowledge.x", "value": "v", **kw}


def rejected(fn: Any, *args: Any, **kwargs: Any) -> Reason:
    with pytest.raises(Rejected) as err:
        fn(*args, **kwargs)
    return err.value.reason


def build(**kw: Any) -> Any:
    return build_record(parse_record(record(**kw)), op_id="o", at=T0)


@pytest.mark.parametrize(
    "text",
    [
        "9999-12-31T23:59:59Z",
        "0001-01-01T00:00:00Z",
        "2200-01-01T00:00:00Z",
        "1969-12-31T23:59:59Z",
        "9999-12-31T23:59:59-01:00",
    ],
)
def test_times_outside_the_supported_range_are_refused(text: str) -> None:
    assert rejected(parse_time, text) == Reason.TIME_OUT_OF_RANGE


def test_times_inside_the_range_parse() -> None:
    assert parse_time("2199-12-31T23:59:59Z").year == 2199
    assert parse_time("1970-01-01T00:00:00Z").year == 1970


@pytest.mark.parametrize("field", ["valid_until", "valid_from", "review_at", "observed_at"])
def test_a_record_time_out_of_range_names_its_reason(field: str) -> None:
    assert rejected(parse_record, record(**{field: "9999-12-31T23:59:59Z"})) == Reason.TIME_OUT_OF_RANGE


def test_an_op_time_out_of_range_names_its_reason() -> None:
    with pytest.raises(ValidationError) as err:
        OpIn.model_validate({"at": "9999-12-31T23:59:59Z", "record": record()})
    assert pydantic_reason(err.value).reason == Reason.TIME_OUT_OF_RANGE


def test_a_lifetime_added_near_the_end_of_the_range_does_not_overflow() -> None:
    rec = build_record(
        parse_record(record(kind="priority", attribute="priority.focus")),
        op_id="o",
        at=datetime(2199, 12, 31, tzinfo=UTC),
    )
    assert rec.valid_until is not None and rec.valid_until > rec.observed_at


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text("[]{}a", max_size=3),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text("ab[{", max_size=2), inner, max_size=4),
    max_leaves=30,
)


@given(_JSON, st.integers(1, 6), st.integers(1, 40))
def test_a_message_within_shape_by_its_bytes_passes_the_walk(data: Any, max_depth: int, max_nodes: int) -> None:
    """`within_shape` may say no to a message the walk accepts (brackets in strings), never yes to
    one it refuses."""
    if within_shape(orjson.dumps(data), max_depth, max_nodes):
        check_shape(data, max_depth, max_nodes)


def test_within_shape_at_the_bounds() -> None:
    assert within_shape(orjson.dumps(nested(MAX_DEPTH)))
    check_shape(nested(MAX_DEPTH))
    assert not within_shape(orjson.dumps(nested(MAX_DEPTH + 1)))
    assert not within_shape(orjson.dumps(["x" * MAX_NODES]))  # long: the walk decides
    assert within_shape(orjson.dumps({"text": "a" * 100, "user": "u"}))


def test_shape_depth_and_size() -> None:
    check_shape(nested(MAX_DEPTH - 1))
    assert rejected(check_shape, nested(MAX_DEPTH + 1)) == Reason.TOO_DEEP
    assert rejected(check_shape, nested(250)) == Reason.TOO_DEEP
    assert rejected(check_shape, list(range(MAX_NODES + 1))) == Reason.TOO_LARGE


def test_deep_values_are_refused_before_anything_serializes_them() -> None:
    with pytest.raises(ValidationError) as err:
        OpIn.model_validate({"at": "2026-10-01T00:00:00Z", "record": record(value=nested(250))})
    assert pydantic_reason(err.value).reason == Reason.TOO_DEEP
    assert rejected(build, value=nested(12)) == Reason.TOO_DEEP


@pytest.mark.parametrize(
    "kw",
    [
        {"value": "v" * 5000},
        {"statement": "s" * 3000},
        {"evidence": [{"source_id": "t", "quote": "q"}] * 21},
        {"evidence": [{"source_id": "t", "quote": "q" * 3000}]},
    ],
)
def test_oversized_fields_are_refused(kw: dict[str, Any]) -> None:
    assert rejected(build, **kw) == Reason.TOO_LARGE


@pytest.mark.parametrize("tenant", ["A ", " A", "\tA", "A\n", "A\r\n", "A\x00", "A B", "{A}", "A:B", "A/B"])
def test_ids_are_checked_as_sent_never_trimmed(tenant: str) -> None:
    assert rejected(build, tenant=tenant) == Reason.INVALID_ID
    with pytest.raises(ValidationError) as err:
        Turn.model_validate({"tenant": tenant, "user": "u", "text": "hi", "at": "2026-10-01T00:00:00Z"})
    assert pydantic_reason(err.value).reason == Reason.INVALID_ID


@pytest.mark.parametrize(
    "attribute,subject",
    [
        ("knowledge.a|b", "user"),
        ("b", "user|knowledge.a"),
        ("knowledge. x", "user"),
        ("knowledge..x", "user"),
        ("knowledge.x\n", "user"),
        ("", "user"),
        ("a" * 200, "user"),
    ],
)
def test_slot_key_parts_that_could_collide_are_refused(attribute: str, subject: str) -> None:
    reason = rejected(build, attribute=attribute, subject=subject)
    assert reason in (Reason.INVALID_ATTRIBUTE, Reason.MISSING_FIELD)


def test_the_two_slot_keys_that_used_to_collide_are_both_refused() -> None:
    assert slot_key("user|knowledge.a", "b", "global") == slot_key("user", "knowledge.a|b", "global")
    assert rejected(build, attribute="knowledge.a|b") == Reason.INVALID_ATTRIBUTE
    assert rejected(build, subject="user|knowledge.a", attribute="b") == Reason.INVALID_ATTRIBUTE


def test_accepted_attribute_and_subject_shapes() -> None:
    assert build(attribute="knowledge.decision.接口方案").attribute == "knowledge.decision.接口方案"
    assert build(subject="course:python-intro", attribute="fact-ish.x_y").subject == "course:python-intro"


@pytest.mark.parametrize("scope", ["project:a b", "project:a|b", "session:x\n", "project:{x}"])
def test_scope_ids_with_separators_or_whitespace_are_refused(scope: str) -> None:
    assert rejected(build, scope=scope) == Reason.INVALID_SCOPE


def test_a_turn_longer_than_the_limit_is_refused() -> None:
    with pytest.raises(ValidationError) as err:
        Turn.model_validate(
            {"tenant": "t", "user": "u", "text": "x" * (MAX_TURN_CHARS + 1), "at": "2026-10-01T00:00:00Z"}
        )
    assert pydantic_reason(err.value).reason == Reason.TOO_LARGE


def test_op_ids_are_printable_without_whitespace() -> None:
    for bad in ("a b", "a\nb", "", "x" * 300):
        with pytest.raises(ValidationError) as err:
            OpIn.model_validate({"at": "2026-10-01T00:00:00Z", "op_id": bad, "record": record()})
        assert pydantic_reason(err.value).reason in (Reason.INVALID_ID, Reason.INVALID_FIELD)
    assert OpIn.model_validate({"at": "2026-10-01T00:00:00Z", "op_id": "t.ops:3:17", "record": record()}).op_id


def test_a_command_record_id_is_checked() -> None:
    cmd = {"op": "forget", "tenant": "t", "user": "u", "record_id": "r 1"}
    assert rejected(parse_command, cmd) == Reason.INVALID_ID
    ok = parse_command({**cmd, "record_id": "r_1"})
    assert ok.record_id == "r_1"


def test_the_validation_error_never_echoes_the_input() -> None:
    secret = "sk-abcdefghijklmnopqrstuvwxyz"
    with pytest.raises(ValidationError) as err:
        OpIn.model_validate({"at": secret, "record": record()})
    assert secret not in str(pydantic_reason(err.value))
    assert rejected(build, valid_until=(T0 - timedelta(days=1)).isoformat(), valid_from=T0.isoformat())
