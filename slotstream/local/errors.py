"""Errors of the local servers and the local stack."""

from __future__ import annotations

from slotstream.memory.errors import SlotstreamError


class LocalServerError(SlotstreamError, RuntimeError):
    """An embedded Redis or the local Kafka broker could not be fetched or started."""


class BarrierTimeout(SlotstreamError, TimeoutError):
    """What was produced did not reach Redis in time."""


class WorkersGone(SlotstreamError, RuntimeError):
    """Every worker process of a local stack has exited."""
