"""Sealed payloads: open only with the right user's key, for the record key they were sealed under."""

from __future__ import annotations

import pytest

from slotstream.memory.sealing import (
    SealError,
    is_sealed,
    key_id,
    new_key,
    new_key_id,
    open_sealed,
    seal,
    unwrap,
    wrap,
)

PAYLOAD = b'{"tenant":"t","user":"u","text":"I live in Oslo."}'


def test_a_sealed_payload_opens_with_its_key_and_hides_its_text() -> None:
    key, kid = new_key(), new_key_id()
    sealed = seal(key, kid, b"t/u", PAYLOAD)
    assert is_sealed(sealed) and not is_sealed(PAYLOAD) and not is_sealed(None)
    assert b"Oslo" not in sealed and key_id(sealed) == kid
    assert open_sealed(key, b"t/u", sealed) == PAYLOAD
    assert seal(key, kid, b"t/u", PAYLOAD) != sealed  # a fresh nonce each time


@pytest.mark.parametrize(
    "change",
    [
        lambda key, sealed: (new_key(), b"t/u", sealed),  # another key
        lambda key, sealed: (key, b"t/other", sealed),  # moved under another user's record key
        lambda key, sealed: (key, b"t/u", sealed[:-1] + bytes([sealed[-1] ^ 1])),  # altered
    ],
)
def test_anything_else_does_not_open(change: object) -> None:
    key = new_key()
    sealed = seal(key, new_key_id(), b"t/u", PAYLOAD)
    args = change(key, sealed)  # type: ignore[operator]
    with pytest.raises(SealError):
        open_sealed(*args)


@pytest.mark.parametrize("value", [b"SSE1", b"SSE1\x05ab", b"SSE1\x02\xff\xfe" + b"0" * 40])
def test_a_malformed_sealed_payload_is_refused_not_crashing(value: bytes) -> None:
    with pytest.raises(SealError):
        open_sealed(new_key(), b"t/u", value)


def test_a_wrapped_key_unwraps_only_with_the_master_key_and_its_binding() -> None:
    master, key = new_key(), new_key()
    wrapped = wrap(master, b"t/u/k1", key)
    assert unwrap(master, b"t/u/k1", wrapped) == key
    with pytest.raises(SealError):
        unwrap(new_key(), b"t/u/k1", wrapped)
    with pytest.raises(SealError):
        unwrap(master, b"t/v/k1", wrapped)
