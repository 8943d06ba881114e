"""Errors of the state layer."""

from __future__ import annotations

from slotstream.memory.errors import SlotstreamError


class StateError(SlotstreamError):
    """Something about the state held in Redis."""


class StateLost(StateError):
    """The namespace in Redis lost its state while Kafka says work was done there."""


class StateRewound(StateError):
    """Redis holds less than this worker recorded (its last writes were lost): the worker must
    re-read from the positions Redis holds."""


class ConcurrentUpdate(StateError):
    """A user's state kept changing under the engine between its load and its write."""


class NamespaceMoved(StateError):
    """`slotstream promote` switched the deployment to another namespace: a worker writing to the
    old one must restart and resolve the new one."""


class MasterKeyMismatch(StateError):
    """A user key does not unwrap with this process's master key: the deployment's processes were
    given different master keys. Nothing can be opened; the worker stops instead of dead-lettering."""
