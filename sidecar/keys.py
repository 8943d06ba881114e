"""API keys: each decides a tenant and what its holder may do.

A key is `ssk_<id>_<secret>`. Only a SHA-256 of the whole key is stored (the key is 256 random
bits, so a fast hash is enough); `slotstream keys create` prints a new key once. The store is a
JSON file, re-read when it changes (no restart to add, rotate or revoke a key), plus optional
entries from the `api_keys` setting (SLOTSTREAM_API_KEYS: a JSON list in the same format).
A revocation takes effect within `reload_every` seconds; a key id not yet known makes the store
look at the file at once (one stat), so a new key works on its first request.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import secrets
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)
SCOPES = ("read", "write", "admin")
PREFIX = "ssk_"


@dataclass(frozen=True)
class Principal:
    """Who is calling: the tenant every id in the request belongs to, what it may do, its roles."""

    key_id: str
    tenant: str
    scopes: frozenset[str]
    roles: frozenset[str] = field(default_factory=frozenset)

    def may(self, scope: str) -> bool:
        return scope in self.scopes or "admin" in self.scopes


def key_hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def new_key() -> tuple[str, str]:
    """(key id, the key)."""
    key_id = secrets.token_hex(6)
    return key_id, f"{PREFIX}{key_id}_{secrets.token_urlsafe(32)}"


def key_id_of(key: str) -> str | None:
    if not key.startswith(PREFIX):
        return None
    key_id, sep, _ = key[len(PREFIX) :].partition("_")
    return key_id if sep and key_id else None


class KeyStore:
    def __init__(self, path: str | Path, fixed_entries: str = "", reload_every: float = 1.0) -> None:
        self.path = Path(path)
        self.fixed_entries = fixed_entries
        self.reload_every = reload_every
        self._entries: dict[str, dict[str, Any]] = {}
        self._stamp: tuple[int, int, int] | None = None
        self._checked = 0.0
        self._lock = threading.Lock()
        self._load()

    def _load(self) -> None:
        entries: dict[str, dict[str, Any]] = {}
        for entry in json.loads(self.fixed_entries or "[]"):
            entries[entry["id"]] = entry
        try:
            self._stamp = self._file_stamp()
            for entry in json.loads(self.path.read_text() or "{}").get("keys", []):
                entries[entry["id"]] = entry
        except FileNotFoundError:
            self._stamp = None
        self._entries = entries

    def _file_stamp(self) -> tuple[int, int, int] | None:
        # the inode too: every write replaces the file, so two writes within one mtime tick differ
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            return None
        return (stat.st_mtime_ns, stat.st_size, stat.st_ino)

    def _fresh(self, now_please: bool = False) -> None:
        now = time.monotonic()
        if not now_please and now - self._checked < self.reload_every:
            return
        self._checked = now
        if self._file_stamp() != self._stamp:
            with self._lock:
                try:
                    self._load()
                except (ValueError, KeyError, TypeError) as err:
                    # a hand-edited file gone wrong: keep serving the keys read last time
                    log.error("keys file %s unreadable, keeping the previous keys: %s", self.path, err)

    def authenticate(self, key: str) -> Principal | None:
        """The principal a presented key stands for; None for an unknown, wrong or revoked key."""
        self._fresh()
        key_id = key_id_of(key)
        if key_id and key_id not in self._entries:
            self._fresh(now_please=True)
        entry = self._entries.get(key_id) if key_id else None
        if entry is None or entry.get("revoked_at"):
            return None
        if not hmac.compare_digest(entry["hash"], key_hash(key)):
            return None
        return _principal(entry)

    def principal(self, key_id: str) -> Principal | None:
        """The principal of a key already presented once (an inspector session holds its id, not
        the key); None once the key is revoked or gone."""
        self._fresh()
        entry = self._entries.get(key_id)
        if entry is None or entry.get("revoked_at"):
            return None
        return _principal(entry)


def _principal(entry: dict[str, Any]) -> Principal:
    return Principal(
        key_id=entry["id"],
        tenant=entry["tenant"],
        scopes=frozenset(entry["scopes"]),
        roles=frozenset(entry.get("roles", [])),
    )


# --- managing the file (the `slotstream keys` command) ----------------------------------------


def _read(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text()) if path.exists() else {"keys": []}


def _write(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n")
    os.chmod(tmp, 0o600)
    tmp.replace(path)  # readers see the old file or the new one, never half of it


def create_key(
    path: str | Path, tenant: str, scopes: list[str], roles: list[str] | None = None, name: str = ""
) -> tuple[str, str]:
    """Add a key; returns (key id, the key) — the key itself is not kept."""
    unknown = set(scopes) - set(SCOPES)
    if unknown or not scopes:
        raise ValueError(f"scopes are some of {SCOPES}, not {sorted(unknown) or 'none'}")
    key_id, key = new_key()
    data = _read(Path(path))
    data["keys"].append(
        {
            "id": key_id,
            "tenant": tenant,
            "scopes": sorted(set(scopes)),
            "roles": sorted(roles or []),
            "name": name,
            "hash": key_hash(key),
            "created_at": datetime.now(UTC).isoformat(),
        }
    )
    _write(Path(path), data)
    return key_id, key


def revoke_key(path: str | Path, key_id: str) -> bool:
    data = _read(Path(path))
    found = False
    for entry in data["keys"]:
        if entry["id"] == key_id and not entry.get("revoked_at"):
            entry["revoked_at"] = datetime.now(UTC).isoformat()
            found = True
    _write(Path(path), data)
    return found


def list_keys(path: str | Path) -> list[dict[str, Any]]:
    return [{k: v for k, v in e.items() if k != "hash"} for e in _read(Path(path))["keys"]]
