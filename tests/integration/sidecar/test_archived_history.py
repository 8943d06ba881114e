"""The whole path with the history archive on: a worker settles a user's retired versions onto the
history topic (SLOTSTREAM_HISTORY_ARCHIVE_AFTER set low), and the sidecar's reads (a memory by
id, its history, the listing, the export, the context) and a later forget find them as if they
had stayed in Redis."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
import redis

from slotstream.memory.sealing import is_sealed
from slotstream.state.keys import Keys
from slotstream.streams.topics import HISTORY

from support import Service, read_topic, start_service

pytestmark = [pytest.mark.kafka, pytest.mark.integration]
DRINK = "preference.drink"
VERSIONS = 24


@pytest.fixture(scope="module")
def service(kafka_bootstrap: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    name = f"sa-{uuid.uuid4().hex[:6]}"
    svc = start_service(kafka_bootstrap, redis_url, tmp_path_factory.mktemp("archived"), name, history_archive_after=4)
    yield svc
    svc.stack.stop()


def drink(value: str, correct: bool) -> dict[str, object]:
    return {
        "record": {"user": "ann", "kind": "preference", "attribute": DRINK, "value": value, "corrects_current": correct}
    }


def test_reads_and_a_forget_find_the_versions_the_worker_archived(
    service: Service, redis_url: str, tmp_path: Path
) -> None:
    tenant = f"t{uuid.uuid4().hex[:8]}"
    client = redis.Redis.from_url(redis_url)
    keys = Keys(service.stack.settings.namespace)
    with service.http(service.key(tenant)) as h:
        ops = [drink(f"drink {n}", n > 0) for n in range(VERSIONS)]
        sent = h.post("/v1/ops?wait=30", json={"ops": ops}).json()
        assert [a["outcome"] for a in sent["accepted"]] == ["applied"] * VERSIONS
        # (an op is answered once applied; the worker settles the user right after)
        deadline = time.monotonic() + 20
        while not client.exists(keys.archive(tenant, "ann")) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert client.exists(keys.archive(tenant, "ann")), "the worker archived the user's retired versions"
        assert len((client.hget(keys.cold(tenant, "ann"), "ids") or b"").split()) < 16

        (current,) = [m["id"] for m in h.get("/v1/users/ann/memories", params={"status": "active"}).json()["items"]]
        history = h.get(f"/v1/users/ann/memories/{current}/history").json()["lineage"]
        assert [r["value"] for r in history] == [f"drink {n}" for n in range(VERSIONS)]
        assert [r["status"] for r in history] == ["superseded"] * (VERSIONS - 1) + ["active"]
        first = history[0]["id"]
        assert not client.hexists(keys.records(tenant, "ann"), first)  # only the archive holds it
        one = h.get(f"/v1/users/ann/memories/{first}")
        assert one.status_code == 200 and one.json()["value"] == "drink 0"

        listed, cursor = [], 0
        while True:
            page = h.get("/v1/users/ann/memories", params={"cursor": cursor, "limit": 5}).json()
            listed += [m["id"] for m in page["items"]]
            if page["next_cursor"] is None:
                break
            cursor = page["next_cursor"]
        assert sorted(listed) == sorted(r["id"] for r in history)
        exported = [orjson.loads(line) for line in h.get("/v1/users/ann/export").iter_lines() if line]
        assert sorted(e["record"]["id"] for e in exported if e["type"] == "record") == sorted(listed)

        forget = {"command": {"user": "ann", "op": "forget", "match": {"attribute": DRINK, "value": "drink 0"}}}
        assert h.post("/v1/ops?wait=30", json={"ops": [forget]}).json()["accepted"][0]["outcome"] == "applied"
        gone = h.get(f"/v1/users/ann/memories/{first}").json()
        assert gone["status"] == "deleted" and gone["value"] is None
        exported = h.get("/v1/users/ann/export").text
        assert "drink 0" not in exported, "a forgotten value is not exported, archived or not"
        context = h.post("/v1/context", json={"user": "ann", "query": "what do I drink"}).json()["context"]
        assert f"drink {VERSIONS - 1}" in context and "drink 0" not in context

    # what the topic holds is sealed with the user's key
    segments = [m for m in read_topic(service.stack, HISTORY) if m.key and m.key.startswith(f"{tenant}/ann/".encode())]
    assert segments and all(m.value is None or is_sealed(m.value) for m in segments)
