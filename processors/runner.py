"""Running a processor's batches so that no message is ever lost, whatever fails.

Three kinds of failure, three answers:
- a message that breaks a rule is refused by the processor itself (a dead letter with its reason);
- an unexpected error while handling a batch is narrowed down message by message: the message
  that fails goes to the dead-letter topic (`internal_error`, with the error's class) and every
  other message of the batch is handled as usual;
- an outage of Redis or Kafka is waited out: the same work is retried with backoff, for as long
  as it takes, and the batch's position is recorded only once all of it landed.

Handlers must be safe to run again on the same messages: the engine's op ledger makes a re-applied
op a duplicate, extraction is pure, and the expiry index writes are idempotent.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TypeVar

import redis.exceptions

from slotstream.memory.errors import Reason
from slotstream.state.deployment import DeployGate
from slotstream.state.errors import MasterKeyMismatch, NamespaceMoved, StateLost, StateRewound
from slotstream.state.progress import Progress, state_lost_message
from slotstream.streams.errors import RestartWorker, Stopping, StopWorker

from .errors import InjectedFault
from .messages import BatchOutput, RawMessage, refuse

log = logging.getLogger("slotstream.worker.wiring")

Handler = Callable[[list[RawMessage]], BatchOutput]

# Redis replies that mean "not now" rather than "never": a server loading its data, a replica
# promoted, a cluster slot moving, memory full until something is freed.
_TRANSIENT_REPLIES = ("LOADING", "READONLY", "MASTERDOWN", "CLUSTERDOWN", "TRYAGAIN", "OOM", "BUSY")


class _Failed(Exception):
    def __init__(self, error: BaseException) -> None:
        super().__init__(str(error))
        self.error = error


def waits_for(err: BaseException) -> str | None:
    """The dependency a failure says is unavailable ("Redis", "Kafka"), or None when the failure
    is not a transient outage."""
    if isinstance(err, (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)):
        return "Redis"
    # a Redis Cluster with a master down or a slot not served yet: "The cluster is down" comes
    # without the CLUSTERDOWN reply word the check below reads; a slot moving between masters
    # (TRYAGAIN, or a redirection the client's own hops did not settle: ASK, MOVED)
    cluster_outages = (
        redis.exceptions.ClusterError,
        redis.exceptions.TryAgainError,
        redis.exceptions.AskError,
        redis.exceptions.RedisClusterException,
    )
    if isinstance(err, cluster_outages):
        return "Redis"
    if isinstance(err, redis.exceptions.ResponseError) and str(err).split(" ", 1)[0] in _TRANSIENT_REPLIES:
        return "Redis"
    module = type(err).__module__
    if module.startswith(("aiokafka", "kafka")) or type(err).__name__ in ("KafkaTimeoutError", "ProducerSendError"):
        return "Kafka"
    if isinstance(err, (ConnectionError, TimeoutError)):
        return "the network"
    return None


class Backoff:
    """Waits that double from `first` up to `cap` seconds; `wait` raises Stopping when `stop` is set."""

    def __init__(self, stop: threading.Event, what: str, first: float = 0.05, cap: float = 5.0) -> None:
        self.stop, self.what = stop, what
        self.first, self.cap = first, cap
        self.attempt = 0
        self.started: float | None = None

    def wait(self, err: BaseException, dependency: str) -> None:
        if self.started is None:
            self.started = time.monotonic()
        delay = min(self.cap, self.first * (2**self.attempt))
        self.attempt += 1
        log.warning(
            "%s: waiting for %s (%s: %s); retry %d in %.2f s",
            self.what,
            dependency,
            type(err).__name__,
            str(err)[:200],
            self.attempt,
            delay,
        )
        if self.stop.wait(delay):
            raise Stopping(f"{self.what}: stopped while waiting for {dependency}")

    def succeeded(self) -> None:
        if self.started is not None:
            log.warning("%s: resumed after %.1f s", self.what, time.monotonic() - self.started)
        self.attempt, self.started = 0, None


T = TypeVar("T")
EXIT_STATE_LOST = 3
EXIT_MASTER_KEY = 4


def retry(fn: Callable[[], T], stop: threading.Event, what: str) -> T:
    """Call `fn` until it returns, waiting out transient outages; other errors propagate."""
    backoff = Backoff(stop, what)
    while True:
        try:
            result = fn()
        except (StateLost, StateRewound, NamespaceMoved, MasterKeyMismatch, Stopping):
            raise
        except Exception as err:
            dependency = waits_for(err)
            if dependency is None:
                raise
            backoff.wait(err, dependency)
            continue
        backoff.succeeded()
        return result


@contextmanager
def _worker_signals() -> Iterator[None]:
    """State that is gone or behind is the worker's business: stop it, or restart it."""
    try:
        yield
    except StateLost as lost:
        raise StopWorker(str(lost), EXIT_STATE_LOST) from lost
    except StateRewound as rewound:
        raise RestartWorker(str(rewound)) from rewound
    except NamespaceMoved as moved:
        raise RestartWorker(str(moved)) from moved
    except MasterKeyMismatch as mismatch:
        raise StopWorker(str(mismatch), EXIT_MASTER_KEY) from mismatch


def with_faults(handle: Handler, markers: Sequence[str]) -> Handler:
    """Fault tests only: a batch holding a message whose (opened) payload contains one of
    `markers` fails inside the handler, as a bug would."""
    encoded = [m.encode() for m in markers if m]
    if not encoded:
        return handle

    def faulty(batch: list[RawMessage]) -> BatchOutput:
        for msg in batch:
            if any(marker in (msg.value or b"") for marker in encoded):
                raise InjectedFault(f"injected fault at {msg.source_id}")
        return handle(batch)

    return faulty


class BatchRunner:
    """One processor's batches: handled with isolation and retries, then their position recorded.
    The `BatchProcessor` a Kafka runtime runs."""

    def __init__(
        self,
        processor: str,
        handle: Handler,
        progress: Progress,
        source_topic: str,
        stop: threading.Event | None = None,
        gate: DeployGate | None = None,
        after_delivery: Callable[[BatchOutput], None] | None = None,
        skip_applied: bool = False,
    ) -> None:
        """`gate`: a live processor's part in `slotstream promote` (replays run without one).
        `after_delivery`: what must wait until a batch's records were delivered (deleting erased
        users' keys once their tombstones are on the keys topic); idempotent, retried.
        `skip_applied`: leave out a batch's messages below their partition's recorded position
        (another path applied them already: a fused apply, a previous owner of the partition)."""
        self.processor = processor
        self.gate = gate
        self.after_delivery = after_delivery
        self.skip_applied = skip_applied
        self.handle = handle
        self.progress = progress
        self.source_topic = source_topic
        self._stop = stop or threading.Event()
        self.internal_errors = 0
        # partition -> the position this worker last recorded (or resumed from): Redis holding
        # less means it lost acknowledged writes
        self.recorded: dict[int, int] = {}

    def stop(self) -> None:
        self._stop.set()
        if self.gate is not None:
            self.gate.leave()

    def positions(self, partitions: list[int]) -> Mapping[int, int]:
        """The recorded positions of newly assigned partitions; from now on, what this worker
        expects Redis to hold at least."""
        with _worker_signals():
            held = retry(
                lambda: self.progress.positions(self.source_topic, partitions), self._stop, f"{self.processor} resuming"
            )
        self.recorded = dict(held)
        return held

    def regressed(self) -> dict[int, tuple[int, int]]:
        return self.progress.regressed(self.source_topic, self.recorded)

    def check(self) -> None:
        """An idle worker learns of lost state, lost writes or a promote too (called once a second)."""
        with _worker_signals():
            try:
                if self.gate is not None:
                    self.gate.heartbeat()
                behind = self.regressed()
            except (StateLost, StateRewound, NamespaceMoved):
                raise
            except Exception as err:
                if waits_for(err) is None:
                    raise
                return
            if behind:
                raise StateRewound(self._behind_message(behind))

    def _behind_message(self, behind: dict[int, tuple[int, int]]) -> str:
        return (
            f"{self.source_topic}: Redis holds positions below those this worker recorded "
            f"(partition: (recorded, held)) {behind}: its last writes were lost"
        )

    def process(self, batch: list[RawMessage]) -> BatchOutput:
        """Every message of the batch handled or dead-lettered; never raises for one message."""
        try:
            return self._process(batch)
        except BaseException:
            if self.gate is not None:  # the batch is over without a position: not in flight any more
                self.gate.leave()
            raise

    def _process(self, batch: list[RawMessage]) -> BatchOutput:
        with _worker_signals():
            gate = self.gate
            if gate is not None and not retry(gate.enter, self._stop, f"{self.processor} deployment"):
                raise Stopping(f"{self.processor}: stopped while a promote paused it")
            return self._isolated(batch)

    def apply_produced(self, produced: list[RawMessage]) -> tuple[list[RawMessage], BatchOutput]:
        """Fused apply: of ops this worker just produced (offsets as acknowledged), those next in
        line on their partition — an unbroken run starting at the partition's recorded position,
        so every earlier op of the partition is applied — are applied now, exactly as the ops
        consumer would apply them; the others (behind an op from another producer, or already
        applied) are left to the ops consumer. No promote gate: the extraction batch that
        produced them is in flight, and a promote waits for it."""
        with _worker_signals():
            partitions = {msg.partition for msg in produced}
            held = retry(lambda: self._held(partitions), self._stop, f"{self.processor} (fused apply)")
            self._raise_if_behind(held)
            next_in_line = dict(held)
            run: list[RawMessage] = []
            for msg in sorted(produced, key=lambda m: (m.partition, m.offset)):
                if msg.topic == self.source_topic and msg.offset == next_in_line.get(msg.partition, 0):
                    run.append(msg)
                    next_in_line[msg.partition] = msg.offset + 1
            if not run:
                return [], BatchOutput()
            out = self._isolated(run, held)
            out.count("fused_apply:applied", len(run))
            return run, out

    def _isolated(self, batch: list[RawMessage], held: dict[int, int] | None = None) -> BatchOutput:
        try:
            return self._attempt(batch, held)
        except _Failed as failed:
            if len(batch) == 1:
                return self._dead(batch[0], failed.error)
        out = BatchOutput()
        for msg in batch:  # narrow the failure down to the message(s) that cause it
            try:
                out.merge(self._attempt([msg]))
            except _Failed as failed:
                out.merge(self._dead(msg, failed.error))
        return out

    def _held(self, partitions: set[int]) -> dict[int, int]:
        """Where Redis says each partition stands (0: nothing recorded), for `partitions` and every
        partition this worker recorded, in one round trip."""
        wanted = sorted(partitions | set(self.recorded))
        pipe = self.progress.r.pipeline(transaction=False)
        pipe.exists(self.progress.keys.marker())
        pipe.hmget(self.progress.keys.progress(self.source_topic), [str(p) for p in wanted])
        exists, raw = pipe.execute()
        if not exists and self.recorded:
            raise StateLost(
                state_lost_message(self.progress.ns, f"this worker had recorded positions of {self.source_topic}")
            )
        return {p: int(v) if v is not None else 0 for p, v in zip(wanted, raw, strict=True)}

    def _raise_if_behind(self, held: dict[int, int]) -> None:
        behind = {p: (mine, held.get(p, 0)) for p, mine in self.recorded.items() if held.get(p, 0) < mine}
        if behind:
            raise StateRewound(self._behind_message(behind))

    def _checked(self, batch: list[RawMessage], held: dict[int, int] | None = None) -> BatchOutput:
        # Before writing, Redis must still hold what this worker recorded: applying a batch on top
        # of a state that lost its last writes would apply it out of order. (A Redis restart
        # between this check and the writes breaks the connection, and the retry checks again.)
        if held is None and (self.skip_applied or self.recorded):
            held = self._held({msg.partition for msg in batch})
        if held is not None:
            self._raise_if_behind(held)
            if self.skip_applied:
                fresh = [m for m in batch if m.topic != self.source_topic or m.offset >= held.get(m.partition, 0)]
                if len(fresh) < len(batch):
                    out = self.handle(fresh) if fresh else BatchOutput()
                    out.count(f"skipped_applied:{self.processor}", len(batch) - len(fresh))
                    return out
        return self.handle(batch)

    def _attempt(self, batch: list[RawMessage], held: dict[int, int] | None = None) -> BatchOutput:
        known = [held]  # the positions just read serve the first try; a retry reads them again

        def attempt() -> BatchOutput:
            positions, known[0] = known[0], None
            return self._checked(batch, positions)

        try:
            return retry(attempt, self._stop, self.processor)
        except (StateLost, StateRewound, NamespaceMoved, MasterKeyMismatch, Stopping):
            raise
        except Exception as err:
            raise _Failed(err) from err

    def _dead(self, msg: RawMessage, err: BaseException) -> BatchOutput:
        error = type(err).__name__
        self.internal_errors += 1
        log.error("%s: %s failed with %s; sent to the dead-letter topic", self.processor, msg.source_id, error)
        out = BatchOutput()
        refuse(
            out, msg, Reason.INTERNAL_ERROR.value, f"{error} while handling the message", self.processor, error=error
        )
        return out

    def record(self, batch: list[RawMessage], out: BatchOutput) -> None:
        """The batch's position (and event-time watermarks), once everything it yields was delivered."""
        self._record(batch, out)
        if self.gate is not None:
            self.gate.leave()

    def record_produced(self, applied: list[RawMessage], out: BatchOutput) -> None:
        """A fused apply's position: like `record`, outside the promote gate (see apply_produced)."""
        self._record(applied, out)

    def _record(self, batch: list[RawMessage], out: BatchOutput) -> None:
        next_offsets: dict[int, int] = {}
        for msg in batch:
            next_offsets[msg.partition] = max(next_offsets.get(msg.partition, 0), msg.offset + 1)
        previous = {p: self.recorded[p] for p in next_offsets if p in self.recorded}
        after = self.after_delivery
        if after is not None:
            retry(lambda: after(out), self._stop, f"{self.processor} after delivery")
        with _worker_signals():
            retry(
                lambda: self.progress.advance(self.source_topic, next_offsets, out.watermark, previous, out.counts),
                self._stop,
                f"{self.processor} position",
            )
        # replaced whole, never mutated: the position watch reads it from another thread
        self.recorded = {**self.recorded, **{p: max(self.recorded.get(p, 0), o) for p, o in next_offsets.items()}}
