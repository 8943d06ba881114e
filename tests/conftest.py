"""Session fixtures for real servers: testcontainers when a Docker engine answers, local servers otherwise.

SLOTSTREAM_TEST_REDIS=cluster: the session's Redis is a local Redis Cluster of three masters
(`redis+cluster://` URL, state/client.py) instead of one server, so the same tests run on it
(tests/integration/cluster/test_engine_on_cluster.py runs the engine suite and the scenarios so).
"""

from __future__ import annotations

import os
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

import slotstream
from slotstream.compiled import source_digest
from slotstream.local.kafka_broker import docker_available
from slotstream.local.redis_server import LocalRedis, LocalRedisCluster
from slotstream.state.client import connect, is_cluster_url

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"


def pytest_sessionstart(session: pytest.Session) -> None:
    """The tests test what scripts/setup.sh installed: with the compiled build, that build must be
    of these sources, and imported from the install, not from the sources beside the current folder
    (where plain copies of the compiled modules sit)."""
    stamp = Path(sys.prefix) / ".slotstream-installed"
    mode, _, digest = stamp.read_text().strip().partition(" ") if stamp.exists() else ("", "", "")
    if mode != "compile=1":
        return
    if source_digest(ROOT) != digest:
        pytest.exit("the sources changed since the installed build: run scripts/setup.sh", returncode=2)
    if Path(slotstream.__file__).resolve().is_relative_to(ROOT / "slotstream"):
        pytest.exit("slotstream is imported from the sources, not the installed build: run python -P", returncode=2)


def docker_engine_available() -> bool:
    return not os.environ.get("SLOTSTREAM_NO_DOCKER") and docker_available()


def session_redis_is_cluster() -> bool:
    """The session's Redis is a Redis Cluster (SLOTSTREAM_TEST_REDIS=cluster)."""
    return os.environ.get("SLOTSTREAM_TEST_REDIS", "").lower() == "cluster"


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """A real Redis server for the whole session."""
    if os.environ.get("SLOTSTREAM_REDIS_URL"):
        yield os.environ["SLOTSTREAM_REDIS_URL"]
        return
    if session_redis_is_cluster():
        with LocalRedisCluster(masters=3) as cluster:
            yield cluster.url
        return
    if docker_engine_available():
        from testcontainers.redis import RedisContainer

        with RedisContainer("redis:7.2") as container:
            host = container.get_container_host_ip()
            port = container.get_exposed_port(6379)
            yield f"redis://{host}:{port}/0"
        return
    with LocalRedis() as local:
        yield local.url


@pytest.fixture(scope="session")
def kafka_bootstrap() -> Iterator[str]:
    """A real Kafka broker (KRaft on the JVM) for the whole session, or SLOTSTREAM_KAFKA_BOOTSTRAP."""
    if os.environ.get("SLOTSTREAM_KAFKA_BOOTSTRAP"):
        yield os.environ["SLOTSTREAM_KAFKA_BOOTSTRAP"]
        return
    from slotstream.local.kafka_broker import LocalKafka

    broker = LocalKafka(num_partitions=4, startup_timeout=120)
    broker.start()
    try:
        yield broker.bootstrap
    finally:
        broker.stop()


@pytest.fixture(scope="session")
def redis_client(redis_url: str) -> Iterator[redis.Redis]:
    client = connect(redis_url) if is_cluster_url(redis_url) else redis.Redis.from_url(redis_url)
    yield client
    client.close()


def _fresh_namespace(client: redis.Redis) -> Iterator[str]:
    ns = f"t-{uuid.uuid4().hex[:10]}"
    yield ns
    for key in client.scan_iter(match=f"{ns}:*", count=1000):
        client.delete(key)


@pytest.fixture
def namespace(redis_client: redis.Redis) -> Iterator[str]:
    """A fresh key namespace per test, dropped afterwards."""
    yield from _fresh_namespace(redis_client)


@pytest.fixture
def other_namespace(redis_client: redis.Redis) -> Iterator[str]:
    """A second fresh namespace, for comparing two states."""
    yield from _fresh_namespace(redis_client)


@pytest.fixture
def keys_tenant(redis_client: redis.Redis) -> Iterator[str]:
    """A fresh tenant for users' data keys (kept outside any namespace), whose keys are dropped afterwards."""
    name = f"uk{uuid.uuid4().hex[:8]}"
    yield name
    for key in redis_client.scan_iter(match=f"slotstream:ukeys:{{{name}:*"):
        redis_client.delete(key)


@pytest.fixture
def engine(redis_client: redis.Redis, namespace: str):
    from slotstream.state.engine import Engine

    return Engine(redis_client, namespace=namespace)
