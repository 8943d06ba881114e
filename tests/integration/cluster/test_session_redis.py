"""The session's Redis is the kind SLOTSTREAM_TEST_REDIS asks for: run inside the engine suite on a
cluster (test_engine_on_cluster.py), it proves that run was on the cluster and not on one server."""

from __future__ import annotations

import os

import pytest
import redis
from redis.cluster import RedisCluster

from slotstream.state.client import is_cluster_url

pytestmark = pytest.mark.integration


def test_the_session_redis_is_the_kind_asked_for(redis_url: str, redis_client: redis.Redis) -> None:
    if os.environ.get("SLOTSTREAM_REDIS_URL"):
        pytest.skip("SLOTSTREAM_REDIS_URL names the session's Redis")
    if os.environ.get("SLOTSTREAM_TEST_REDIS", "").lower() == "cluster":
        assert is_cluster_url(redis_url)
        assert isinstance(redis_client, RedisCluster) and len(redis_client.get_primaries()) == 3
    else:
        assert not is_cluster_url(redis_url) and not isinstance(redis_client, RedisCluster)
