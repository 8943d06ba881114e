"""What the Kafka runtime needs from the processors it runs: interfaces, no implementations."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from .messages import BatchOutput, Keyed, RawMessage


class BatchProcessor(Protocol):
    """One source topic's processing. Its methods block (they talk to Redis) and run on the
    runtime's worker thread, one batch at a time."""

    processor: str  # a name for logs: "extraction", "reconciliation"
    source_topic: str

    def process(self, batch: list[RawMessage]) -> BatchOutput:
        """Handle every message: applied or dead-lettered. Raises StopWorker or RestartWorker when
        the state it would write on is gone or behind, Stopping when told to stop while waiting."""
        ...

    def record(self, batch: list[RawMessage], out: BatchOutput) -> None:
        """Record the batch's position, once everything `process` gave back was delivered."""
        ...

    def positions(self, partitions: list[int]) -> Mapping[int, int]:
        """Where to resume these newly assigned partitions (the recorded positions)."""
        ...

    def check(self) -> None:
        """Raise StopWorker or RestartWorker when the recorded state is gone or behind."""
        ...

    def stop(self) -> None:
        """Give up any wait for a dependency (the worker is shutting down)."""
        ...


class Sweep(Protocol):
    def __call__(self, partitions: list[int]) -> list[Keyed]:
        """Ops (key, value) due on these ops partitions, to produce to the ops topic."""
        ...


class PayloadSealer(Protocol):
    """Seals payloads with their users' keys (state.user_keys.Sealer is the implementation)."""

    def seal_many(
        self, items: list[tuple[str, str, bytes, bytes]], now_ms: int
    ) -> tuple[list[bytes], list[tuple[bytes, bytes | None]]]:
        """(tenant, user, record key, plaintext) items -> sealed values, and the keys-topic records
        of the user keys created for them (to produce first)."""
        ...
