"""API keys: stored hashed, tenant and scopes per key, revocation and new keys seen without a
restart, a broken keys file does not lock everyone out; the per-tenant token bucket."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from slotstream.sidecar.keys import KeyStore, create_key, key_hash, list_keys, revoke_key
from slotstream.sidecar.ratelimit import TenantLimiter


def test_only_a_hash_is_stored_and_the_key_decides_tenant_and_scopes(tmp_path: Path) -> None:
    path = tmp_path / "keys.json"
    key_id, key = create_key(path, "acme", ["read"], name="ci")
    text = path.read_text()
    secret = key.split("_", 2)[2]  # "ssk_<id>_<secret>": the secret may itself hold "_"
    assert key not in text and secret not in text and key_hash(key) in text
    assert oct(os.stat(path).st_mode & 0o777) == "0o600"
    who = KeyStore(path).authenticate(key)
    assert who is not None and (who.key_id, who.tenant) == (key_id, "acme")
    assert who.may("read") and not who.may("write")
    assert [e["id"] for e in list_keys(path)] == [key_id] and "hash" not in list_keys(path)[0]


@pytest.mark.parametrize("presented", ["", "ssk_", "ssk_abc", "nope", "ssk_{id}_wrong-secret", "{key}x"])
def test_malformed_unknown_or_wrong_keys_are_refused(tmp_path: Path, presented: str) -> None:
    key_id, key = create_key(tmp_path / "keys.json", "acme", ["read"])
    store = KeyStore(tmp_path / "keys.json")
    assert store.authenticate(presented.format(id=key_id, key=key)) is None


def test_admin_may_everything() -> None:
    from slotstream.sidecar.keys import Principal

    admin = Principal("k", "acme", frozenset({"admin"}))
    assert all(admin.may(s) for s in ("read", "write", "admin"))


def test_unknown_scopes_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        create_key(tmp_path / "keys.json", "acme", ["read", "root"])
    with pytest.raises(ValueError):
        create_key(tmp_path / "keys.json", "acme", [])


def test_a_new_key_works_at_once_and_a_revoked_one_stops_within_the_reload_period(tmp_path: Path) -> None:
    path = tmp_path / "keys.json"
    old_id, old = create_key(path, "acme", ["read"])
    store = KeyStore(path, reload_every=0.2)
    assert store.authenticate(old) is not None
    _, new = create_key(path, "acme", ["read"])
    assert store.authenticate(new) is not None, "an unknown key id makes the store look at the file"
    assert revoke_key(path, old_id) and not revoke_key(path, "no-such-id")
    deadline = time.monotonic() + 5
    while store.authenticate(old) is not None:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert store.authenticate(new) is not None


def test_a_broken_keys_file_keeps_the_keys_read_last(tmp_path: Path) -> None:
    path = tmp_path / "keys.json"
    _, key = create_key(path, "acme", ["read"])
    store = KeyStore(path, reload_every=0.0)
    assert store.authenticate(key) is not None
    path.write_text('{"keys": [ {"id": ')  # a hand edit gone wrong
    assert store.authenticate(key) is not None


def test_fixed_entries_from_the_setting(tmp_path: Path) -> None:
    entry = {"id": "fixed1", "tenant": "acme", "scopes": ["read", "write"], "hash": key_hash("ssk_fixed1_s3cret")}
    store = KeyStore(tmp_path / "missing.json", json.dumps([entry]))
    who = store.authenticate("ssk_fixed1_s3cret")
    assert who is not None and who.tenant == "acme" and who.may("write")
    assert store.authenticate("ssk_fixed1_other") is None


def test_the_bucket_refuses_past_the_burst_per_tenant_and_refills() -> None:
    limiter = TenantLimiter(rate=100.0, burst=5.0)
    assert [limiter.retry_after("a") for _ in range(5)] == [None] * 5
    wait = limiter.retry_after("a")
    assert wait is not None and 0 < wait <= 0.01 + 1e-9
    assert limiter.retry_after("b") is None, "another tenant has its own bucket"
    time.sleep(0.03)
    assert limiter.retry_after("a") is None
