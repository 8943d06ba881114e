"""A 3-master Redis Cluster on loopback for a test module, and a client of it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis

from slotstream.local.redis_server import LocalRedisCluster
from slotstream.state.client import connect


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalRedisCluster]:
    with LocalRedisCluster(masters=3) as running:
        yield running


@pytest.fixture(scope="module")
def cluster_client(cluster: LocalRedisCluster) -> Iterator[redis.Redis]:
    client = connect(cluster.url)
    yield client
    client.close()
