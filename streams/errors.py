"""Errors of the Kafka layer: how the processors ask the worker running them to stop or restart."""

from __future__ import annotations

from slotstream.memory.errors import SlotstreamError


class StreamsError(SlotstreamError):
    """Something about moving messages."""


class StopWorker(StreamsError):
    """The worker must stop at once, committing nothing more, and exit with `exit_code`."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class RestartWorker(StreamsError):
    """The worker must start afresh and resume every partition at its recorded position."""


class Stopping(StreamsError):
    """The worker is shutting down while a batch waited for a dependency: nothing was recorded,
    so its messages are read again by whoever owns the partition next."""


class BrokerUnavailable(StreamsError):
    """Kafka did not take a record in time (or is not connected yet): nothing is known to be
    written, so the caller may send it again (ids make the retry harmless)."""


class TimelineUnwritable(StreamsError, ValueError):
    """SLOTSTREAM_BATCH_TIMELINE names a file the worker cannot append to (found at start, so a
    mistyped folder is an error with its reason, not a traceback; the command reports it as it
    reports a setting's bad value)."""
