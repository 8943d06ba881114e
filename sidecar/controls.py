"""The memory controls as commands, shared by the inspector's forms and the MCP tools: what a
forget takes away, by the scope the caller chose."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

FORGET_SCOPES = {
    "record": "this record (and the values it replaced), in its scope",
    "value_here": "this value of this attribute, in this record's scope",
    "value_everywhere": "this value of this attribute, in every scope",
    "attribute_everywhere": "every value of this attribute, in every scope",
}


def forget_command(rec: Mapping[str, Any], choice: str) -> dict[str, Any]:
    """The forget command for a record (its JSON form: id, subject, attribute, value, scope) and
    one of FORGET_SCOPES (ValueError for any other)."""
    if choice not in FORGET_SCOPES:
        raise ValueError(f"forget one of: {', '.join(FORGET_SCOPES)}")
    if choice == "record":
        return {"op": "forget", "record_id": rec["id"]}
    match: dict[str, Any] = {"attribute": rec["attribute"], "subject": rec["subject"]}
    if choice != "attribute_everywhere":
        match["value"] = rec["value"]
    if choice == "value_here":
        match["scope"] = rec["scope"]
    return {"op": "forget", "match": match}
