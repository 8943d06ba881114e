"""The root of every error slotstream raises, and the reason codes every rejection or drop carries
(on the wire and in the dead-letter topic).

Each package has its own errors module under `SlotstreamError`: `state.errors`, `streams.errors`,
`processors.errors` and, for the command and local servers, `slotstream.errors`.
"""

from __future__ import annotations

from enum import StrEnum


class Reason(StrEnum):
    # input validation (the op is rejected, nothing changes)
    MISSING_TENANT = "missing_tenant"
    MISSING_USER = "missing_user"
    INVALID_ID = "invalid_id"
    UNKNOWN_KIND = "unknown_kind"
    INVALID_SCOPE = "invalid_scope"
    SCOPE_MISSING_ID = "scope_missing_id"
    CONFIDENCE_OUT_OF_RANGE = "confidence_out_of_range"
    VALUE_OUT_OF_RANGE = "value_out_of_range"
    VALIDITY_INVERTED = "validity_inverted"
    FACT_WITHOUT_SOURCE = "fact_without_source"
    FACT_WITHOUT_VALIDITY = "fact_without_validity"
    SOURCE_NOT_AUTHORIZED = "source_not_authorized"
    ASSISTANT_NOT_EVIDENCE = "assistant_not_evidence"
    SECRET_VALUE = "secret_value"
    SESSION_CONTEXT_NOT_IN_SESSION = "session_context_not_in_session"
    MISSING_FIELD = "missing_field"
    INVALID_FIELD = "invalid_field"
    INVALID_JSON = "invalid_json"
    UNKNOWN_COMMAND = "unknown_command"
    TARGET_NOT_FOUND = "target_not_found"
    TARGET_NOT_PENDING = "target_not_pending"
    TENANT_MISMATCH = "tenant_mismatch"
    INVALID_ATTRIBUTE = "invalid_attribute"
    TIME_OUT_OF_RANGE = "time_out_of_range"
    EVENT_TIME_IN_FUTURE = "event_time_in_future"
    TOO_LARGE = "too_large"
    TOO_DEEP = "too_deep"
    TOO_MANY_OPS = "too_many_ops"
    # an inferred (not stated) item of a special category: never stored, so never leaked
    SPECIAL_CATEGORY_INFERRED = "special_category_inferred"
    INVALID_DEPENDENCY = "invalid_dependency"
    # a move into a scope whose slot already holds a live value
    SCOPE_OCCUPIED = "scope_occupied"
    # a sealed payload whose user key was erased (crypto-shredded): its content is gone for good
    KEY_SHREDDED = "key_shredded"
    SEALED_INVALID = "sealed_invalid"  # a sealed payload that is malformed or does not open
    # a message no rule refused but processing failed on: kept in the dead-letter topic with the
    # error's class, so one bad message never holds up or takes down the rest of its batch
    INTERNAL_ERROR = "internal_error"
    # an op the ledger no longer knows, from before the newest event time it forgot (the ledger
    # window): it could be a redelivery of one applied then, so it is never applied
    BEYOND_LEDGER_WINDOW = "beyond_ledger_window"
    # reconciliation outcomes that drop an otherwise valid op
    SUPPRESSED = "suppressed"
    USER_ERASED = "user_erased"
    NOT_DUE = "not_due"


class SlotstreamError(Exception):
    """The root: `except SlotstreamError` catches whatever slotstream raised on purpose."""


class Rejected(SlotstreamError, ValueError):
    """Raised for input that must not change state; carries a machine-readable reason."""

    def __init__(self, reason: Reason, detail: str = "") -> None:
        self.reason = Reason(reason)
        self.detail = detail
        super().__init__(f"{self.reason.value}: {detail}" if detail else self.reason.value)


class ModelUnavailable(SlotstreamError, RuntimeError):
    """The embedded model or the dictionary it reads Chinese through is not installed (it is never
    downloaded: the package that ships it must be)."""


class ArchiveError(SlotstreamError):
    """The history archive (state/archive.py; on Kafka, streams/history_archive.py) could not be
    written or read."""


class ArchiveUnavailable(ArchiveError):
    """The archive did not answer (a broker outage): a retry later may succeed."""


class SegmentUnreadable(ArchiveError):
    """A stored segment of the archive is not one, is gone, or its user's key was erased."""
