"""Errors of the sidecar, each with the HTTP status it answers with."""

from __future__ import annotations

from slotstream.memory.errors import SlotstreamError


class SidecarError(SlotstreamError):
    status = 400
    retry_after = 0.0  # above zero: answered with Retry-After

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason, self.detail = reason, detail


class Unauthorized(SidecarError):
    status = 401


class Forbidden(SidecarError):
    status = 403


class NotFound(SidecarError):
    status = 404


class Conflict(SidecarError):
    """A control on a record whose state it does not apply to (not waiting, a fact)."""

    status = 409


class TooLarge(SidecarError):
    status = 413


class UnsupportedMediaType(SidecarError):
    status = 415


class Unavailable(SidecarError):
    """Redis or Kafka did not answer: nothing was changed, the same request may be sent again."""

    status = 503
    retry_after = 1.0


class RateLimited(SidecarError):
    status = 429

    def __init__(
        self, retry_after: float, reason: str = "rate_limited", what: str = "this tenant's request rate"
    ) -> None:
        super().__init__(reason, f"over {what}; retry after {retry_after:.2f} s")
        self.retry_after = retry_after
