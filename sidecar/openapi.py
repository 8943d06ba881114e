"""The OpenAPI document: FastAPI's, plus the context route the front door serves, the bodies routes
parse themselves, and the bearer key every /v1 route needs."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel

from .schemas import ContextQuery, ContextResult, Problem


def _json_of(model: type[BaseModel]) -> dict[str, Any]:
    return {"application/json": {"schema": {"$ref": f"#/components/schemas/{model.__name__}"}}}


def context_operation() -> dict[str, Any]:
    """/v1/context in the OpenAPI document (the front door serves it, so FastAPI cannot describe it)."""
    return {
        "tags": ["context"],
        "summary": "Context",
        "description": "The context for one agent request: rendered text, its sections, the ids used, "
        "and with `explain` why each other candidate was left out. An unknown user gets an empty context.",
        "operationId": "context_v1_context_post",
        "requestBody": {"required": True, "content": _json_of(ContextQuery)},
        "responses": {
            "200": {"description": "the context", "content": _json_of(ContextResult)},
            "401": {"description": "no valid key", "content": _json_of(Problem)},
            "403": {"description": "the key may not read", "content": _json_of(Problem)},
            "422": {"description": "a bad request, with its reason code and field", "content": _json_of(Problem)},
            "429": {"description": "over the tenant's rate; see Retry-After", "content": _json_of(Problem)},
            "503": {"description": "Redis not reachable; see Retry-After", "content": _json_of(Problem)},
        },
    }


def document(app: FastAPI) -> dict[str, Any]:
    """The app's OpenAPI document, built once."""
    if app.openapi_schema is None:
        schema = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
        components = schema.setdefault("components", {})
        schemas = components.setdefault("schemas", {})
        for model in (ContextQuery, ContextResult, Problem):
            defs = model.model_json_schema(ref_template="#/components/schemas/{model}")
            schemas.update(defs.pop("$defs", {}))
            schemas[model.__name__] = defs
        schema["paths"]["/v1/context"] = {"post": context_operation()}
        components["securitySchemes"] = {"apiKey": {"type": "http", "scheme": "bearer"}}
        for path, operations in schema["paths"].items():
            if path.startswith("/v1/"):
                for operation in operations.values():
                    operation["security"] = [{"apiKey": []}]
        app.openapi_schema = schema
    return app.openapi_schema
