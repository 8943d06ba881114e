"""What the Kafka runtime needs from the processors it runs: interfaces, no implementations."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Protocol, runtime_checkable

from ..messages import BatchOutput, Keyed, RawMessage


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


@runtime_checkable
class AppliesProduced(Protocol):
    """An ops processor that also applies ops its own worker just produced (fused apply): a
    runtime hands it the ops it delivered, with the offsets the broker acknowledged, instead of
    waiting for the ops consumer to read them back."""

    def apply_produced(self, produced: list[RawMessage]) -> tuple[list[RawMessage], BatchOutput]:
        """Apply the produced ops that are next in line on their partition (an unbroken run from
        the partition's recorded position); the rest are left to the ops consumer. Returns the
        ops applied and what to produce for them. Never waits for a promote: the batch that
        produced them holds the extraction's place in it."""
        ...

    def record_produced(self, applied: list[RawMessage], out: BatchOutput) -> None:
        """Record the applied ops' positions, once everything `apply_produced` gave back was delivered."""
        ...


class Sweep(Protocol):
    def __call__(self, partitions: list[int]) -> list[Keyed]:
        """Ops (key, value) due on these ops partitions, to produce to the ops topic."""
        ...


class PayloadKeys(Protocol):
    """Users' keys to open payloads with (state.user_keys.UserKeys is the implementation)."""

    def keys_of(self, users: Iterable[tuple[str, str]]) -> dict[tuple[str, str], dict[str, bytes]]:
        """Every key each user holds (key id -> key); {} for a user with none (erased)."""
        ...


class PayloadSealer(Protocol):
    """Seals payloads with their users' keys (state.user_keys.Sealer is the implementation)."""

    def seal_many(
        self, items: list[tuple[str, str, bytes, bytes]], now_ms: int
    ) -> tuple[list[bytes], list[tuple[bytes, bytes | None]]]:
        """(tenant, user, record key, plaintext) items -> sealed values, and the keys-topic records
        of the user keys created for them (to produce first)."""
        ...
