"""The sidecar's test modules each run against a sidecar of their own (module scope)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from support import Service, start_service


@pytest.fixture(scope="module")
def service(kafka_bootstrap: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    svc = start_service(kafka_bootstrap, redis_url, tmp_path_factory.mktemp("sidecar"), f"sc-{uuid.uuid4().hex[:6]}")
    yield svc
    svc.stack.stop()


@pytest.fixture
def tenant() -> str:
    return f"t{uuid.uuid4().hex[:8]}"
