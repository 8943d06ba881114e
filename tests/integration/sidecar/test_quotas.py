"""A tenant's quotas through the real sidecar (two server processes sharing a Redis): the request
rate and the ingest quota hold for the tenant as a whole, a refusal says when to retry and produces
nothing, and other tenants keep theirs.

The rates are one unit per 1,000 s, so only the bursts count while the test runs: the counts are
exact however slow the machine."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import httpx
import pytest

from support import Service, start_service

pytestmark = [pytest.mark.kafka, pytest.mark.integration]
BURST, INGEST_BURST = 20, 10
LOOKUP = {"user": "alice", "query": "x"}


@pytest.fixture(scope="module")
def limited(kafka_bootstrap: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    svc = start_service(
        kafka_bootstrap,
        redis_url,
        tmp_path_factory.mktemp("quotas"),
        f"qt-{uuid.uuid4().hex[:6]}",
        rate_limit=0.001,
        rate_burst=float(BURST),
        ingest_rate=0.001,
        ingest_burst=float(INGEST_BURST),
    )
    yield svc
    svc.stack.stop()


def _refused(res: httpx.Response, reason: str) -> bool:
    """A 429 in the problem shape, with the reason and a Retry-After of at least a second."""
    return res.status_code == 429 and res.json()["reason"] == reason and int(res.headers["Retry-After"]) >= 1


def test_the_request_rate_is_the_tenants_whatever_process_serves_it(limited: Service) -> None:
    noisy = limited.key(f"noisy{uuid.uuid4().hex[:6]}")
    # one connection stays with one server process: it gets more than a per-process share (10)
    with limited.http(noisy) as h:
        first = [h.post("/v1/context", json=LOOKUP).status_code for _ in range(15)]
    assert first == [200] * 15
    # a connection each: the kernel spreads them over both processes, which allow 5 more together
    answers = []
    for _ in range(25):
        with limited.http(noisy) as h:
            answers.append(h.post("/v1/context", json=LOOKUP))
    assert [res.status_code for res in answers].count(200) == BURST - 15
    assert all(_refused(res, "rate_limited") for res in answers if res.status_code != 200)
    with limited.http(noisy) as h:  # every route counts against the same rate, not only the lookup
        assert _refused(h.get("/v1/users/alice/memories"), "rate_limited")
        assert _refused(h.post("/v1/turns", json={"user": "alice", "text": "I live in Oslo."}), "rate_limited")
    with limited.http(limited.key(f"quiet{uuid.uuid4().hex[:6]}")) as h:
        assert [h.post("/v1/context", json=LOOKUP).status_code for _ in range(BURST)] == [200] * BURST


def test_a_batch_costs_its_size_of_the_ingest_quota(limited: Service) -> None:
    writer = limited.key(f"writer{uuid.uuid4().hex[:6]}")

    def turns(n: int) -> dict[str, object]:
        return {"turns": [{"user": f"u{k}", "text": "I live in Oslo."} for k in range(n)]}

    with limited.http(writer) as h:
        assert h.post("/v1/turns", json=turns(6)).status_code == 202
        # (the turns topic: the worker may still be turning the accepted batch into ops)
        before = limited.ends()["turns"]
        over = h.post("/v1/turns", json=turns(6))
        assert _refused(over, "ingest_rate_limited"), over.text
        too_big = h.post("/v1/turns", json=turns(INGEST_BURST + 1))
        assert (too_big.status_code, too_big.json()["reason"]) == (413, "over_ingest_burst")
        assert limited.ends()["turns"] == before, "a refused batch produces nothing"
        assert h.post("/v1/turns", json=turns(4)).status_code == 202, "the refused 6 took nothing"
        op = {
            "record": {"user": "u1", "kind": "preference", "attribute": "preference.response.detail", "value": "short"}
        }
        assert _refused(h.post("/v1/ops", json=op), "ingest_rate_limited"), "ops count against the same quota"
    with limited.http(limited.key(f"other{uuid.uuid4().hex[:6]}")) as h:
        assert h.post("/v1/turns", json=turns(INGEST_BURST)).status_code == 202, "another tenant has its own"
