"""Recorded positions and the namespace marker on a real Redis: a position only moves forward, a
position below what a worker recorded is noticed, a namespace whose state is gone is told apart
from a new one."""

from __future__ import annotations

import pytest
import redis

from slotstream.state.errors import StateLost, StateRewound
from slotstream.state.keys import Keys
from slotstream.state.progress import Progress

pytestmark = pytest.mark.integration
TOPIC = "x.ops"


def test_advance_keeps_running_maxima_of_positions_and_watermarks(redis_client: redis.Redis, namespace: str) -> None:
    p = Progress(redis_client, namespace)
    p.claim({})
    p.advance(TOPIC, {0: 10, 1: 4}, {0: 1000})
    p.advance(TOPIC, {0: 7, 2: 3}, {0: 900, 1: 50})
    assert p.offsets(TOPIC) == {0: 10, 1: 4, 2: 3}
    assert p.watermarks(TOPIC) == {0: 1000, 1: 50}
    assert p.positions(TOPIC, [0, 1, 2, 3]) == {0: 10, 1: 4, 2: 3, 3: 0}


def test_advance_refuses_a_position_below_what_the_caller_recorded(redis_client: redis.Redis, namespace: str) -> None:
    p = Progress(redis_client, namespace)
    p.claim({})
    p.advance(TOPIC, {0: 10})
    redis_client.hset(Keys(namespace).progress(TOPIC), "0", 6)  # Redis lost its last writes
    with pytest.raises(StateRewound):
        p.advance(TOPIC, {0: 11}, previous={0: 10})
    assert p.offsets(TOPIC) == {0: 6}, "nothing recorded on top of a rewound position"
    assert p.regressed(TOPIC, {0: 10}) == {0: (10, 6)}
    assert p.regressed(TOPIC, {0: 6}) == {}
    p.advance(TOPIC, {0: 8}, previous={0: 6})
    assert p.offsets(TOPIC) == {0: 8}


def test_positions_without_the_marker_mean_lost_state(redis_client: redis.Redis, namespace: str) -> None:
    p = Progress(redis_client, namespace)
    p.claim({})
    p.advance(TOPIC, {0: 3})
    redis_client.delete(Keys(namespace).marker())
    with pytest.raises(StateLost):
        p.advance(TOPIC, {0: 4})
    with pytest.raises(StateLost):
        p.regressed(TOPIC, {0: 3})


def test_claiming_a_namespace(redis_client: redis.Redis, namespace: str) -> None:
    p = Progress(redis_client, namespace)
    with pytest.raises(StateLost) as err:
        p.claim({"x.ops": {0: 120, 1: 0}})
    assert "--rebuild" in str(err.value) and namespace in str(err.value)
    assert not p.has_state()
    p.claim({"x.ops": {0: 0}})  # nothing committed yet: a new namespace
    assert p.has_state()
    p.claim({"x.ops": {0: 500}})  # it holds state now: whatever the offsets say
    other = f"{namespace}-rebuilt"
    try:
        Progress(redis_client, other).claim({"x.ops": {0: 120}}, rebuild=True)
        assert Progress(redis_client, other).positions("x.ops", [0, 1]) == {0: 0, 1: 0}
    finally:
        for key in redis_client.scan_iter(match=f"{other}:*"):
            redis_client.delete(key)
