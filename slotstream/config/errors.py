"""Errors of the settings."""

from __future__ import annotations

from slotstream.memory.errors import SlotstreamError


class SettingsError(SlotstreamError, ValueError):
    """A SLOTSTREAM_* variable has a value its setting does not take (the message names it)."""
