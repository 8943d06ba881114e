"""Sealed payloads at the processors' edge: a batch's sealed inputs are opened with their users'
keys before the handler sees them, and the ops the handler produces are sealed again before they
reach the ops topic. A payload whose key was erased is a dead letter `key_shredded` (its content
is gone for good); dead letters of opened payloads carry no excerpt."""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable

from slotstream.memory.errors import Reason
from slotstream.memory.key_parts import MalformedKey, unescape
from slotstream.memory.sealing import SealError, is_sealed, key_id, open_sealed
from slotstream.state.user_keys import Sealer, User, UserKeys

from .messages import BatchOutput, RawMessage, refuse

Handler = Callable[[list[RawMessage]], BatchOutput]
log = logging.getLogger(__name__)


def owner(key: bytes | None) -> User | None:
    """The (tenant, user) a record key names (b"tenant/user", or b"tenant/user/..." on the
    compacted topics, each part escaped: memory/key_parts.py); None when it names none."""
    if not key:
        return None
    parts = key.decode("utf-8", errors="replace").split("/")
    if len(parts) < 2:
        return None
    try:
        tenant, user = unescape(parts[0]), unescape(parts[1])
    except MalformedKey:
        return None
    return (tenant, user) if tenant and user else None


class Sealed:
    def __init__(self, handle: Handler, keys: UserKeys, processor: str, seal_ops: bool = False) -> None:
        self.handle = handle
        self.keys = keys
        self.processor = processor
        self.sealer = Sealer(keys) if seal_ops else None

    def __call__(self, batch: list[RawMessage]) -> BatchOutput:
        out = BatchOutput()
        sealed_owners = {o for m in batch if is_sealed(m.value) and (o := owner(m.key)) is not None}
        held = self.keys.keys_of(sealed_owners) if sealed_owners else {}
        opened: list[RawMessage] = []
        opened_with: dict[User, dict[str, bytes]] = {}  # per user, the keys (id -> key) its input was opened with
        for msg in batch:
            if not is_sealed(msg.value):
                opened.append(msg)
                continue
            opened_msg = self._open(msg, held, out, opened_with)
            if opened_msg is not None:
                opened.append(opened_msg)
        inner = self.handle(opened)
        if self.sealer is not None and (inner.ops or inner.control_private):
            self._seal_ops(inner, opened_with)
        out.merge(inner)
        return out

    def _open(
        self,
        msg: RawMessage,
        held: dict[User, dict[str, bytes]],
        out: BatchOutput,
        opened_with: dict[User, dict[str, bytes]],
    ) -> RawMessage | None:
        who = owner(msg.key)
        assert msg.value is not None
        try:
            kid = key_id(msg.value)
            if who is None:
                raise SealError("a sealed payload needs a tenant/user record key")
            key = held.get(who, {}).get(kid)
            if key is None:
                refuse(
                    out, msg, Reason.KEY_SHREDDED.value, "the user's key for this payload was erased", self.processor
                )
                return None
            plaintext = open_sealed(key, msg.key or b"", msg.value)
        except SealError as err:
            refuse(out, msg, Reason.SEALED_INVALID.value, str(err), self.processor)
            return None
        opened_with.setdefault(who, {})[kid] = key
        return dataclasses.replace(msg, value=plaintext, sealed=True)

    def _seal_ops(self, out: BatchOutput, opened_with: dict[User, dict[str, bytes]]) -> None:
        """Seal the ops produced (extraction's) and the private control records (a forget names
        what it forgets), each with its user's key: for a user whose input was sealed, the key it
        was opened with. A user erased while the batch was handled has no such key any more: what
        the batch made of their input is dropped, not sealed with a key created after the erasure
        (which would open it again), and counted as `sealing:erased_meanwhile`."""
        assert self.sealer is not None
        items = []
        for key, value in [*out.ops, *out.control_private]:
            who = owner(key)
            assert who is not None and key is not None and value is not None  # keyed by user, never tombstones
            items.append((who[0], who[1], key, value))
        values, created = self.sealer.seal_opened(items, int(time.time() * 1000), opened_with)
        n_ops = len(out.ops)
        dropped = sum(1 for value in values if value is None)
        if dropped:
            log.warning("%s: dropped %d payloads of users erased during their batch", self.processor, dropped)
            out.count("sealing:erased_meanwhile", dropped)
        kept = zip(out.ops, values[:n_ops], strict=True)
        out.ops = [(key, sealed) for (key, _), sealed in kept if sealed is not None]
        out.control += [
            (key, sealed)
            for (key, _), sealed in zip(out.control_private, values[n_ops:], strict=True)
            if sealed is not None
        ]
        out.control_private = []
        out.keys += created
