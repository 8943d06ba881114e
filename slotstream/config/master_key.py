"""The master keys that wrap users' data keys: from SLOTSTREAM_MASTER_KEY (base64, several
separated by commas), else a key file created on first use (readable by its owner only; one key
per line), so the local stack and every process it starts share them. The first key wraps new
data keys until a rotation names another (`slotstream keys rotate-master`); every key unwraps."""

from __future__ import annotations

import base64
import binascii
import contextlib
import os
import tempfile
from pathlib import Path

import redis

from slotstream.config.errors import SettingsError
from slotstream.config.settings import Settings
from slotstream.memory.sealing import KEY_BYTES
from slotstream.state.user_keys import MasterRing, Sealer, UserKeys
from slotstream.streams.topics import KEYS


def _decode(text: str, where: str) -> bytes:
    try:
        key = base64.b64decode(text.strip(), validate=True)
    except (binascii.Error, ValueError):
        raise SettingsError(f"{where}: not base64") from None
    if len(key) != KEY_BYTES:
        raise SettingsError(f"{where}: {len(key)} bytes, the master key is {KEY_BYTES}")
    return key


def _decode_all(text: str, where: str, separator: str) -> list[bytes]:
    keys = [_decode(part, where) for part in text.split(separator) if part.strip()]
    if not keys:
        raise SettingsError(f"{where}: no master key")
    return keys


def _write_whole(path: Path, keys: list[bytes], replace: bool) -> None:
    """Written whole under another name, then linked (a new file: a process starting at the same
    moment reads no file or the complete one, and the first link wins) or renamed over the old
    one (readers see the old file or the new, never a part)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".master-key-")
    try:
        os.write(fd, b"".join(base64.b64encode(key) + b"\n" for key in keys))
        os.fsync(fd)
        os.close(fd)
        if replace:
            os.replace(temp, path)
            return
        with contextlib.suppress(FileExistsError):
            os.link(temp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)


def master_keys(settings: Settings) -> list[bytes]:
    if settings.master_key is not None:
        return _decode_all(settings.master_key.get_secret_value(), "SLOTSTREAM_MASTER_KEY", ",")
    path = Path(settings.master_key_file)
    if not path.exists():
        _write_whole(path, [os.urandom(KEY_BYTES)], replace=False)
    return _decode_all(path.read_text(), str(path), "\n")


def master_ring(settings: Settings) -> MasterRing:
    # a key file can change under a running process (a rotation adds a key); the environment cannot
    reload = None if settings.master_key is not None else (lambda: master_keys(settings))
    return MasterRing(master_keys(settings), reload)


def add_master_key(settings: Settings) -> bytes:
    """A new master key, put first in the master key file (the others kept after it)."""
    if settings.master_key is not None:
        raise SettingsError(
            "SLOTSTREAM_MASTER_KEY is set: put the new key first in it (the old after it, comma-separated) "
            "on every process, then run the rotation"
        )
    new = os.urandom(KEY_BYTES)
    _write_whole(Path(settings.master_key_file), [new, *master_keys(settings)], replace=True)
    return new


def keep_only_first_master_key(settings: Settings) -> list[bytes]:
    """Retire every master key but the first from the master key file; returns those retired."""
    if settings.master_key is not None:
        raise SettingsError("SLOTSTREAM_MASTER_KEY is set: remove the retired keys from it on every process")
    keys = master_keys(settings)
    _write_whole(Path(settings.master_key_file), keys[:1], replace=True)
    return keys[1:]


def user_keys(settings: Settings, client: redis.Redis) -> UserKeys:
    return UserKeys(client, master_ring(settings))


def sealer(settings: Settings, client: redis.Redis) -> Sealer:
    return Sealer(user_keys(settings, client))


def restore_user_keys(settings: Settings, client: redis.Redis) -> int:
    """Put back into Redis every user key the keys topic holds and Redis lost (the durable copy):
    before a rebuild or a replay. Returns how many were missing."""
    from slotstream.streams.log_reader import log_consumer, read_whole

    assert settings.kafka_bootstrap
    consumer = log_consumer(settings.kafka_bootstrap)
    try:
        return user_keys(settings, client).restore(read_whole(consumer, settings.topic_specs()[KEYS].name))
    finally:
        consumer.close()
