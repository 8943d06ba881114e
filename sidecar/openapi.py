"""The OpenAPI document, the API's contract: FastAPI's, plus the context route the front door serves,
the bodies routes parse themselves, the bearer key every /v1 route needs, every status an operation
can answer with its real body (the one problem shape for every error), the media types, and links
from the record ids an answer names to the operations on that record.

The long suite fuzzes the running sidecar against this document (tests/integration/sidecar/
test_openapi_fuzz.py); the default suite checks its key statements (test_openapi_document.py)."""

from __future__ import annotations

import re
from typing import Any, get_args

import msgspec
from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel

from slotstream.memory.errors import Reason
from slotstream.memory.limits import MAX_ID_CHARS, MAX_VALUE_CHARS, MAX_VALUE_DEPTH
from slotstream.memory.models import ATTRIBUTE_RE, COMMAND_OPS, SCOPE_ID_RE, AnyCommand, Record, RecordIn

from .schemas import ID_SCHEMA, ContextQuery, ContextResult, Problem, anchored

JSON = "application/json"
METRICS_TYPE = "text/plain; version=0.0.4"
NDJSON = "application/x-ndjson"
MEMORY = "/v1/users/{user}/memories/{record_id}"
PROBLEM_REF = {"$ref": "#/components/schemas/Problem"}

# each error status, when it is answered and the reason codes its problem body can carry
ERRORS: dict[str, tuple[str, list[str]]] = {
    "400": ("a request that cannot be read: an HTTP/1.1 request without a Host header", ["missing_host"]),
    "401": ("no key, or an unknown or revoked one", ["unauthorized"]),
    "403": ("the key may not do this (its scopes), or names another tenant", ["scope", Reason.TENANT_MISMATCH]),
    "404": (
        "no such memory for this user, or a path no route serves; a control on a record the user does not have",
        ["not_found", Reason.TARGET_NOT_FOUND],
    ),
    "409": (
        "a control on a record in a state, or of a kind, it does not apply to: confirming or rejecting "
        "a record that is not waiting, a user's correction or retraction of a fact",
        [Reason.TARGET_NOT_PENDING, Reason.SOURCE_NOT_AUTHORIZED],
    ),
    "413": (
        "a body over the server's limit, or a batch larger than the tenant's ingest burst",
        [Reason.TOO_LARGE, "over_ingest_burst"],
    ),
    "415": ("a body that is not sent as application/json", ["unsupported_media_type"]),
    "422": (
        "a request the rules refuse; `field` names the field and nothing is produced or changed",
        [r.value for r in Reason if r not in (Reason.SUPPRESSED, Reason.USER_ERASED, Reason.NOT_DUE)],
    ),
    "429": (
        "over the tenant's request rate or ingest quota; the Retry-After header says when to try again",
        ["rate_limited", "ingest_rate_limited"],
    ),
    "503": (
        "Redis or Kafka not reachable, or this server process at its connection cap; nothing was changed, "
        "send the same request again after Retry-After",
        ["redis_unavailable", "kafka_unavailable", "too_many_connections"],
    ),
}
# every operation; those that need a key; those with a path parameter
ALWAYS = ("400", "413", "503")
KEYED = ("401", "403", "415", "422", "429")
RETRY_AFTER = {"Retry-After": {"description": "seconds to wait", "schema": {"type": "integer", "minimum": 1}}}

HEALTH = {"type": "object", "properties": {"status": {"const": "ok"}}, "required": ["status"]}
READINESS = {
    "type": "object",
    "properties": {
        "status": {"enum": ["ready", "waiting"]},
        "checks": {"type": "object", "additionalProperties": {"type": "boolean"}},
        "waiting_for": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["status", "checks", "waiting_for"],
}
SCOPE_SCHEMA = {
    "anyOf": [
        {
            "type": "string",
            "pattern": anchored(re.compile(r"^(global|(project|session):" + SCOPE_ID_RE.pattern[1:-1] + ")$")),
            "maxLength": 8 + MAX_ID_CHARS,
        },
        {"type": "string", "maxLength": 0},
        {"type": "null"},
    ],
    "description": "global (also empty or absent), project:<id> or session:<id>",
}
ID_STRING = {"type": "string", **ID_SCHEMA}
NULLABLE_ID = {"anyOf": [ID_STRING, {"type": "null"}]}
OWN_TENANT = {**NULLABLE_ID, "description": "absent, or the key's own tenant (another one is refused, 403)"}
# the record and command fields the door itself checks; the others are checked by the engine's
# rules (types, ranges, the attribute registry, secrets), which a 422 names with its reason code
RECORD_FIELDS: dict[str, Any] = {
    "id": NULLABLE_ID,
    "tenant": OWN_TENANT,
    "user": ID_STRING,
    "attribute": {"type": "string", "pattern": anchored(ATTRIBUTE_RE), "minLength": 1, "maxLength": MAX_ID_CHARS},
    "scope": SCOPE_SCHEMA,
}
COMMAND_FIELDS: dict[str, Any] = {"id": NULLABLE_ID, "tenant": OWN_TENANT, "user": ID_STRING}
NOT_BLANK = {"not": {"anyOf": [{"type": "null"}, {"type": "string", "pattern": r"^\s*$"}]}}
# what a forget or a retract names its target by: at least one of these
TARGETS = ("record_id", "match", "about", "replaced_by")


def _json_of(schema: dict[str, Any]) -> dict[str, Any]:
    return {JSON: {"schema": schema}}


def _ref(model: type[BaseModel]) -> dict[str, Any]:
    return {"$ref": f"#/components/schemas/{model.__name__}"}


def error_response(status: str) -> dict[str, Any]:
    description, reasons = ERRORS[status]
    answer: dict[str, Any] = {
        "description": f"{description}. reason: {', '.join(str(r) for r in reasons)}",
        "content": _json_of(PROBLEM_REF),
    }
    if status in ("429", "503"):
        answer["headers"] = RETRY_AFTER
    return answer


def record_schema() -> dict[str, Any]:
    """A record as /v1/ops takes it: the engine's RecordIn fields, none other."""
    properties = {name: RECORD_FIELDS.get(name, {}) for name in RecordIn.model_fields}
    return {
        "type": "object",
        "description": "a record as on the ops topic (RecordIn, docs/concepts.md); its tenant is the key's",
        "properties": properties,
        "required": ["user", "attribute", "value"],
        "additionalProperties": False,
    }


def command_schema() -> dict[str, Any]:
    """A command as /v1/ops takes it: one form per `op`, each with its own fields."""
    forms = []
    for model in get_args(AnyCommand):
        op = get_args(model.model_fields["op"].annotation)[0]
        properties: dict[str, Any] = {name: COMMAND_FIELDS.get(name, {}) for name in model.model_fields}
        properties["op"] = {"const": op}
        if "record_id" in properties:
            properties["record_id"] = ID_STRING if model.model_fields["record_id"].is_required() else NULLABLE_ID
        required_fields = ["op", "user", *(n for n, f in model.model_fields.items() if f.is_required() and n != "op")]
        form: dict[str, Any] = {
            "type": "object",
            "properties": properties,
            "required": required_fields,
            "additionalProperties": False,
        }
        if op in ("forget", "retract"):
            form["anyOf"] = [{"required": [name]} for name in TARGETS if name in properties]
        if op == "correct":
            properties["value"] = NOT_BLANK
        forms.append(form)
    assert {f["properties"]["op"]["const"] for f in forms} == set(COMMAND_OPS)
    return {"description": "a command as on the ops topic (docs/concepts.md, Ops and outcomes)", "oneOf": forms}


def op_body_schema(time: dict[str, Any], op_id: dict[str, Any]) -> dict[str, Any]:
    """One op: a record or a command, never both."""
    return {
        "type": "object",
        "properties": {
            "record": {"anyOf": [{"$ref": "#/components/schemas/RecordIn"}, {"type": "null"}]},
            "command": {"anyOf": [{"$ref": "#/components/schemas/CommandIn"}, {"type": "null"}]},
            "at": time,
            "op_id": op_id,
        },
        "additionalProperties": False,
        "oneOf": [
            {"required": ["record"], "properties": {"record": {"type": "object"}, "command": {"type": "null"}}},
            {"required": ["command"], "properties": {"command": {"type": "object"}, "record": {"type": "null"}}},
        ],
        "description": "a record or a command (exactly one), as on the ops topic; its tenant is the key's",
        "examples": [
            {"record": {"user": "alice", "attribute": "profile.diet", "value": "vegetarian"}},
            {"command": {"op": "forget", "user": "alice", "match": {"attribute": "profile.diet"}}},
        ],
    }


def context_operation() -> dict[str, Any]:
    """/v1/context in the OpenAPI document (the front door serves it, so FastAPI cannot describe it)."""
    return {
        "tags": ["context"],
        "summary": "Context",
        "description": "The context for one agent request: rendered text, its sections, the ids used, "
        "and with `explain` why each other candidate was left out. An unknown user gets an empty context.",
        "operationId": "context_v1_context_post",
        "requestBody": {"required": True, "content": _json_of(_ref(ContextQuery))},
        "responses": {"200": {"description": "the context", "content": _json_of(_ref(ContextResult))}},
    }


def _record_link(operation_id: str, record_id: str, user: str) -> dict[str, Any]:
    return {"operationId": operation_id, "parameters": {"user": user, "record_id": record_id}}


def links_from(record_id: str, user: str) -> dict[str, Any]:
    """The operations on a record an answer names: read it, its history, correct and forget it."""
    return {
        "memory": _record_link("memory_v1_users__user__memories__record_id__get", record_id, user),
        "history": _record_link("history_v1_users__user__memories__record_id__history_get", record_id, user),
        "correct": _record_link("correct_v1_users__user__memories__record_id__correct_post", record_id, user),
        "forget": _record_link("forget_v1_users__user__memories__record_id__delete", record_id, user),
    }


def _links(paths: dict[str, Any]) -> None:
    listing = "memories_v1_users__user__memories_get"
    memories = {  # the user the op was for: its record's or its command's
        "memories": {"operationId": listing, "parameters": {"user": "$request.body#/record/user"}},
        "memories_of_command": {"operationId": listing, "parameters": {"user": "$request.body#/command/user"}},
    }
    paths["/v1/ops"]["post"]["responses"]["202"]["links"] = memories
    paths["/v1/context"]["post"]["responses"]["200"]["links"] = links_from(
        "$response.body#/used_ids/0", "$request.body#/user"
    )
    paths["/v1/users/{user}/memories"]["get"]["responses"]["200"]["links"] = links_from(
        "$response.body#/items/0/id", "$request.path.user"
    )
    history = links_from("$response.body#/record/id", "$request.path.user")
    paths[MEMORY + "/history"]["get"]["responses"]["200"]["links"] = {
        k: v for k, v in history.items() if k != "history"
    }
    paths[MEMORY]["get"]["responses"]["200"]["links"] = {
        k: v for k, v in links_from("$response.body#/id", "$request.path.user").items() if k != "memory"
    }


def _answers(path: str, method: str, operation: dict[str, Any]) -> None:
    """Every status the operation can answer, each with its real body and media type."""
    responses = operation["responses"]
    responses.pop("422", None)  # FastAPI's own validation error shape, which the server never sends
    statuses = list(ALWAYS)
    if path.startswith("/v1/"):
        statuses += KEYED
    if "{" in path:
        statuses.append("404")
    if path.startswith(MEMORY) and method.lower() in ("post", "delete"):
        statuses.append("409")  # a control on the record the URL names
    for status in statuses:
        responses[status] = error_response(status)
    ok = next(s for s in responses if s.startswith("2"))
    if path == "/metrics":
        responses[ok]["content"] = {METRICS_TYPE: {"schema": {"type": "string"}}}
        responses[ok]["description"] = "the Prometheus text exposition"
    elif path == "/v1/users/{user}/export":
        responses[ok]["content"] = {NDJSON: {"schema": {"type": "string"}}}
        responses[ok]["description"] = "one JSON object a line: every record of the user and its history"
    elif path == "/healthz":
        responses[ok]["content"] = _json_of(HEALTH)
    elif path == "/readyz":
        responses[ok]["content"] = _json_of(READINESS)
        responses["503"] = {
            "description": "not ready: `waiting_for` names what is not reachable (or the connection cap, "
            "as a problem body)",
            "content": _json_of({"anyOf": [READINESS, PROBLEM_REF]}),
            "headers": RETRY_AFTER,
        }
    elif path == MEMORY and method == "get":
        responses[ok]["content"] = _json_of({"$ref": "#/components/schemas/Record"})


def _components(schemas: dict[str, Any]) -> None:
    """The bodies the document names that FastAPI does not describe, and the annotations it drops."""
    for model in (ContextQuery, ContextResult, Problem):
        defs = model.model_json_schema(ref_template="#/components/schemas/{model}")
        schemas.update(defs.pop("$defs", {}))
        schemas[model.__name__] = defs
    _, records = msgspec.json.schema_components([Record], ref_template="#/components/schemas/{name}")
    schemas.update(records)
    schemas["MemoryPage"]["properties"]["items"]["items"] = {"$ref": "#/components/schemas/Record"}
    for name in ("record", "lineage"):
        target = schemas["History"]["properties"][name]
        record = target.get("items", target)  # `lineage` is a list of records
        record.clear()
        record["$ref"] = "#/components/schemas/Record"
    op_body = schemas["OpBody"]["properties"]
    schemas["OpBody"] = op_body_schema(op_body["at"], op_body["op_id"])
    schemas["CorrectBody"]["properties"]["value"] = {
        **NOT_BLANK,
        "description": f"the new value, held to a record value's rules: not null or blank, at most {MAX_VALUE_CHARS} "
        f"characters as JSON, nested at most {MAX_VALUE_DEPTH} levels, integers within 64 bits, no secret "
        "(422 with the rule's reason code otherwise)",
    }
    schemas["RecordIn"] = record_schema()
    schemas["CommandIn"] = command_schema()
    schemas.pop("HTTPValidationError", None)
    schemas.pop("ValidationError", None)
    schemas["Problem"]["description"] = (
        "Every error's body: `reason`, a reason code (each response lists those it can carry); `field`, "
        "the field it is about, if any; `detail`, for a person."
    )
    schemas["Problem"]["additionalProperties"] = False
    schemas["Problem"]["required"] = ["reason", "detail", "field"]


def document(app: FastAPI) -> dict[str, Any]:
    """The app's OpenAPI document, built once."""
    if app.openapi_schema is None:
        schema = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
        components = schema.setdefault("components", {})
        _components(components.setdefault("schemas", {}))
        paths = schema["paths"]
        paths["/v1/context"] = {"post": context_operation()}
        components["securitySchemes"] = {"apiKey": {"type": "http", "scheme": "bearer"}}
        for path, operations in paths.items():
            for method, operation in operations.items():
                _answers(path, method, operation)
                if path.startswith("/v1/"):
                    operation["security"] = [{"apiKey": []}]
        _links(paths)
        app.openapi_schema = schema
    return app.openapi_schema
