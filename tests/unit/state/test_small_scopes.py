"""SmallScopes (state/read_index.py): which users' next context lookup reads whole without the
script. Keyed by user and the scopes asked for; a user past the threshold is forgotten; bounded,
the users read least recently going first."""

from __future__ import annotations

from slotstream.state.read_index import SmallScopes


def test_a_user_is_small_for_the_scopes_it_was_read_with_until_it_is_not() -> None:
    small = SmallScopes()
    assert not small.small(("t1", "u1"), ["global"])
    small.note(("t1", "u1"), ["global"], True)
    assert small.small(("t1", "u1"), ["global"])
    assert not small.small(("t1", "u1"), ["global", "project:p1"])
    assert not small.small(("t2", "u1"), ["global"])
    small.note(("t1", "u1"), ["global"], False)
    assert not small.small(("t1", "u1"), ["global"]) and len(small) == 0


def test_the_bound_holds_and_the_users_read_least_recently_go_first() -> None:
    small = SmallScopes(max_entries=3)
    for user in ("a", "b", "c"):
        small.note(("t1", user), ["global"], True)
    assert small.small(("t1", "a"), ["global"])  # read again: now the most recent
    small.note(("t1", "d"), ["global"], True)
    assert len(small) == 3
    assert [small.small(("t1", user), ["global"]) for user in "abcd"] == [True, False, True, True]
    small.clear()
    assert len(small) == 0 and not small.small(("t1", "a"), ["global"])


def test_a_scopes_rows_are_joined_into_one_array_as_bytes_or_str() -> None:
    from slotstream.state.reader import _joined

    assert _joined([b'["a"]', b'["b"]']) == b'[["a"],["b"]]'
    assert _joined(['["a"]', '["é"]']) == '[["a"],["é"]]'.encode()
    assert _joined([]) == b"[]"
