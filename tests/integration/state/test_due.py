"""The expiry index on a real Redis."""

from __future__ import annotations

import pytest
import redis

from slotstream.state.expiry_index import DueEntry, DueIndex

pytestmark = pytest.mark.integration


def test_entries_are_paged_by_due_time_and_removed_only_if_not_moved(redis_client: redis.Redis, namespace: str) -> None:
    due = DueIndex(redis_client, namespace)
    a, b, c = (DueEntry("t", "u", f"r{i}", "expire") for i in range(3))
    due.update([(0, a, 100), (0, b, 300), (0, c, 200), (1, a, 50)], [])
    assert due.page(0, 250, 0, 10) == [(a, 100), (c, 200)]
    assert due.page(0, 1000, 1, 1) == [(c, 200)]
    due.update([(0, c, None)], [])  # no longer due
    assert due.page(0, 1000, 0, 10) == [(a, 100), (b, 300)]
    due.update([], [(0, a, 100), (0, b, 250)])  # handled at 100 (a: gone), at 250 (b moved to 300: stays)
    assert due.page(0, 1000, 0, 10) == [(b, 300)]
    assert due.page(1, 1000, 0, 10) == [(a, 50)], "partitions are apart"


def test_an_entry_changed_several_times_in_one_update_ends_as_its_last_change(
    redis_client: redis.Redis, namespace: str
) -> None:
    due = DueIndex(redis_client, namespace)
    a, b, c = (DueEntry("t", "u", f"r{i}", "expire") for i in range(3))
    due.update([(0, c, 70)], [])
    # a: due, no longer, due again; b: due, then no longer; c (already there): no longer, then due
    due.update([(0, a, 100), (0, b, 300), (0, a, None), (0, c, None), (0, b, None), (0, a, 150), (0, c, 60)], [])
    assert due.page(0, 1000, 0, 10) == [(c, 60), (a, 150)]
    due.update([(0, c, 80), (0, c, None), (1, c, 5)], [])
    assert due.page(0, 1000, 0, 10) == [(a, 150)]
    assert due.page(1, 1000, 0, 10) == [(c, 5)]


def test_a_member_splits_back() -> None:
    e = DueEntry("tenant.a", "user@x", "r_123", "review_due")
    assert DueEntry.parse(e.member.encode()) == e
