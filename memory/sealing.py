"""Sealed payloads: what the producers write to the turns and ops topics is encrypted with a key
of the user it belongs to (AES-256-GCM), so erasing the key ("crypto-shredding") leaves every copy
in the retained log unreadable. The key's id travels in the payload, the user in the record key
(authenticated with the payload, so a payload moved to another user's key does not open).

    b"SSE1" | kid length (1 byte) | kid (ASCII) | nonce (12 bytes) | ciphertext + tag

A plaintext JSON payload starts with "{" and is read as before (a producer outside this repository
that does not seal gets no erasure guarantee for the log: docs/operating.md).

User keys are stored wrapped with the master key (AES-256-GCM again, bound to tenant, user and
key id); this module only does the cryptography, state/user_keys.py keeps them. Pure: no I/O.
"""

from __future__ import annotations

import hashlib
import hmac
import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

MAGIC = b"SSE1"
NONCE_BYTES = 12
KEY_BYTES = 32


class SealError(ValueError):
    """A sealed payload that is malformed or does not open with the key given."""


def is_sealed(value: bytes | None) -> bool:
    return bool(value) and value is not None and value.startswith(MAGIC)


def new_key() -> bytes:
    return AESGCM.generate_key(bit_length=256)


def new_key_id() -> str:
    return os.urandom(6).hex()


def seal(key: bytes, kid: str, record_key: bytes, plaintext: bytes) -> bytes:
    kid_bytes = kid.encode("ascii")
    nonce = os.urandom(NONCE_BYTES)
    ciphertext = AESGCM(key).encrypt(nonce, plaintext, record_key + b"|" + kid_bytes)
    return MAGIC + bytes([len(kid_bytes)]) + kid_bytes + nonce + ciphertext


def key_id(value: bytes) -> str:
    """The id of the key a sealed payload needs."""
    if not is_sealed(value) or len(value) < len(MAGIC) + 1:
        raise SealError("not a sealed payload")
    size = value[len(MAGIC)]
    start = len(MAGIC) + 1
    if len(value) < start + size + NONCE_BYTES + 16:
        raise SealError("sealed payload too short")
    try:
        return value[start : start + size].decode("ascii")
    except UnicodeDecodeError:
        raise SealError("sealed payload with a malformed key id") from None


def open_sealed(key: bytes, record_key: bytes, value: bytes) -> bytes:
    kid = key_id(value)
    start = len(MAGIC) + 1 + len(kid)
    nonce, ciphertext = value[start : start + NONCE_BYTES], value[start + NONCE_BYTES :]
    try:
        return AESGCM(key).decrypt(nonce, ciphertext, record_key + b"|" + kid.encode("ascii"))
    except InvalidTag:
        raise SealError("the payload does not open with its user's key (altered, or another user's)") from None


def fingerprint(master: bytes) -> str:
    """A master key's public name: says which key wraps what, and gives nothing of the key away."""
    return hmac.new(master, b"slotstream master key", hashlib.sha256).hexdigest()[:16]


def wrap(master: bytes, binding: bytes, key: bytes) -> bytes:
    nonce = os.urandom(NONCE_BYTES)
    return nonce + AESGCM(master).encrypt(nonce, key, binding)


def unwrap(master: bytes, binding: bytes, wrapped: bytes) -> bytes:
    try:
        return AESGCM(master).decrypt(wrapped[:NONCE_BYTES], wrapped[NONCE_BYTES:], binding)
    except InvalidTag:
        raise SealError("a user key does not unwrap with the master key (another master key?)") from None
