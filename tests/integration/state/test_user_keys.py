"""Users' data keys in a real Redis: one current key per user however many producers ask at once,
erasure deletes the keys created before it, a restore from the keys topic's records puts back what
Redis lost and never what was erased."""

from __future__ import annotations

import threading

import pytest
import redis

from slotstream.memory.sealing import new_key, open_sealed
from slotstream.state.errors import MasterKeyMismatch
from slotstream.state.keys import user_data_keys
from slotstream.state.user_keys import Sealer, UserKeys, record_key

pytestmark = pytest.mark.integration


@pytest.fixture
def tenant(keys_tenant: str) -> str:
    return keys_tenant


def test_concurrent_first_payloads_share_one_key(redis_client: redis.Redis, tenant: str) -> None:
    keys = UserKeys(redis_client, new_key())
    got: list[tuple[str, bytes]] = []

    def ask() -> None:
        kid, key, _ = keys.current(tenant, "u", 1000)
        got.append((kid, key))

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(got)) == 1
    assert keys.keys_of([(tenant, "u")]) == {(tenant, "u"): {got[0][0]: got[0][1]}}


def test_erasure_drops_the_keys_created_before_it_and_a_later_payload_gets_a_new_one(
    redis_client: redis.Redis, tenant: str
) -> None:
    keys = UserKeys(redis_client, new_key())
    old, _, created = keys.current(tenant, "u", 1000)
    assert created == (record_key(tenant, "u", old), redis_client.hget(user_data_keys(tenant, "u"), old))
    assert keys.created_before(tenant, "u", 999) == []
    doomed = keys.created_before(tenant, "u", 2000)
    keys.drop(tenant, "u", doomed)
    assert keys.keys_of([(tenant, "u")]) == {(tenant, "u"): {}}
    new, _, _ = keys.current(tenant, "u", 3000)
    assert new != old and keys.created_before(tenant, "u", 2000) == []


def test_restore_puts_back_lost_keys_and_honours_tombstones(redis_client: redis.Redis, tenant: str) -> None:
    master = new_key()
    keys = UserKeys(redis_client, master)
    records = []
    for user in ("kept", "erased"):
        _, _, created = keys.current(tenant, user, 1000)
        assert created is not None
        records.append(created)
    records.append((records[1][0], None))  # the erasure's tombstone
    # not records this project writes: skipped, nothing written for them
    records += [(b"no-slashes", b"1:x"), (f"{tenant}/u//".encode(), b"1:x"), (f"{tenant}/u/k9".encode(), b"x:y")]
    redis_client.delete(user_data_keys(tenant, "kept"), user_data_keys(tenant, "erased"))  # Redis lost them
    # each key's last record counts: the erased key is never written back, not even for a moment
    assert keys.restore(records) == 1
    held = keys.keys_of([(tenant, "kept"), (tenant, "erased")])
    assert len(held[(tenant, "kept")]) == 1 and held[(tenant, "erased")] == {}
    assert not redis_client.exists(user_data_keys(tenant, "u"))
    with pytest.raises(MasterKeyMismatch):
        UserKeys(redis_client, new_key()).keys_of([(tenant, "kept")])


def test_the_sealer_falls_back_to_the_key_it_last_used_while_redis_is_away(
    redis_client: redis.Redis, tenant: str
) -> None:
    sealer = Sealer(UserKeys(redis_client, new_key()))
    _, created = sealer.seal_many([(tenant, "u", b"t/u", b"hello")], 1000)
    assert len(created) == 1
    (key,) = sealer.keys.keys_of([(tenant, "u")])[(tenant, "u")].values()
    away = redis.Redis(host="127.0.0.1", port=1, socket_connect_timeout=0.2)  # nothing listens there
    sealer.keys.r = away
    sealer.keys._current.client = away
    (again,), created = sealer.seal_many([(tenant, "u", b"t/u", b"hello again")], 2000)
    assert created == [] and open_sealed(key, b"t/u", again) == b"hello again"
    with pytest.raises(redis.exceptions.ConnectionError):
        sealer.seal_many([(tenant, "stranger", b"t/stranger", b"hi")], 2000)


def test_while_redis_is_away_input_opened_with_the_remembered_key_is_sealed_with_it_and_no_other(
    redis_client: redis.Redis, tenant: str
) -> None:
    """The outage fallback for what a batch made of sealed input: the key the sealer last used seals
    only payloads whose input was opened with that very key (else they are left unsealed, as for a
    user erased meanwhile)."""
    sealer = Sealer(UserKeys(redis_client, new_key()))
    sealer.seal_many([(tenant, "u", b"t/u", b"hello")], 1000)
    ((kid, key),) = sealer.keys.keys_of([(tenant, "u")])[(tenant, "u")].items()
    away = redis.Redis(host="127.0.0.1", port=1, socket_connect_timeout=0.2)  # nothing listens there
    sealer.keys.r = away
    sealer.keys._current.client = away
    items = [(tenant, "u", b"t/u", b"an op")]
    (sealed,), created = sealer.seal_opened(items, 2000, {(tenant, "u"): {kid: key}})
    assert created == [] and sealed is not None and open_sealed(key, b"t/u", sealed) == b"an op"
    (dropped,), created = sealer.seal_opened(items, 2000, {(tenant, "u"): {"0123456789ab": new_key()}})
    assert dropped is None and created == []


def test_ids_that_join_alike_get_keys_of_their_own(redis_client: redis.Redis, tenant: str) -> None:
    # (tenant, "b:c") and (tenant + ":b", "c") joined with ":" alike; each part is escaped now, so
    # each pair has its own keys, and neither is refused as sealed under another master key
    keys = UserKeys(redis_client, new_key())
    first, second = (tenant, "b:c"), (f"{tenant}:b", "c")
    third = (tenant, "b/c")
    try:
        made = {pair: keys.current(*pair, 1000) for pair in (first, second, third)}
        assert len({kid for kid, _, _ in made.values()}) == 3
        assert len({user_data_keys(*pair) for pair in made}) == 3
        held = keys.keys_of(list(made))
        for pair, (kid, key, created) in made.items():
            assert held[pair] == {kid: key}
            assert created is not None and created[0] == record_key(*pair, kid)
        # the keys topic's records restore each pair's key to that pair alone
        records = [created for _, _, created in made.values() if created is not None]
        for pair in made:
            redis_client.delete(user_data_keys(*pair))
        assert keys.restore(records) == 3
        assert keys.keys_of(list(made)) == held
    finally:
        for pair in (first, second, third):
            redis_client.delete(user_data_keys(*pair))
