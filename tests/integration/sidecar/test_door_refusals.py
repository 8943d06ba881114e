"""What the worker would dead-letter, the sidecar refuses at the door.

Every reason code is classified below: refused at the door (`DOOR`: each case is an HTTP request
that would cause it), arising only in the worker (`WORKER_ONLY`, with why no request can cause
it), or no dead letter at all (`NOT_DEAD_LETTERS`: outcomes of an op that applied). A reason
added to `Reason` without a place in this table fails `test_every_reason_code_is_classified`.

For each door case the request is answered 4xx with the reason code, nothing is produced (the
turns, ops and dead-letter topics keep their ends) and the user's memories are unchanged. Then the
same input is written straight to its topic, past the door, and the worker dead-letters it with
the same reason code: the door says what the worker would say.

Duplicate op ids within one request are not refused: the worker does not dead-letter them (the
second is answered `duplicate`).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import orjson
import pytest

from slotstream.memory.errors import Reason
from slotstream.memory.limits import MAX_MESSAGE_BYTES
from slotstream.streams.topics import DLQ, OPS, TURNS, user_key

from support import Service, read_topic

pytestmark = [pytest.mark.kafka, pytest.mark.integration]

USER = "u1"
FACT = {
    "id": "door-fact",
    "user": USER,
    "kind": "fact",
    "attribute": "billing.plan",
    "value": "enterprise",
    "authority": "authoritative_source",
    "evidence": [{"source_type": "document", "source_id": "contract-7"}],
    "valid_from": "2026-01-01T00:00:00Z",
    "valid_until": "2027-01-01T00:00:00Z",
}
DIET = {"id": "door-diet", "user": USER, "attribute": "profile.diet", "value": "vegan", "authority": "user_explicit"}
DIET_IN_PROJECT = {**DIET, "id": "door-diet-p1", "scope": "project:p1", "value": "vegetarian"}
OTHERS = {"id": "door-others", "user": "u2", "attribute": "profile.diet", "value": "pescatarian"}
STORED = (FACT, DIET, DIET_IN_PROJECT, OTHERS)


@dataclass(frozen=True)
class Case:
    """An HTTP request that the worker would dead-letter with `reason`, and the same input as a
    message on its topic (`raw`: the turns or ops payload, its tenant added; `raw_bytes` for one that
    is not JSON; none for a request no message can carry)."""

    reason: Reason
    name: str
    method: str
    path: str
    body: Any = None
    content: bytes | None = None
    status: int = 422
    role: str = OPS
    raw: dict[str, Any] | None = None
    raw_bytes: bytes | None = None
    raw_tenant: str | None = None  # a payload naming another tenant than the message key's


def without_none(fields: dict[str, Any]) -> dict[str, Any]:
    """The fields, a None standing for one left out."""
    return {k: v for k, v in fields.items() if v is not None}


def record_case(reason: Reason, name: str, **record: Any) -> Case:
    defaults = {"user": USER, "attribute": "profile.diet", "value": "vegan", "authority": "user_explicit"}
    body = without_none({**defaults, **record})
    return Case(reason, name, "POST", "/v1/ops", {"record": body}, raw={"record": body})


def command_case(reason: Reason, name: str, **command: Any) -> Case:
    body = without_none({"user": USER, **command})
    return Case(reason, name, "POST", "/v1/ops", {"command": body}, raw={"command": body})


def control_case(reason: Reason, name: str, method: str, action: str, record_id: str, **command: Any) -> Case:
    """A memory control route (correct, confirm, reject, retract, forget) and the command it produces."""
    path = f"/v1/users/{USER}/memories/{record_id}" + (f"/{action}" if action != "forget" else "")
    body = {k: v for k, v in command.items() if k in ("value", "statement")} or None
    raw = {"command": {"op": action, "user": USER, "record_id": record_id, **command}}
    # a control on a record the URL names is a 404 when there is no such record of the user's
    # or a 409 when the record is there in a state (or of a kind) the control does not apply to
    status = {Reason.TARGET_NOT_FOUND: 404, Reason.TARGET_NOT_PENDING: 409, Reason.SOURCE_NOT_AUTHORIZED: 409}.get(
        reason, 422
    )
    return Case(reason, name, method, path, body, status=status, raw=raw)


def turn_case(reason: Reason, name: str, **turn: Any) -> Case:
    body = {"user": USER, "text": "I live in Lisbon.", **turn}
    return Case(reason, name, "POST", "/v1/turns", body, role=TURNS, raw=body)


def nested(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = {"a": value}
    return value


FUTURE = (datetime.now(UTC) + timedelta(days=2)).isoformat()

DOOR: list[Case] = [
    # shape and size
    Case(
        Reason.INVALID_JSON,
        "a body that is not JSON",
        "POST",
        "/v1/ops",
        content=b'{"record": {"user": "u1", ',
        raw_bytes=b'{"at": "2026-01-01T00:00:00Z", "record": {"user": "u1", ',
    ),
    record_case(Reason.TOO_LARGE, "a message over the topic's limit", statement="s" * (MAX_MESSAGE_BYTES + 10)),
    Case(
        Reason.TOO_LARGE,
        "a body over the sidecar's limit",
        "POST",
        "/v1/ops",
        {"record": {"user": USER, "attribute": "profile.diet", "value": "v" * 2_000_000}},
        status=413,
    ),
    record_case(Reason.TOO_LARGE, "a value over its limit", value="v" * 5_000),
    record_case(Reason.TOO_DEEP, "a value nested too deep", value=nested(20)),
    record_case(Reason.MISSING_FIELD, "a record without its attribute", attribute=None),
    control_case(Reason.MISSING_FIELD, "a correction without a value", "POST", "correct", "door-diet", value=None),
    control_case(Reason.MISSING_FIELD, "a correction to a blank value", "POST", "correct", "door-diet", value="  "),
    # Python's JSON reader takes NaN, which a message carries as null
    Case(
        Reason.MISSING_FIELD,
        "a record's value that JSON cannot carry",
        "POST",
        "/v1/ops",
        content=b'{"record": {"user": "u1", "attribute": "profile.diet", "value": NaN}}',
        raw={"record": {"user": USER, "attribute": "profile.diet", "value": None}},
    ),
    Case(
        Reason.MISSING_FIELD,
        "a correction to a value JSON cannot carry",
        "POST",
        f"/v1/users/{USER}/memories/door-diet/correct",
        content=b'{"value": Infinity}',
        raw={"command": {"op": "correct", "user": USER, "record_id": "door-diet", "value": None}},
    ),
    record_case(Reason.INVALID_FIELD, "an unknown authority", authority="the boss"),
    record_case(
        Reason.INVALID_FIELD,
        "a bad field in a nested evidence entry",
        evidence=[{"source_type": "rumour", "source_id": "x"}],
    ),
    record_case(Reason.INVALID_FIELD, "a bad audience entry", audience=["has space"]),
    command_case(Reason.INVALID_FIELD, "a field a command does not have", op="reject", record_id="door-diet", why="x"),
    # identity
    command_case(Reason.MISSING_USER, "a command without a user", op="forget", record_id="door-diet", user=None),
    record_case(Reason.INVALID_ID, "a record id with a space", id="has space"),
    control_case(Reason.INVALID_ID, "a target id with a space", "POST", "confirm", "has space"),
    Case(
        Reason.TENANT_MISMATCH,
        "a payload naming another tenant",
        "POST",
        "/v1/ops",
        {"record": {"tenant": "someone-else", "user": USER, "attribute": "profile.diet", "value": "vegan"}},
        status=403,
        raw={"record": {"user": USER, "attribute": "profile.diet", "value": "vegan"}},
        raw_tenant="someone-else",
    ),
    # fields
    record_case(Reason.UNKNOWN_KIND, "an unknown kind", kind="gossip"),
    record_case(Reason.UNKNOWN_KIND, "no kind for an unregistered attribute", attribute="hobby.kite"),
    record_case(Reason.INVALID_SCOPE, "a scope of no known kind", scope="team:red"),
    command_case(
        Reason.INVALID_SCOPE,
        "a forget in an unknown scope",
        op="forget",
        match={"attribute": "profile.diet", "scope": "planet:mars"},
    ),
    command_case(
        Reason.INVALID_SCOPE,
        "a move to the scope it is in",
        op="move",
        attribute="profile.diet",
        from_scope="global",
        to_scope="global",
    ),
    record_case(Reason.SCOPE_MISSING_ID, "a session scope without its id", scope="session:"),
    record_case(Reason.INVALID_ATTRIBUTE, "an attribute that is not dotted words", attribute="profile diet!"),
    command_case(Reason.INVALID_ATTRIBUTE, "a forget of a bad attribute", op="forget", match={"attribute": "a b"}),
    record_case(Reason.CONFIDENCE_OUT_OF_RANGE, "a confidence above 1", confidence=1.5),
    record_case(Reason.VALUE_OUT_OF_RANGE, "an importance below 0", importance=-0.1),
    record_case(
        Reason.VALIDITY_INVERTED,
        "an end before the start",
        valid_from="2026-06-01T00:00:00Z",
        valid_until="2026-05-01T00:00:00Z",
    ),
    command_case(Reason.UNKNOWN_COMMAND, "a command no one knows", op="teleport"),
    record_case(Reason.INVALID_DEPENDENCY, "a dependency that is not an id", depends_on=["not an id!"]),
    # time
    record_case(Reason.TIME_OUT_OF_RANGE, "a validity before 1970", valid_from="1900-01-01T00:00:00Z"),
    turn_case(Reason.TIME_OUT_OF_RANGE, "a turn said before 1970", at="1900-01-01T00:00:00Z"),
    Case(
        Reason.EVENT_TIME_IN_FUTURE,
        "an op dated two days ahead",
        "POST",
        "/v1/ops",
        {"at": FUTURE, "record": {"user": USER, "attribute": "profile.diet", "value": "vegan"}},
        raw={"at": FUTURE, "record": {"user": USER, "attribute": "profile.diet", "value": "vegan"}},
    ),
    turn_case(Reason.EVENT_TIME_IN_FUTURE, "a turn dated two days ahead", at=FUTURE),
    turn_case(Reason.INVALID_SCOPE, "a turn's session that is not an id", session="has space"),
    # rules
    record_case(Reason.SECRET_VALUE, "a password", attribute="account.password", kind="knowledge", value="hunter2"),
    control_case(
        Reason.SECRET_VALUE,
        "a correction to a key",
        "POST",
        "correct",
        "door-diet",
        value="sk-live-" + "a" * 40,
    ),
    record_case(Reason.FACT_WITHOUT_SOURCE, "a fact without a source", kind="fact", attribute="billing.tier"),
    record_case(
        Reason.FACT_WITHOUT_VALIDITY,
        "a fact without its validity",
        kind="fact",
        attribute="billing.tier",
        authority="authoritative_source",
        evidence=[{"source_type": "document", "source_id": "contract-7"}],
    ),
    record_case(
        Reason.SOURCE_NOT_AUTHORIZED,
        "an authoritative source writing a preference",
        authority="authoritative_source",
        evidence=[{"source_type": "system", "source_id": "crm"}],
    ),
    record_case(
        Reason.ASSISTANT_NOT_EVIDENCE,
        "the assistant's answer as evidence",
        evidence=[{"source_type": "assistant", "source_id": "reply-1"}],
    ),
    record_case(Reason.SESSION_CONTEXT_NOT_IN_SESSION, "a session context outside a session", attribute="session.task"),
    record_case(
        Reason.SPECIAL_CATEGORY_INFERRED,
        "an inferred allergy",
        attribute="profile.allergies",
        value="peanuts",
        authority="system_inferred",
    ),
    # rules on what is stored
    control_case(
        Reason.TARGET_NOT_FOUND, "a correction of another user's record", "POST", "correct", "door-others", value="x"
    ),
    control_case(Reason.TARGET_NOT_FOUND, "a forget of no record", "DELETE", "forget", "no-such-record"),
    control_case(Reason.TARGET_NOT_FOUND, "a retract of no record", "POST", "retract", "no-such-record"),
    control_case(Reason.TARGET_NOT_PENDING, "a reject of an active record", "POST", "reject", "door-diet"),
    control_case(Reason.TARGET_NOT_PENDING, "a confirm of an active record", "POST", "confirm", "door-diet"),
    control_case(
        Reason.SOURCE_NOT_AUTHORIZED, "a user's correction of a fact", "POST", "correct", "door-fact", value="x"
    ),
    control_case(Reason.SOURCE_NOT_AUTHORIZED, "a user's retraction of a fact", "POST", "retract", "door-fact"),
    record_case(Reason.INVALID_DEPENDENCY, "a dependency on no record of the user's", depends_on=["door-others"]),
    record_case(Reason.INVALID_ID, "an id already naming another record", id="door-fact"),
    command_case(
        Reason.SCOPE_OCCUPIED,
        "a move into a scope that holds a value",
        op="move",
        attribute="profile.diet",
        from_scope="project:p1",
        to_scope="global",
    ),
]

WORKER_ONLY: dict[Reason, str] = {
    Reason.MISSING_TENANT: "the sidecar writes the key's tenant into every payload",
    Reason.TOO_MANY_OPS: "counted on what extraction makes of a turn, which only the worker's extractor knows",
    Reason.KEY_SHREDDED: "a sealed payload in the log whose user's key an erasure removed",
    Reason.SEALED_INVALID: "a sealed payload in the log that is malformed or does not open",
    Reason.INTERNAL_ERROR: "a failure no rule names (a bug), kept with the error's class",
    Reason.BEYOND_LEDGER_WINDOW: "judged against the user's op ledger as the worker finds it when it applies the op",
}
NOT_DEAD_LETTERS: dict[Reason, str] = {
    Reason.SUPPRESSED: "an op dropped (applied as nothing) because the user forgot that value",
    Reason.USER_ERASED: "an op dropped because its user was erased after it was said",
    Reason.NOT_DUE: "the expiry sweep's op finding its record not due: a noop",
}


def test_every_reason_code_is_classified() -> None:
    door = {case.reason for case in DOOR}
    places = [door, set(WORKER_ONLY), set(NOT_DEAD_LETTERS)]
    assert set(Reason) == set().union(*places), f"not classified: {set(Reason) - set().union(*places)}"
    assert sum(len(p) for p in places) == len(Reason), "a reason is in more than one place"


@pytest.fixture(scope="module")
def owner(service: Service) -> Iterator[tuple[str, str]]:
    """A tenant whose users hold the records the cases name: a fact, a diet (globally and in a
    project) and another user's record."""
    tenant = f"t{uuid.uuid4().hex[:8]}"
    key = service.key(tenant)
    with service.http(key) as h:
        sent = h.post("/v1/ops?wait=30", json={"ops": [{"record": r} for r in STORED]})
        assert sent.status_code == 202, sent.text
        assert [a["outcome"] for a in sent.json()["accepted"]] == ["applied"] * len(STORED), sent.text
    yield tenant, key


def send(h: httpx.Client, case: Case) -> httpx.Response:
    if case.content is not None:
        return h.request(case.method, case.path, content=case.content, headers={"content-type": "application/json"})
    return h.request(case.method, case.path, json=case.body)


def memories(h: httpx.Client, user: str) -> list[dict[str, Any]]:
    return sorted(h.get(f"/v1/users/{user}/memories").json()["items"], key=lambda r: r["id"])


@pytest.mark.parametrize("case", DOOR, ids=[f"{c.reason.value}: {c.name}" for c in DOOR])
def test_the_door_refuses_what_the_worker_would_dead_letter(
    service: Service, owner: tuple[str, str], case: Case
) -> None:
    _, key = owner
    with service.http(key) as h:
        before = (service.ends(), service.stack.end_offsets(DLQ), memories(h, USER))
        answer = send(h, case)
        assert answer.status_code == case.status, answer.text
        body = answer.json()
        assert set(body) == {"reason", "detail", "field"} and body["reason"] == case.reason.value, body
        assert (service.ends(), service.stack.end_offsets(DLQ), memories(h, USER)) == before, "nothing produced"


def test_the_worker_dead_letters_the_same_input_with_the_same_reason(service: Service, owner: tuple[str, str]) -> None:
    """Each door case's input, written straight to its topic, is dead-lettered by the worker with
    the reason code the door answered."""
    tenant, _ = owner
    stack = service.stack
    now = datetime.now(UTC).isoformat()
    futures = []
    for n, case in enumerate(DOOR):
        if case.raw_bytes is not None:
            futures.append((case, stack.producer.send_prepared(OPS, [(user_key(tenant, USER), case.raw_bytes)])[0]))
            continue
        if case.raw is None:
            continue
        payload = orjson.loads(orjson.dumps(case.raw))
        inner = payload if case.role == TURNS else payload.get("record") or payload["command"]
        inner["tenant"] = case.raw_tenant or tenant
        payload.setdefault("at", now)
        payload.setdefault("op_id" if case.role == OPS else "turn_id", f"door-raw-{uuid.uuid4().hex[:8]}-{n}")
        user = inner.get("user") or USER
        prepared = stack.producer.prepare([(tenant, user, payload)])
        futures.append((case, stack.producer.send_prepared(case.role, prepared)[0]))
    stack.producer.flush()
    at = {}
    for case, future in futures:
        meta = future.get(timeout=30)
        at[(stack.settings.topics[case.role], meta.partition, meta.offset)] = case
    stack.barrier()
    letters = {}
    for message in read_topic(service.stack, DLQ):
        letter = orjson.loads(message.value)
        source = letter["source"]
        letters[(source["topic"], source["partition"], source["offset"])] = letter["reason"]
    said = {(case.reason.value, case.name): letters.get(where) for where, case in at.items()}
    assert said == {(case.reason.value, case.name): case.reason.value for case in at.values()}


def test_a_repeated_op_id_in_one_request_is_not_refused(service: Service, owner: tuple[str, str]) -> None:
    """The worker does not dead-letter an op id it has seen (the repeat applies nothing), so the
    door does not refuse it; with `wait`, both items answer the op's outcome."""
    _, key = owner
    record = {"user": "u3", "attribute": "profile.diet", "value": "raw food", "authority": "user_explicit"}
    op = {"op_id": f"door-twice-{uuid.uuid4().hex[:8]}", "record": record}
    with service.http(key) as h:
        dead_before = service.stack.end_offsets(DLQ)
        sent = h.post("/v1/ops?wait=30", json={"ops": [op, op]})
        assert sent.status_code == 202, sent.text
        assert [a["outcome"] for a in sent.json()["accepted"]] == ["applied", "applied"], sent.text
        assert sent.json()["complete"] is True
        assert service.stack.end_offsets(DLQ) == dead_before
        assert [r["value"] for r in memories(h, "u3")] == ["raw food"], "applied once"
