"""Serving the sidecar: uvicorn (uvloop, httptools) in `sidecar_workers` processes, each with a
listening socket of its own on the same port (SO_REUSEPORT), so the kernel spreads connections
over the processes.

Why not uvicorn's own `workers=`: its processes share one listening socket, and an idle process
woken for a burst of new connections accepts all of them — an agent's connection pool opening
16 connections at once was measured landing entirely on one of two processes, which then served
at half the machine. With a socket per process each connection goes to one of them by the
kernel's hash.

The parent only supervises: it checks that the port is free, starts the processes, restarts one
that dies after it had started serving, and on SIGTERM or SIGINT stops them all gracefully.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import shutil
import signal
import socket
import tempfile
import time
from multiprocessing.process import BaseProcess
from types import FrameType

import uvicorn

from slotstream.config.settings import Settings

from .errors import SidecarError
from .protocol import protocol_class

log = logging.getLogger(__name__)
GRACEFUL_SECONDS = 10
STARTED_AFTER = 5.0  # a process that dies sooner failed to start: stop, don't restart it in a loop


def listening_socket(host: str, port: int, backlog: int = 2048) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    sock.listen(backlog)
    sock.setblocking(False)
    return sock


def serve_one(host: str, port: int, supervised: bool = False) -> None:
    """One server process: its own socket, the app built from the environment."""
    if supervised:
        _die_with_parent()
    settings = Settings.from_env()
    config = uvicorn.Config(
        "slotstream.sidecar.app:app_from_env",
        factory=True,
        loop="uvloop",
        # httptools, with a deadline on request headers and a cap on connections
        http=protocol_class(settings.sidecar_header_timeout, settings.sidecar_max_connections),
        log_level="warning",
        access_log=False,
        timeout_graceful_shutdown=GRACEFUL_SECONDS,
    )
    uvicorn.Server(config).run(sockets=[listening_socket(host, port)])


def _port_taken(host: str, port: int) -> str | None:
    """Why the port cannot be served, or None. Bound with SO_REUSEPORT but never listening, the
    probe joins no accept group; it only fails where something else holds the port."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        try:
            probe.bind((host, port))
        except OSError as err:
            return str(err)
    return None


def serve(settings: Settings) -> None:
    """Run until SIGTERM or SIGINT. The server processes read their settings from the environment."""
    os.environ.update(settings.to_env())
    host, port, count = settings.sidecar_host, settings.sidecar_port, settings.sidecar_workers
    taken = _port_taken(host, port)
    if taken:
        raise SidecarError("port_in_use", f"cannot listen on {host}:{port}: {taken}")
    if count == 1:
        serve_one(host, port)
        return
    made = None
    if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        # request metrics are summed over the processes (prometheus_client multiprocess mode)
        made = os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="slotstream-metrics-")
    try:
        _supervise(host, port, count)
    finally:
        if made is not None:  # the folder this process made goes with it
            shutil.rmtree(made, ignore_errors=True)


def _supervise(host: str, port: int, count: int) -> None:
    context = multiprocessing.get_context("spawn")
    stopping = False

    def stop(signum: int, frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGINT)}

    def start() -> tuple[BaseProcess, float]:
        proc = context.Process(target=serve_one, args=(host, port, True), name="slotstream-sidecar", daemon=False)
        proc.start()
        return proc, time.monotonic()

    running = [start() for _ in range(count)]
    try:
        while not stopping:
            time.sleep(0.2)
            for index, (proc, since) in enumerate(running):
                if proc.is_alive() or stopping:
                    continue
                if time.monotonic() - since < STARTED_AFTER:
                    raise SidecarError("server_failed", f"a server process exited at start (code {proc.exitcode})")
                log.error("sidecar server process %s exited with %s; starting another", proc.pid, proc.exitcode)
                _forget_metrics(proc.pid)
                running[index] = start()
    finally:
        for proc, _ in running:
            if proc.is_alive() and proc.pid is not None:
                os.kill(proc.pid, signal.SIGTERM)
        deadline = time.monotonic() + GRACEFUL_SECONDS + 5
        for proc, _ in running:
            proc.join(max(0.1, deadline - time.monotonic()))
            if proc.is_alive():
                proc.kill()
                proc.join(5)
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _die_with_parent() -> None:
    """A server process whose supervisor was killed outright stops too (Linux: PR_SET_PDEATHSIG),
    rather than keep serving a port nobody manages."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGTERM)
    except (OSError, AttributeError):  # not Linux: the supervisor's SIGTERM is the only stop
        pass
    if os.getppid() == 1:  # the supervisor died before the line above
        os.kill(os.getpid(), signal.SIGTERM)


def _forget_metrics(pid: int | None) -> None:
    if pid is not None and os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(pid)
