"""Which namespace a deployment serves, and the live processors' side of switching it.

A deployment is named by its configured namespace (the "base"); a pointer key says which namespace
currently serves it (the base itself until a promote). Readers resolve the pointer on every
request and workers at start, so `slotstream promote` switches them with one write. While a promote
waits for the live processors to stand still, the pointer says "switching": each processor
finishes the batch it holds (its writes and position recorded), reports "paused" in its heartbeat
key, and takes no further batch until the pointer changes again.
"""

from __future__ import annotations

import os
import socket
import threading
from dataclasses import asdict, dataclass

import orjson
import redis

from .errors import NamespaceMoved
from .keys import deploy_pointer, deploy_runner

HEARTBEAT_SECONDS = 5  # a runner that stops refreshing (crashed) is no longer waited for after this
PAUSE_POLL_SECONDS = 0.02


@dataclass(frozen=True)
class Pointer:
    namespace: str
    state: str = "active"  # "active", or "switching" while a promote waits for the processors
    switch: str | None = None  # the promote in progress
    previous: str | None = None  # the namespace served before the last promote

    @property
    def switching(self) -> bool:
        return self.state == "switching"


def parse_pointer(raw: bytes | str | None, base: str) -> Pointer:
    if not raw:
        return Pointer(base)
    data = orjson.loads(raw)
    return Pointer(data["namespace"], data.get("state", "active"), data.get("switch"), data.get("previous"))


def read_pointer(client: redis.Redis, base: str) -> Pointer:
    return parse_pointer(client.get(deploy_pointer(base)), base)


def write_pointer(client: redis.Redis, base: str, pointer: Pointer) -> None:
    client.set(deploy_pointer(base), orjson.dumps(asdict(pointer)))


def active_namespace(client: redis.Redis, base: str) -> str:
    return read_pointer(client, base).namespace


def runner_name(processor: str) -> str:
    return f"{socket.gethostname()}-{os.getpid()}-{processor}"


class DeployGate:
    """One live processor's side of a promote. `enter` before a batch (waits while switching;
    NamespaceMoved once the pointer names another namespace), `leave` once the batch is over,
    `heartbeat` once a second."""

    def __init__(self, client: redis.Redis, base: str, namespace: str, processor: str, stop: threading.Event) -> None:
        self.r, self.base, self.namespace = client, base, namespace
        self.key = deploy_runner(base, runner_name(processor))
        self.stop = stop
        self._lock = threading.Lock()
        self._in_batch = False

    def _mark(self, state: str) -> None:
        self.r.set(self.key, state, ex=HEARTBEAT_SECONDS)

    def _moved(self, pointer: Pointer) -> None:
        if pointer.namespace != self.namespace and not pointer.switching:
            raise NamespaceMoved(f"the deployment {self.base} is now served by {pointer.namespace}")

    def enter(self) -> bool:
        """False when told to stop while paused."""
        while True:
            with self._lock:
                self._in_batch = True
                # one round trip: a runner that takes a batch is known to a promote from then on
                pipe = self.r.pipeline(transaction=False)
                pipe.set(self.key, "running", ex=HEARTBEAT_SECONDS)
                pipe.get(deploy_pointer(self.base))
                pointer = parse_pointer(pipe.execute()[1], self.base)
                if not pointer.switching:
                    self._moved(pointer)
                    return True
                self._in_batch = False
                self._mark(f"paused:{pointer.switch}")
            if self.stop.wait(PAUSE_POLL_SECONDS):
                return False

    def leave(self) -> None:
        """The batch `enter` let through is over (its position recorded, or abandoned). No Redis
        call on this per-batch path: a promote learns of the pause from the next `enter` or the
        next heartbeat, within a second."""
        with self._lock:
            self._in_batch = False

    def heartbeat(self) -> None:
        with self._lock:
            pointer = read_pointer(self.r, self.base)
            if self._in_batch:
                self._mark("running")
                return
            self._moved(pointer)
            self._mark(f"paused:{pointer.switch}" if pointer.switching else "running")

    def close(self) -> None:
        self.r.delete(self.key)
