"""The quota keys' names: one Redis Cluster hash tag per deployment and tenant, whatever the ids
hold, and no two tenants (or deployments) sharing a key."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from slotstream.state.keys import quota_key

AWKWARD = ["a:b", "a%3Ab", "a%253Ab", "a}b", "a{b", "{a}", "a", "a:b}:requests", "", "é", "a b", "a|b"]


def hash_tag(key: str) -> str:
    """What Redis Cluster hashes: between the first "{" and the next "}"."""
    start = key.index("{")
    return key[start + 1 : key.index("}", start)]


def test_ids_with_separators_name_keys_of_their_own() -> None:
    keys = {quota_key("ss", tenant, "requests") for tenant in AWKWARD}
    assert len(keys) == len(AWKWARD)
    assert len({hash_tag(key) for key in keys}) == len(AWKWARD), "each tenant its own hash tag"
    assert quota_key("a:b", "c", "ingest") != quota_key("a", "b:c", "ingest"), "the deployment and tenant stay apart"


@given(st.text(max_size=20), st.text(max_size=20), st.text(max_size=20), st.text(max_size=20))
def test_the_key_names_its_deployment_and_tenant_alone(base: str, tenant: str, other_base: str, other: str) -> None:
    key = quota_key(base, tenant, "requests")
    tag = hash_tag(key)
    assert "{" not in tag and ":" in tag and tag.count(":") == 1
    assert key == f"slotstream:quota:{{{tag}}}:requests"
    same = quota_key(other_base, other, "requests") == key
    assert same == ((base, tenant) == (other_base, other))
    assert quota_key(base, tenant, "requests") != quota_key(base, tenant, "ingest")
