"""Every error a caller of slotstream may catch, from one place: the root (`SlotstreamError`) and
each package's own (the packages define them in their `errors` modules)."""

from __future__ import annotations

from slotstream.config.errors import SettingsError
from slotstream.local.errors import BarrierTimeout, LocalServerError, WorkersGone
from slotstream.memory.errors import Rejected, SlotstreamError

__all__ = ["BarrierTimeout", "LocalServerError", "Rejected", "SettingsError", "SlotstreamError", "WorkersGone"]
