"""Every composite key names its parts unambiguously, whatever the ids hold: property tests over
ids made of every separator the layouts use."""

from __future__ import annotations

import fnmatch

from hypothesis import example, given
from hypothesis import strategies as st
from redis.crc import key_slot

from slotstream.processors.sealed import owner
from slotstream.state.expiry_index import DueEntry
from slotstream.state.keys import Keys, user_data_keys
from slotstream.state.user_keys import record_key
from slotstream.streams.topics import control_key, user_key

ids = st.text(alphabet=st.sampled_from(":/{}|%*?[]\\ \n~ab") | st.characters(codec="utf-8"), min_size=1, max_size=8)
pairs = st.tuples(ids, ids)
KEYS = Keys("ss")


def user_keys_of(tenant: str, user: str) -> list[str]:
    return [
        KEYS.meta(tenant, user),
        KEYS.records(tenant, user),
        KEYS.active(tenant, user, "project:a:b"),
        KEYS.read_index(tenant, user, "global", "ixt:0123abcd"),
        KEYS.history(tenant, user, "user|diet"),
        KEYS.turn(tenant, user, "t:1/2"),
        user_data_keys(tenant, user),
    ]


@given(pairs, pairs)
@example(("a", "b:c"), ("a:b", "c"))
@example(("a", "b/c"), ("a/b", "c"))
def test_two_users_never_share_a_key(a: tuple[str, str], b: tuple[str, str]) -> None:
    same = a == b
    assert (KEYS.prefix(*a) == KEYS.prefix(*b)) == same
    assert (user_data_keys(*a) == user_data_keys(*b)) == same
    assert (user_key(*a) == user_key(*b)) == same
    assert (record_key(*a, "k1") == record_key(*b, "k1")) == same
    assert (control_key(*a, "forget", "op:1") == control_key(*b, "forget", "op:1")) == same
    assert (DueEntry(*a, "r1", "expire").member == DueEntry(*b, "r1", "expire").member) == same


@given(pairs)
def test_a_users_keys_split_back_and_hash_to_one_cluster_slot(pair: tuple[str, str]) -> None:
    tenant, user = pair
    keys = user_keys_of(tenant, user)
    # the hash tag is the first {...}: an id cannot close it early, so all of a user's keys (and
    # their data keys') stay on one cluster node
    assert len({key_slot(k.encode()) for k in keys}) == 1
    assert KEYS.user_of_key(KEYS.meta(tenant, user)) == pair
    assert KEYS.user_of_meta(KEYS.meta(tenant, user), tenant) == user
    assert owner(user_key(tenant, user)) == pair
    assert owner(control_key(tenant, user, "erase_user")) == pair
    assert DueEntry.parse(DueEntry(tenant, user, "r/1:x", "expire").member) == DueEntry(tenant, user, "r/1:x", "expire")


@given(pairs, pairs)
def test_a_tenants_scan_pattern_finds_only_its_users(a: tuple[str, str], b: tuple[str, str]) -> None:
    pattern = KEYS.tenant_user_metas(a[0])
    # escaped parts hold no glob character: the pattern's only wildcard is the user's
    assert not set(pattern.replace("}:meta", "").removesuffix("*")) & set("*?[]\\")
    assert fnmatch.fnmatchcase(KEYS.meta(*b), pattern) == (a[0] == b[0])
