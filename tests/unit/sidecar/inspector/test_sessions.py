"""The pure parts of inspector sessions: tokens and what a cookie may name."""

from __future__ import annotations

from slotstream.sidecar.inspector.sessions import new_token, same_token, session_key, well_formed


def test_tokens_are_fresh_and_compared_whole() -> None:
    a, b = new_token(), new_token()
    assert a != b and well_formed(a) and well_formed(b)
    assert same_token(a, a)
    assert not same_token(a, b) and not same_token(a[:-1], a) and not same_token("", "") and not same_token(None, a)


def test_a_cookie_that_is_not_a_token_is_never_looked_up() -> None:
    for cookie in ("", "x", "*", "a" * 44, "a" * 42 + "*", "../" * 14 + "a", "a" * 42 + " "):
        assert not well_formed(cookie), cookie
    assert session_key("abc") == "slotstream:inspector:session:abc"
