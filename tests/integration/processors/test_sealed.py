"""The sealed edge of a processor on a real Redis: what a batch makes of a user's sealed input is
sealed with the key that input was opened with, and with no other: a user erased while the batch
was handled gets no new key, and nothing of what they said before the erasure opens again."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import redis

from slotstream.memory.sealing import key_id, new_key
from slotstream.processors.messages import BatchOutput, RawMessage
from slotstream.processors.sealed import Sealed
from slotstream.state.keys import user_data_keys
from slotstream.state.user_keys import Sealer, UserKeys

pytestmark = pytest.mark.integration


@pytest.fixture
def tenant(keys_tenant: str) -> str:
    return keys_tenant


def sealed_turn(keys: UserKeys, tenant: str, user: str, offset: int) -> RawMessage:
    record_key = f"{tenant}/{user}".encode()
    (value,), _ = Sealer(keys).seal_many([(tenant, user, record_key, b'{"text": "I live in Oslo"}')], 1000)
    return RawMessage("turns", 0, offset, record_key, value)


def extraction(during: Callable[[], None]) -> Callable[[list[RawMessage]], BatchOutput]:
    """A handler that makes one op of each input, after running `during` (what happens elsewhere
    while the batch is handled)."""

    def handle(batch: list[RawMessage]) -> BatchOutput:
        during()
        out = BatchOutput()
        out.ops = [(msg.key or b"", b'{"record": {"value": "Oslo"}}') for msg in batch]
        return out

    return handle


def test_ops_are_sealed_with_the_key_their_input_was_opened_with(redis_client: redis.Redis, tenant: str) -> None:
    keys = UserKeys(redis_client, new_key())
    turn = sealed_turn(keys, tenant, "stays", 0)
    assert turn.value is not None
    out = Sealed(extraction(lambda: None), keys, "extraction", seal_ops=True)([turn])
    ((_, op),) = out.ops
    assert key_id(op) == key_id(turn.value) and out.keys == []
    assert "sealing:erased_meanwhile" not in out.counts


def test_a_user_erased_while_the_batch_was_handled_gets_no_new_key_and_no_sealed_op(
    redis_client: redis.Redis, tenant: str
) -> None:
    keys = UserKeys(redis_client, new_key())
    leaving = sealed_turn(keys, tenant, "leaver", 0)
    staying = sealed_turn(keys, tenant, "stays", 1)
    plain = RawMessage("turns", 0, 2, f"{tenant}/newcomer".encode(), b'{"text": "hello"}')

    def erase() -> None:  # the erasure, applied by another worker meanwhile, shreds the user's keys
        keys.drop(tenant, "leaver", keys.created_before(tenant, "leaver", 10**13))

    out = Sealed(extraction(erase), keys, "extraction", seal_ops=True)([leaving, staying, plain])
    assert [key for key, _ in out.ops] == [staying.key, plain.key]
    assert out.counts["sealing:erased_meanwhile"] == 1
    assert not redis_client.exists(user_data_keys(tenant, "leaver"))  # no key created after the erasure
    # a user whose input was not sealed gets a key as before
    assert [record_key.split(b"/")[1] for record_key, _ in out.keys] == [b"newcomer"]
