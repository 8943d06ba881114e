"""The JSON schema of the reply the LLM extractor asks for (sent as the request's `response_format`,
for endpoints that constrain output to it). The reply is checked again field by field and every
record goes through the engine's own validation: the schema shapes the answer, it is not trusted.
"""

from __future__ import annotations

from typing import Any

_MATCH: dict[str, Any] = {
    "type": "object",
    "properties": {
        "attribute": {"type": "string", "pattern": r"^[\w\-]+(?:\.[\w\-]+)*$", "maxLength": 128},
        "value": {"type": ["string", "number", "boolean"]},
        "scope": {"enum": ["global", "session", "project"]},
    },
    "required": ["attribute"],
    "additionalProperties": False,
}

REPLY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "records": {
            "type": "array",
            "maxItems": 16,
            "items": {
                "type": "object",
                "properties": {
                    "kind": {"enum": ["preference", "goal", "priority", "rule", "knowledge", "session_context"]},
                    "attribute": {"type": "string", "pattern": r"^[\w\-]+(?:\.[\w\-]+)*$", "maxLength": 128},
                    "value": {"type": ["string", "number", "boolean"]},
                    "scope": {"enum": ["global", "session", "project"]},
                    "statement": {"type": "string", "maxLength": 500},
                    "explicit": {"type": "boolean"},
                    "correction": {"type": "boolean"},
                    "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                    "valid_from": {"type": "string", "format": "date-time"},
                    "valid_until": {"type": "string", "format": "date-time"},
                },
                "required": ["kind", "attribute", "value", "explicit"],
                "additionalProperties": False,
            },
        },
        "commands": {
            "type": "array",
            "maxItems": 16,
            "items": {
                "type": "object",
                "properties": {
                    "op": {"enum": ["forget", "retract", "restate"]},
                    "match": _MATCH,
                    # the user's own words for what to forget, what no longer holds, or what a new
                    # value is for; the engine finds the record among what is stored
                    "about": {"type": "array", "maxItems": 8, "items": {"type": "string", "maxLength": 64}},
                    "value": {"type": "string", "maxLength": 200},
                    "old_value": {"type": "string", "maxLength": 200},
                },
                "required": ["op"],
                "additionalProperties": False,
            },
        },
    },
    "required": ["records", "commands"],
    "additionalProperties": False,
}

RESPONSE_FORMAT: dict[str, Any] = {
    "type": "json_schema",
    "json_schema": {"name": "memory_extraction", "schema": REPLY_SCHEMA, "strict": False},
}
