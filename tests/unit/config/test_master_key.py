"""The master key ring from its sources: the environment (comma-separated) or the key file (one
per line, created on first use); a new key goes first, retiring keeps only the first."""

from __future__ import annotations

import base64
import os
import stat
from pathlib import Path

import pytest

from slotstream.config.errors import SettingsError
from slotstream.config.master_key import add_master_key, keep_only_first_master_key, master_keys, master_ring
from slotstream.config.settings import Settings
from slotstream.memory.sealing import fingerprint, new_key


def b64(key: bytes) -> str:
    return base64.b64encode(key).decode()


def test_the_file_is_made_on_first_use_then_read_whole(tmp_path: Path) -> None:
    settings = Settings(master_key_file=str(tmp_path / "m.key"))
    first = master_keys(settings)
    assert len(first) == 1 and len(first[0]) == 32
    assert stat.S_IMODE(os.stat(tmp_path / "m.key").st_mode) == 0o600
    assert master_keys(settings) == first


def test_a_new_key_goes_first_and_retiring_keeps_it_alone(tmp_path: Path) -> None:
    settings = Settings(master_key_file=str(tmp_path / "m.key"))
    old = master_keys(settings)
    new = add_master_key(settings)
    assert master_keys(settings) == [new, *old]
    assert stat.S_IMODE(os.stat(tmp_path / "m.key").st_mode) == 0o600
    assert keep_only_first_master_key(settings) == old
    assert master_keys(settings) == [new]


def test_a_ring_from_the_file_reloads_and_one_from_the_environment_does_not(tmp_path: Path) -> None:
    settings = Settings(master_key_file=str(tmp_path / "m.key"))
    ring = master_ring(settings)
    new = add_master_key(settings)
    assert ring.get(fingerprint(new)) == new  # missing: read the file again
    a, b = new_key(), new_key()
    from_env = master_ring(Settings(master_key=f"{b64(a)},{b64(b)}"))
    assert from_env.keys == [a, b] and from_env.first == fingerprint(a)
    assert from_env.get(fingerprint(new)) is None


@pytest.mark.parametrize("value", ["", "not base64!", b64(b"short"), f"{b64(new_key())},{b64(b'x')}"])
def test_a_bad_environment_key_is_refused_with_its_reason(value: str) -> None:
    with pytest.raises(SettingsError):
        master_keys(Settings(master_key=value or " "))


def test_changing_the_ring_in_the_environment_is_refused(tmp_path: Path) -> None:
    settings = Settings(master_key=b64(new_key()), master_key_file=str(tmp_path / "m.key"))
    with pytest.raises(SettingsError, match="SLOTSTREAM_MASTER_KEY is set"):
        add_master_key(settings)
