"""The forget a caller chose, as the command the ops topic carries."""

from __future__ import annotations

import pytest

from slotstream.sidecar.controls import FORGET_SCOPES, forget_command

REC = {"id": "r1", "subject": "user", "attribute": "profile.diet", "value": "vegan", "scope": "project:p1"}


def test_each_scope_forgets_what_it_says() -> None:
    assert forget_command(REC, "record") == {"op": "forget", "record_id": "r1"}
    here = {"attribute": "profile.diet", "subject": "user", "value": "vegan", "scope": "project:p1"}
    assert forget_command(REC, "value_here") == {"op": "forget", "match": here}
    everywhere = {"attribute": "profile.diet", "subject": "user", "value": "vegan"}
    assert forget_command(REC, "value_everywhere") == {"op": "forget", "match": everywhere}
    assert forget_command(REC, "attribute_everywhere") == {
        "op": "forget",
        "match": {"attribute": "profile.diet", "subject": "user"},
    }
    assert set(FORGET_SCOPES) == {"record", "value_here", "value_everywhere", "attribute_everywhere"}


def test_an_unknown_scope_is_refused() -> None:
    with pytest.raises(ValueError, match="forget one of"):
        forget_command(REC, "everything")
