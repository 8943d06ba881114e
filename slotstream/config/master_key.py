"""The master key that wraps users' data keys: from SLOTSTREAM_MASTER_KEY, else a key file created
on first use (readable by its owner only), so the local stack and every process it starts share one."""

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
from slotstream.state.user_keys import Sealer, UserKeys
from slotstream.streams.topics import KEYS


def _decode(text: str, where: str) -> bytes:
    try:
        key = base64.b64decode(text.strip(), validate=True)
    except (binascii.Error, ValueError):
        raise SettingsError(f"{where}: not base64") from None
    if len(key) != KEY_BYTES:
        raise SettingsError(f"{where}: {len(key)} bytes, the master key is {KEY_BYTES}")
    return key


def master_key(settings: Settings) -> bytes:
    if settings.master_key is not None:
        return _decode(settings.master_key.get_secret_value(), "SLOTSTREAM_MASTER_KEY")
    path = Path(settings.master_key_file)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        # written whole under another name, then linked: a process starting at the same moment
        # reads either no file or the complete one, and the first link wins
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".master-key-")
        try:
            os.write(fd, base64.b64encode(os.urandom(KEY_BYTES)) + b"\n")
            os.close(fd)
            with contextlib.suppress(FileExistsError):
                os.link(temp, path)
        finally:
            os.unlink(temp)
    return _decode(path.read_text(), str(path))


def user_keys(settings: Settings, client: redis.Redis) -> UserKeys:
    return UserKeys(client, master_key(settings))


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
