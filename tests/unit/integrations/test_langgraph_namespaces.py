"""How the LangGraph store reads namespaces, keys and filters (no server needed)."""

from __future__ import annotations

import pytest
from langgraph.store.base import InvalidNamespaceError

from slotstream.integrations.langgraph import _key, _matches, _namespace, _where


def test_a_namespace_is_a_user_and_a_scope() -> None:
    assert _where(("ann",)) == ("ann", "global")
    assert _where(("ann", "project", "p1")) == ("ann", "project:p1")
    assert _where(("ann", "session", "s-9")) == ("ann", "session:s-9")
    for scope in ("global", "project:p1", "session:s-9"):
        assert _where(_namespace("ann", scope)) == ("ann", scope), "read back as written"


@pytest.mark.parametrize(
    "namespace",
    [(), ("",), ("a:b",), ("a{b}",), ("ann", "team", "x"), ("ann", "project"), ("ann", "project", "a b"), ("ann", "x")],
)
def test_other_namespaces_are_refused(namespace: tuple[str, ...]) -> None:
    with pytest.raises(InvalidNamespaceError):
        _where(namespace)


def test_keys_are_plain_names() -> None:
    assert _key("food_prefs-2") == "food_prefs-2"
    for bad in ("", "a.b", "a b", "a/b", "é", "x" * 65):
        with pytest.raises(ValueError):
            _key(bad)


def test_a_filter_matches_exact_field_values() -> None:
    value = {"cuisine": "thai", "spicy": True}
    assert _matches(value, None) and _matches(value, {}) and _matches(value, {"cuisine": "thai"})
    assert not _matches(value, {"cuisine": "thai", "spicy": False}) and not _matches(value, {"missing": 1})
