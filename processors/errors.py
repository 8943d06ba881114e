"""Errors of the processors."""

from __future__ import annotations

from slotstream.memory.errors import SlotstreamError


class ProcessorError(SlotstreamError):
    """Something about processing a batch."""


class InjectedFault(ProcessorError):
    """Raised for messages named by the fault-injection setting (fault tests only)."""


class BadMessage(ProcessorError, ValueError):
    """A message refused with a reason code (it becomes a dead letter)."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(reason, detail)
        self.reason, self.detail = reason, detail
