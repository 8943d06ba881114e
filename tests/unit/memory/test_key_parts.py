"""Key parts: escaping round-trips, leaves no separator, and is the identity on accepted ids."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from slotstream.memory.key_parts import MalformedKey, escape, join, split, unescape
from slotstream.memory.models import ID_RE

# every separator, glob and escape character the keys use, whitespace, controls, and beyond ASCII
SEPARATORS = ":/{}|%*?[]\\ \t\n\x00~#"
parts = st.text(alphabet=st.sampled_from(SEPARATORS) | st.characters(codec="utf-8"), max_size=12)


@given(parts)
def test_escape_round_trips_and_leaves_no_separator(part: str) -> None:
    escaped = escape(part)
    assert unescape(escaped) == part
    assert not set(escaped) & set(":/{}|*?[]\\ \t\n\x00~#")


@given(st.lists(parts, min_size=1, max_size=4), st.lists(parts, min_size=1, max_size=4))
def test_joined_keys_are_equal_only_for_equal_parts(a: list[str], b: list[str]) -> None:
    assert (join(a) == join(b)) == (a == b) or len(a) != len(b)
    if len(a) == len(b):
        assert (join(a) == join(b)) == (a == b)
    assert split(join(a), len(a)) == a


@given(st.from_regex(ID_RE, fullmatch=True))
def test_an_accepted_id_is_its_own_escaped_form(ident: str) -> None:
    # keys written for accepted ids before escaping keep their names
    assert escape(ident) == ident


def test_the_alias_of_joined_ids_is_gone() -> None:
    assert join(("a", "b:c")) != join(("a:b", "c"))
    assert join(("a", "b/c")) != join(("a/b", "c"))
    assert join(("a%2F", "b")) != join(("a/", "b"))


@pytest.mark.parametrize("text", ["a:b", "%", "%2", "%zz", "a b", "%FF", "a~"])
def test_unescape_refuses_what_escape_never_makes(text: str) -> None:
    with pytest.raises(MalformedKey):
        unescape(text)


def test_split_refuses_the_wrong_number_of_parts() -> None:
    with pytest.raises(MalformedKey):
        split("a/b/c", 2)
