"""Errors of the command, the settings and the local servers; and the root, for callers."""

from __future__ import annotations

from slotstream.memory.errors import Rejected, SlotstreamError

__all__ = ["BarrierTimeout", "LocalServerError", "Rejected", "SettingsError", "SlotstreamError", "WorkersGone"]


class SettingsError(SlotstreamError, ValueError):
    """A SLOTSTREAM_* variable has a value its setting does not take (the message names it)."""


class LocalServerError(SlotstreamError, RuntimeError):
    """An embedded Redis or the local Kafka broker could not be fetched or started."""


class BarrierTimeout(SlotstreamError, TimeoutError):
    """What was produced did not reach Redis in time."""


class WorkersGone(SlotstreamError, RuntimeError):
    """Every worker process of a local stack has exited."""
