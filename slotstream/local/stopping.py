"""Stopping the main job on a signal: SIGTERM (systemd, Docker, Kubernetes, `kill`) and SIGINT
stop `slotstream run` the way Ctrl-C does, also when it runs in the background (where the shell
leaves SIGINT ignored) or as PID 1 in a container (where a signal without a handler does nothing):
the sidecar drains, the workers commit what they applied, the embedded servers stop with their
data written out, and temporary folders go."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


class Stopping(KeyboardInterrupt):
    """A stop signal arrived: unwinds the main job like Ctrl-C."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


@contextmanager
def stop_on_signals() -> Iterator[None]:
    """While inside, SIGTERM or SIGINT raises Stopping in the main thread (once: the shutdown that
    follows is not interrupted by a second signal)."""

    def stop(signum: int, frame: FrameType | None) -> None:
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, signal.SIG_IGN)
        raise Stopping(signum)

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
