"""The OpenAPI document's key statements, read from the app (no server): every /v1 operation
declares its errors in the one problem shape, the media types are the ones the routes send, the
ids, scopes and times carry their patterns, an op is a record or a command, and links lead from an
answer's record ids to the operations on that record. The long suite fuzzes a real sidecar against
the whole document (tests/integration/sidecar/test_openapi_fuzz.py)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from fastapi import FastAPI
from jsonschema import Draft202012Validator

from slotstream.config.settings import Settings
from slotstream.memory.models import ID_RE, SCOPE_ID_RE
from slotstream.sidecar import openapi
from slotstream.sidecar.app import create_app

PROBLEM = {"$ref": "#/components/schemas/Problem"}
MEMORY = "/v1/users/{user}/memories/{record_id}"


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    settings = Settings(redis_url="redis://localhost:1", kafka_bootstrap="localhost:1")
    app: Any = create_app(settings)
    while not isinstance(app, FastAPI):  # the front doors hold the app
        app = app.app
    doc = openapi.document(app)
    return json.loads(json.dumps(doc))  # as served: plain JSON


def operations(doc: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(path, method, op) for path, ops in doc["paths"].items() for method, op in ops.items()]


def validator(doc: dict[str, Any], name: str) -> Draft202012Validator:
    schema = {"$ref": f"#/components/schemas/{name}", "components": doc["components"]}
    return Draft202012Validator(schema)


def test_every_error_of_every_operation_is_a_problem(document: dict[str, Any]) -> None:
    for path, method, op in operations(document):
        errors = {s: r for s, r in op["responses"].items() if s[0] in "45"}
        if path.startswith("/v1/"):
            assert {"401", "403", "415", "422", "429", "503"} <= set(errors), (method, path)
            assert op["security"] == [{"apiKey": []}]
        for status, answer in errors.items():
            if path == "/readyz" and status == "503":
                continue  # the readiness body, or a problem at the connection cap
            assert answer["content"] == {"application/json": {"schema": PROBLEM}}, (method, path, status)
            assert "reason: " in answer["description"], (method, path, status)
    assert "HTTPValidationError" not in document["components"]["schemas"]
    reasons = document["paths"]["/v1/ops"]["post"]["responses"]["422"]["description"]
    assert "secret_value" in reasons and "event_time_in_future" in reasons and "invalid_id" in reasons
    problem = validator(document, "Problem")
    assert problem.is_valid({"reason": "not_found", "detail": "", "field": None})
    assert not problem.is_valid({"detail": [{"loc": ["body"], "msg": "x"}]}), "not FastAPI's validation shape"


def test_media_types_are_the_ones_sent(document: dict[str, Any]) -> None:
    paths = document["paths"]
    assert list(paths["/metrics"]["get"]["responses"]["200"]["content"]) == ["text/plain; version=0.0.4"]
    assert list(paths["/v1/users/{user}/export"]["get"]["responses"]["200"]["content"]) == ["application/x-ndjson"]
    assert list(paths[MEMORY]["get"]["responses"]["200"]["content"]) == ["application/json"]


def test_ids_scopes_times_and_bounds_are_stated(document: dict[str, Any]) -> None:
    schemas = document["components"]["schemas"]
    query = schemas["ContextQuery"]["properties"]
    assert re.search(query["user"]["pattern"], "alice") and query["user"]["minLength"] == 1
    assert query["user"]["pattern"].startswith(ID_RE.pattern.removesuffix("$"))
    assert query["project"]["pattern"].startswith(SCOPE_ID_RE.pattern.removesuffix("$"))
    assert query["max_items"]["minimum"] == 1 and query["max_items"]["maximum"] == 200
    context = validator(document, "ContextQuery")
    assert not context.is_valid({"user": ""}), "an empty user is refused by the server, so by the schema"
    assert not context.is_valid({"user": "u1\n"}), "the server matches ids whole"
    assert context.is_valid({"user": "u1", "at": "2026-01-31T09:30:00+02:00"})
    for refused in ("2026-01-31T09:30:00", "2300-01-01T00:00:00Z", "1969-12-31T23:59:59Z", "2026-01-31 09:30Z"):
        assert not context.is_valid({"user": "u1", "at": refused}), refused
    user = document["paths"][MEMORY]["get"]["parameters"][0]
    assert user["name"] == "user" and user["schema"]["pattern"] == ID_RE.pattern


def test_an_op_is_a_record_or_a_command(document: dict[str, Any]) -> None:
    op = validator(document, "OpBody")
    record = {"user": "u1", "attribute": "profile.diet", "value": "vegan"}
    assert op.is_valid({"record": record})
    assert op.is_valid({"command": {"op": "forget", "user": "u1", "record_id": "r1"}})
    assert op.is_valid({"record": record, "command": None}), "the server takes a null for the other"
    assert not op.is_valid({}), "neither"
    assert not op.is_valid({"record": record, "command": {"op": "forget", "user": "u1", "record_id": "r1"}})
    assert not op.is_valid({"record": {**record, "colour": "red"}}), "a record has its fields only"
    assert not op.is_valid({"command": {"op": "forget", "user": "u1"}}), "a forget names its target"
    assert not op.is_valid({"command": {"op": "correct", "user": "u1", "record_id": "r1", "value": " "}})
    assert not op.is_valid({"command": {"op": "launch", "user": "u1"}})
    assert not validator(document, "OpBatch").is_valid({"ops": [{}]})
    correct = validator(document, "CorrectBody")
    assert correct.is_valid({"value": "vegan"}) and correct.is_valid({"value": 0})
    assert not correct.is_valid({"value": None}) and not correct.is_valid({"value": "  "})


def test_links_lead_from_record_ids_to_their_operations(document: dict[str, Any]) -> None:
    ids = {op["operationId"]: (path, method) for path, method, op in operations(document)}
    paths = document["paths"]
    context_links = paths["/v1/context"]["post"]["responses"]["200"]["links"]
    page_links = paths["/v1/users/{user}/memories"]["get"]["responses"]["200"]["links"]
    for links in (context_links, page_links):
        targets = {ids[link["operationId"]] for link in links.values()}
        assert {(f"{MEMORY}/history", "get"), (f"{MEMORY}/correct", "post"), (MEMORY, "delete")} <= targets
    assert context_links["history"]["parameters"]["record_id"] == "$response.body#/used_ids/0"
    assert page_links["forget"]["parameters"]["record_id"] == "$response.body#/items/0/id"
    assert ids[paths["/v1/ops"]["post"]["responses"]["202"]["links"]["memories"]["operationId"]] == (
        "/v1/users/{user}/memories",
        "get",
    )
