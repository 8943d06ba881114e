"""The sidecar as a real service: `slotstream sidecar` (uvicorn, two worker processes) over a real
socket, on a real Redis and Kafka with a worker behind it. Every endpoint, keys and scopes,
isolation between tenants that use the same ids, bad input (and nothing changed), `wait`, rate
limits, metrics, and the Python client against it.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from slotstream.client import AsyncClient, Client, SidecarRequestError
from slotstream.config.settings import Settings
from slotstream.local.redis_server import LocalRedis, free_port
from slotstream.sidecar.keys import create_key, revoke_key
from slotstream.state.keys import Keys
from slotstream.streams.topics import OPS

from support import Service, start_service

pytestmark = [pytest.mark.kafka, pytest.mark.integration]
DETAIL = "preference.response.detail"


def record(user: str, attribute: str, value: Any, **extra: Any) -> dict[str, Any]:
    return {
        "record": {
            "user": user,
            "kind": "preference" if attribute.startswith("preference") else "knowledge",
            "attribute": attribute,
            "value": value,
            **extra,
        }
    }


# --- every endpoint --------------------------------------------------------------------------------


def test_operations_endpoints_need_no_key(service: Service) -> None:
    with service.http() as h:
        assert h.get("/healthz").json() == {"status": "ok"}
        ready = h.get("/readyz")
        assert ready.status_code == 200 and ready.json()["checks"] == {"redis": True, "kafka": True}
        spec = h.get("/openapi.json").json()
        assert h.get("/docs").status_code == 200
        context = spec["paths"]["/v1/context"]["post"]
        body_ref = context["requestBody"]["content"]["application/json"]["schema"]["$ref"]
        assert body_ref.rsplit("/", 1)[1] in spec["components"]["schemas"]
        query_fields = set(spec["components"]["schemas"]["ContextQuery"]["properties"])
        assert {"user", "query", "max_items", "explain"} <= query_fields
        assert context["security"] == [{"apiKey": []}] and "security" not in spec["paths"]["/healthz"]["get"]
        assert spec["components"]["securitySchemes"]["apiKey"]["scheme"] == "bearer"
        refs = set(re.findall(r'"\$ref": "#/components/schemas/([^"]+)"', json.dumps(spec)))
        assert refs and refs <= set(spec["components"]["schemas"]), "every schema the document names is in it"
        memory = "/v1/users/{user}/memories/{record_id}"
        assert {
            "/v1/context",
            "/v1/turns",
            "/v1/ops",
            "/v1/users/{user}/memories",
            memory,
            f"{memory}/history",
            f"{memory}/correct",
            f"{memory}/confirm",
            f"{memory}/reject",
            f"{memory}/retract",
            "/v1/users/{user}/export",
            "/v1/users/{user}",
            "/healthz",
            "/readyz",
            "/metrics",
        } <= set(spec["paths"])
        assert h.get("/metrics").status_code == 200


def test_turns_then_context_read_their_writes(service: Service, tenant: str) -> None:
    with service.http(service.key(tenant)) as h:
        sent = h.post(
            "/v1/turns?wait=20",
            json={
                "turns": [
                    {"user": "alice", "session": "s1", "text": "Please keep your answers short."},
                    {"user": "alice", "session": "s1", "text": "My password is hunter2222. I moved to Lisbon."},
                ]
            },
        )
        assert sent.status_code == 202, sent.text
        body = sent.json()
        assert body["complete"] is True
        first, second = body["accepted"]
        assert first["outcome"] == "extracted" and [o["outcome"] for o in first["ops"]] == ["applied"]
        assert second["refused"] == ["secret_value"] and [o["outcome"] for o in second["ops"]] == ["applied"]
        assert first["topic"].endswith(".turns") and first["offset"] >= 0
        ctx = h.post("/v1/context", json={"user": "alice", "query": "where do I live", "explain": True}).json()
        assert "concise" in ctx["context"] and "Lisbon" in ctx["context"]
        assert "hunter2222" not in ctx["context"]
        assert {line["attribute"] for line in ctx["sections"]["stated"]} == {DETAIL, "profile.home_city"}
        assert set(ctx["used_ids"]) == {line["id"] for line in ctx["sections"]["stated"]}
        assert ctx["excluded"] == []
        # unknown user: an empty context, not an error
        empty = h.post("/v1/context", json={"user": "nobody", "query": "x"})
        assert empty.status_code == 200 and empty.json()["context"] == "" and empty.json()["used_ids"] == []


def test_ops_and_every_memory_control(service: Service, tenant: str) -> None:
    with service.http(service.key(tenant)) as h:
        res = h.post(
            "/v1/ops?wait=20",
            json={
                "ops": [
                    record("bob", DETAIL, "concise", statement="short answers please"),
                    record("bob", "knowledge.editor", "vim"),
                    {
                        "record": {
                            "user": "bob",
                            "kind": "preference",
                            "attribute": "preference.language",
                            "value": "German",
                            "authority": "system_inferred",
                            "confidence": 0.8,
                        }
                    },
                ]
            },
        ).json()
        assert res["complete"] and [a["outcome"] for a in res["accepted"]] == ["applied"] * 3
        page = h.get("/v1/users/bob/memories", params={"limit": 200}).json()
        by_attr = {m["attribute"]: m for m in page["items"]}
        assert set(by_attr) == {DETAIL, "knowledge.editor", "preference.language"} and page["next_cursor"] is None
        assert [
            m["attribute"] for m in h.get("/v1/users/bob/memories", params={"status": "candidate"}).json()["items"]
        ] == ["preference.language"]
        assert [
            m["attribute"] for m in h.get("/v1/users/bob/memories", params={"kind": "knowledge"}).json()["items"]
        ] == ["knowledge.editor"]
        detail_id = by_attr[DETAIL]["id"]
        assert h.get(f"/v1/users/bob/memories/{detail_id}").json()["value"] == "concise"
        assert h.get("/v1/users/bob/memories/r_nothing").status_code == 404

        corrected = h.post(f"/v1/users/bob/memories/{detail_id}/correct?wait=20", json={"value": "detailed"}).json()
        assert corrected["accepted"][0]["outcome"] == "applied"
        history = h.get(f"/v1/users/bob/memories/{detail_id}/history").json()
        assert [(r["value"], r["status"]) for r in history["lineage"]] == [
            ("concise", "superseded"),
            ("detailed", "active"),
        ]
        assert history["lineage"][0]["superseded_by"] == history["lineage"][1]["id"]
        assert history["lineage"][0]["status_reason"].startswith("superseded by")

        language_id = by_attr["preference.language"]["id"]
        assert (
            h.post(f"/v1/users/bob/memories/{language_id}/confirm?wait=20").json()["accepted"][0]["outcome"]
            == "applied"
        )
        assert h.get(f"/v1/users/bob/memories/{language_id}").json()["status"] == "active"
        # what is stored says the record is not waiting: refused at the door, nothing produced
        not_pending = h.post(f"/v1/users/bob/memories/{language_id}/reject?wait=20")
        assert (not_pending.status_code, not_pending.json()["reason"]) == (409, "target_not_pending")

        editor_id = by_attr["knowledge.editor"]["id"]
        assert h.delete(f"/v1/users/bob/memories/{editor_id}?wait=20").json()["accepted"][0]["outcome"] == "applied"
        assert h.get(f"/v1/users/bob/memories/{editor_id}").json()["status"] == "deleted"
        assert "vim" not in h.post("/v1/context", json={"user": "bob", "query": "editor"}).json()["context"]

        export = [orjson_line for orjson_line in h.get("/v1/users/bob/export").iter_lines() if orjson_line]
        kinds = [__import__("orjson").loads(line)["type"] for line in export]
        assert kinds.count("record") == 4 and "suppression" in kinds
        assert "vim" not in "\n".join(export), "a forgotten value is not exported"

        erased = h.delete("/v1/users/bob?wait=20").json()
        assert erased["accepted"][0]["outcome"] == "applied"
        assert h.get("/v1/users/bob/memories").json()["items"] == []
        assert h.post("/v1/context", json={"user": "bob", "query": "x"}).json()["context"] == ""


def test_audience_comes_from_the_key_never_from_the_body(service: Service, tenant: str) -> None:
    writer = service.key(tenant)
    vp = service.key(tenant, "read", roles="vp")
    staff = service.key(tenant, "read", roles="engineer")
    with service.http(writer) as h:
        res = h.post(
            "/v1/ops?wait=20",
            json={
                "ops": [
                    record("carol", "knowledge.reorg", "teams A and B merge in May", audience=["vp"]),
                    record("carol", "knowledge.office", "the office moves in June"),
                ]
            },
        )
        assert [a["outcome"] for a in res.json()["accepted"]] == ["applied", "applied"]
    query = {"user": "carol", "query": "what changes this year", "explain": True}
    with service.http(vp) as h:
        assert "teams A and B merge" in h.post("/v1/context", json=query).json()["context"]
    with service.http(staff) as h:
        ctx = h.post("/v1/context", json=query).json()
        assert "teams A and B merge" not in ctx["context"] and "office moves" in ctx["context"]
        assert "audience" in {e["reason"] for e in ctx["excluded"]}
        # the body cannot claim a role: the field does not exist
        claimed = h.post("/v1/context", json={**query, "roles": ["vp"]})
        assert claimed.status_code == 422
        # nor do the memory endpoints show it to a caller outside the audience
        listed = h.get("/v1/users/carol/memories").json()
        assert [m["attribute"] for m in listed["items"]] == ["knowledge.office"]


def test_retract_endpoint_leaves_the_slot_empty(service: Service, tenant: str) -> None:
    with service.http(service.key(tenant)) as h:
        record_id = "est-1"
        res = h.post(
            "/v1/ops?wait=20", json={"ops": [record("dan", "knowledge.estimate", "three weeks", id=record_id)]}
        )
        assert res.json()["accepted"][0]["outcome"] == "applied"
        done = h.post(f"/v1/users/dan/memories/{record_id}/retract?wait=20")
        assert done.status_code == 202 and done.json()["accepted"][0]["outcome"] == "applied"
        assert h.get(f"/v1/users/dan/memories/{record_id}").json()["status"] == "retracted"
        assert "three weeks" not in h.post("/v1/context", json={"user": "dan", "query": "estimate"}).json()["context"]


def test_memories_are_paginated(service: Service, tenant: str) -> None:
    with service.http(service.key(tenant)) as h:
        h.post("/v1/ops?wait=20", json={"ops": [record("carol", f"knowledge.k{i}", f"v{i}") for i in range(120)]})
        seen, cursor, pages = set(), 0, 0
        while True:
            page = h.get("/v1/users/carol/memories", params={"cursor": cursor, "limit": 25}).json()
            seen |= {m["attribute"] for m in page["items"]}
            pages += 1
            if page["next_cursor"] is None:
                break
            cursor = page["next_cursor"]
        assert seen == {f"knowledge.k{i}" for i in range(120)} and pages > 1


# --- wait --------------------------------------------------------------------------------------------


def test_without_wait_the_answer_comes_at_once_and_the_outcome_later(service: Service, tenant: str) -> None:
    with service.http(service.key(tenant)) as h:
        res = h.post("/v1/ops", json=record("dan", DETAIL, "concise")).json()
        (item,) = res["accepted"]
        assert res["complete"] is False and item["outcome"] is None and item["partition"] >= 0
        again = h.post("/v1/ops?wait=20", json={**record("dan", DETAIL, "concise"), "op_id": item["id"]}).json()
        assert again["accepted"][0]["outcome"] == "applied", "the same op id: the first one's outcome"


def test_a_wait_that_runs_out_says_pending(service: Service, tenant: str) -> None:
    service.stack.stop_worker(service.stack.workers[0])  # nothing is applied until a worker is back
    try:
        with service.http(service.key(tenant)) as h:
            res = h.post("/v1/ops?wait=0.3", json=record("erin", DETAIL, "concise"))
            assert res.status_code == 202
            assert res.json()["complete"] is False and res.json()["accepted"][0]["outcome"] == "pending"
            turn = h.post("/v1/turns?wait=0.3", json={"user": "erin", "text": "I moved to Oslo."}).json()
            assert turn["complete"] is False and turn["accepted"][0]["outcome"] == "pending"
    finally:
        service.stack.add_worker()
    service.stack.barrier(timeout=120)


# --- keys, scopes, tenants ------------------------------------------------------------------------


def test_keys_missing_wrong_revoked_rotated_and_scoped(service: Service, tenant: str) -> None:
    body = {"user": "alice", "query": "x"}
    with service.http() as h:
        assert h.post("/v1/context", json=body).status_code == 401
        assert h.post("/v1/context", json=body, headers={"Authorization": "Bearer ssk_nope_nope"}).status_code == 401
        assert h.post("/v1/context", json=body, headers={"Authorization": "Basic abc"}).status_code == 401
    old_id, old = create_key(service.keys_file, tenant, ["read", "write"])
    with service.http(old) as h:
        assert h.post("/v1/context", json=body).status_code == 200
        assert h.get("/v1/users/alice/export").status_code == 403, "export needs admin"
        assert h.delete("/v1/users/alice").status_code == 403, "erase needs admin"
        erase_op = {"command": {"op": "erase_user", "user": "alice"}}
        assert h.post("/v1/ops", json=erase_op).status_code == 403
    _, new = create_key(service.keys_file, tenant, ["read", "write"])  # rotation: the new key, then revoke
    assert revoke_key(service.keys_file, old_id)
    deadline = time.monotonic() + 10
    while True:
        with service.http(old) as h:
            if h.post("/v1/context", json=body).status_code == 401:
                break
        assert time.monotonic() < deadline, "a revoked key still works (no reload)"
        time.sleep(0.2)
    with service.http(new) as h:
        assert h.post("/v1/context", json=body).status_code == 200
    with service.http(service.key(tenant, "read")) as h:
        assert h.post("/v1/turns", json={"user": "alice", "text": "hi"}).status_code == 403
        assert h.post("/v1/ops", json=record("alice", DETAIL, "concise")).status_code == 403
        assert h.get("/v1/users/alice/memories").status_code == 200


def test_tenants_never_see_or_change_each_other(service: Service) -> None:
    tenants = [f"iso{uuid.uuid4().hex[:6]}" for _ in range(5)]
    keys = {t: service.key(t) for t in tenants}
    for n, t in enumerate(tenants):  # the same user id and the same record id in every tenant
        with service.http(keys[t]) as h:
            res = h.post(
                "/v1/ops?wait=20",
                json={
                    "ops": [
                        record("alice", "knowledge.secret_plan", f"plan-of-{t}", id="r_same"),
                        record("alice", DETAIL, ["concise", "detailed"][n % 2]),
                    ]
                },
            ).json()
            assert res["complete"]
    for t in tenants:
        with service.http(keys[t]) as h:
            others = [f"plan-of-{o}" for o in tenants if o != t]
            ctx = h.post(
                "/v1/context", json={"user": "alice", "query": "plan", "max_items": 50, "explain": True}
            ).json()
            assert f"plan-of-{t}" in ctx["context"] and not any(o in ctx["context"] for o in others)
            assert h.get("/v1/users/alice/memories/r_same").json()["value"] == f"plan-of-{t}"
            text = h.get("/v1/users/alice/export").text + str(h.get("/v1/users/alice/memories").json())
            assert not any(o in text for o in others)
            assert h.get("/v1/users/alice/memories/r_same/history").json()["lineage"][0]["tenant"] == t
            # naming another tenant in the body is refused; the ids a key sends are its tenant's
            other = next(o for o in tenants if o != t)
            crossed = h.post(
                "/v1/ops",
                json={
                    "record": {
                        "tenant": other,
                        "user": "alice",
                        "kind": "knowledge",
                        "attribute": "knowledge.x",
                        "value": "y",
                    }
                },
            )
            assert crossed.status_code == 403 and crossed.json()["reason"] == "tenant_mismatch"
    with service.http(keys[tenants[0]]) as h:
        assert h.delete("/v1/users/alice/memories/r_same?wait=20").json()["accepted"][0]["outcome"] == "applied"
    for t in tenants[1:]:
        with service.http(keys[t]) as h:
            assert h.get("/v1/users/alice/memories/r_same").json()["status"] == "active", "another tenant changed"


# --- bad input, and nothing changed --------------------------------------------------------------------


@pytest.mark.parametrize(
    "path,body,status,reason",
    [
        ("/v1/context", {"user": "alice", "query": "x" * 5000}, 422, "too_large"),
        ("/v1/context", {"user": "al ice", "query": "x"}, 422, "invalid_id"),
        ("/v1/context", {"user": "alice", "max_items": 0}, 422, "value_out_of_range"),
        ("/v1/context", {"user": "alice", "max_chars": 10**7}, 422, "value_out_of_range"),
        ("/v1/context", {"user": "alice", "at": "9999-12-31T00:00:00Z"}, 422, "time_out_of_range"),
        ("/v1/context", {"user": "alice", "surprise": 1}, 422, "invalid_field"),
        ("/v1/turns", {"user": "alice", "text": "x" * 20000}, 422, "too_large"),
        ("/v1/turns", {"user": "alice", "text": "hi", "at": "2150-01-01T00:00:00Z"}, 422, "event_time_in_future"),
        ("/v1/turns", {"user": "alice\n", "text": "hi"}, 422, "invalid_id"),
        ("/v1/turns", {"turns": []}, 422, "value_out_of_range"),
        (
            "/v1/ops",
            {"record": {"user": "alice", "kind": "knowledge", "attribute": "knowledge.a|b", "value": "v"}},
            422,
            "invalid_attribute",
        ),
        (
            "/v1/ops",
            {
                "record": {
                    "user": "alice",
                    "kind": "knowledge",
                    "attribute": "account.password",
                    "value": "correct horse",
                }
            },
            422,
            "secret_value",
        ),
        (
            "/v1/ops",
            {
                "ops": [
                    {"record": {"user": "alice", "kind": "knowledge", "attribute": "knowledge.ok", "value": "v"}},
                    {"record": {"user": "alice", "kind": "nonsense", "attribute": "knowledge.x", "value": "v"}},
                ]
            },
            422,
            "unknown_kind",
        ),
        ("/v1/ops", {"command": {"op": "explode", "user": "alice"}}, 422, "unknown_command"),
        ("/v1/ops", {}, 422, "missing_field"),
    ],
)
def test_bad_input_gets_its_reason_and_changes_nothing(
    service: Service, tenant: str, path: str, body: Any, status: int, reason: str
) -> None:
    with service.http(service.key(tenant)) as h:
        before = service.ends()
        res = h.post(path, json=body)
        assert (res.status_code, res.json()["reason"]) == (status, reason), res.text
        assert service.ends() == before, "a refused request produced something"
        assert h.get("/v1/users/alice/memories").json()["items"] == []


def test_oversized_and_malformed_bodies(service: Service, tenant: str) -> None:
    with service.http(service.key(tenant)) as h:
        before = service.ends()
        big = h.post(
            "/v1/turns",
            content=b'{"user": "alice", "text": "' + b"x" * 2_000_000 + b'"}',
            headers={"Content-Type": "application/json"},
        )
        assert big.status_code == 413 and big.json()["reason"] == "too_large"
        big_query = h.post("/v1/context", content=b'{"user": "alice", "query": "' + b"x" * 2_000_000 + b'"}')
        assert big_query.status_code == 413 and big_query.json()["reason"] == "too_large"
        assert h.get("/v1/context").status_code == 405 and h.get("/v1/context").headers["allow"] == "POST"
        no_key = httpx.post(service.url + "/v1/context", content=b'{"user": ')
        assert no_key.status_code == 401, "the key is checked before the body is read"
        broken = h.post("/v1/context", content=b'{"user": ', headers={"Content-Type": "application/json"})
        assert broken.status_code == 422 and broken.json()["reason"] == "invalid_json"
        assert h.get("/v1/users/al%20ice/memories").status_code == 422
        correct = "/v1/users/alice/memories/r_1/correct"
        for method, path, body, reason, field in [
            ("GET", "/v1/users/alice/memories?limit=1000", None, "value_out_of_range", "limit"),
            ("POST", "/v1/ops?wait=999", record("alice", DETAIL, "concise"), "value_out_of_range", "wait"),
            ("POST", correct, {"value": "v", "statement": "s" * 3000}, "too_large", "statement"),
            ("POST", correct, {"value": "sk-live-" + "a" * 40}, "secret_value", None),
            ("POST", correct, {}, "missing_field", "value"),
            ("DELETE", "/v1/users/alice/memories/" + "r" * 200, None, "too_large", "record_id"),
        ]:
            res = h.request(method, path, json=body)
            assert (res.status_code, res.json()["reason"]) == (422, reason), (path, res.text)
            assert field is None or res.json()["field"] == field, res.text
        assert service.ends() == before


def test_a_tenant_over_its_rate_gets_429_and_others_do_not(
    kafka_bootstrap: str, redis_url: str, tmp_path: Path
) -> None:
    svc = start_service(
        kafka_bootstrap, redis_url, tmp_path, f"rl-{uuid.uuid4().hex[:6]}", rate_limit=20.0, rate_burst=10.0
    )
    try:
        noisy, quiet = svc.key("noisy"), svc.key("quiet")
        statuses = []
        with svc.http(noisy) as h:
            for _ in range(40):
                res = h.post("/v1/context", json={"user": "alice", "query": "x"})
                statuses.append(res.status_code)
                if res.status_code == 429:
                    assert int(res.headers["Retry-After"]) >= 1 and res.json()["reason"] == "rate_limited"
        assert 429 in statuses and statuses[0] == 200
        with svc.http(quiet) as h:
            assert h.post("/v1/context", json={"user": "alice", "query": "x"}).status_code == 200
        with Client(svc.url, noisy, backoff=0.05) as client:  # the client waits out a 429
            assert client.context("alice", "x").context == ""
    finally:
        svc.stack.stop()


# --- metrics ------------------------------------------------------------------------------------


def test_metrics_cover_requests_production_lag_outcomes_and_dead_letters(service: Service, tenant: str) -> None:
    with service.http(service.key(tenant)) as h:
        h.post("/v1/ops?wait=20", json=record("fay", DETAIL, "concise"))
        h.post("/v1/context", json={"user": "fay", "query": "x"})
    service.stack.producer.send_raw(OPS, b"x/y", b"{not json").get(timeout=30)
    service.stack.producer.flush()
    service.stack.barrier()
    text = httpx.get(service.url + "/metrics").text
    assert 'slotstream_http_requests_total{method="POST",route="/v1/context",status="200"}' in text
    assert "slotstream_http_request_seconds_bucket" in text
    assert 'slotstream_produced_total{topic="ops"}' in text
    assert 'slotstream_ops_applied_total{outcome="applied"}' in text
    assert 'slotstream_dead_letters_total{reason="invalid_json"}' in text
    assert 'slotstream_consumer_lag{partition="0",topic="' in text
    assert 'slotstream_context_reads_total{how="whole_small"}' in text  # one row: read whole


# --- the client ------------------------------------------------------------------------------------


def test_the_client_against_the_service(service: Service, tenant: str) -> None:
    key = service.key(tenant)
    with Client(service.url, key) as c:
        sent = c.send_turns([{"user": "gus", "session": "s1", "text": "Please keep your answers short."}], wait=20)
        assert sent.complete and sent.accepted[0].ops and sent.accepted[0].ops[0].outcome == "applied"
        ctx = c.context("gus", "how to answer", session="s1", explain=True)
        assert "concise" in ctx.context and ctx.excluded == []
        (rec,) = c.memories("gus").items
        assert c.memory("gus", rec["id"]).value == "concise"
        assert c.correct("gus", rec["id"], "detailed", wait=20).complete
        assert [r["value"] for r in c.history("gus", rec["id"]).lineage] == ["concise", "detailed"]
        ops = c.send_ops([record("gus", "knowledge.lang", "python")], wait=20)
        assert ops.accepted[0].outcome == "applied"
        assert any(row["type"] == "record" for row in c.export("gus"))
        with pytest.raises(SidecarRequestError) as err:
            c.memory("gus", "r_missing")
        assert err.value.status == 404
        assert c.ready()

    async def run_async() -> None:
        async with AsyncClient(service.url, key) as ac:
            res = await ac.send_turns([{"user": "hal", "text": "I moved to Rome."}], wait=20)
            assert res.complete
            assert "Rome" in (await ac.context("hal", "where")).context
            (rec,) = (await ac.memories("hal")).items
            assert (await ac.forget("hal", rec["id"], wait=20)).complete
            assert "Rome" not in (await ac.context("hal", "where")).context
            assert [row async for row in ac.export("hal")]
            assert (await ac.erase("hal", wait=20)).complete

    asyncio.run(run_async())


@contextmanager
def sidecar_process(settings: Settings, log_path: Path, until: str = "/readyz") -> Iterator[str]:
    """`slotstream sidecar` on its own, with `settings`; yields its URL once `until` answers 200."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLOTSTREAM_")} | settings.to_env()
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-P", "-m", "slotstream.cli", "sidecar"], env=env, stdout=log, stderr=subprocess.STDOUT
        )
        url = f"http://{settings.sidecar_host}:{settings.sidecar_port}"
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    if httpx.get(url + until).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                assert time.monotonic() < deadline and proc.poll() is None, log_path.read_text()
                time.sleep(0.1)
            yield url
        finally:
            proc.terminate()
            proc.wait(15)


def test_reads_on_a_thread_pool_answer_the_same_as_async_reads(service: Service, tenant: str, tmp_path: Path) -> None:
    key = service.key(tenant)
    with Client(service.url, key) as c:
        c.send_ops([record("ida", DETAIL, "concise"), record("ida", "knowledge.db", "postgres")], wait=20)
        expected = c.context("ida", "database", explain=True, at="2026-12-01T00:00:00Z")
    settings = service.stack.settings.replace(sidecar_port=free_port(), sidecar_read="thread", sidecar_workers=1)
    with sidecar_process(settings, tmp_path / "thread-sidecar.log") as url, Client(url, key) as c:
        got = c.context("ida", "database", explain=True, at="2026-12-01T00:00:00Z")
    assert (got.context, got.used_ids, got.excluded) == (expected.context, expected.used_ids, expected.excluded)


# --- outages ---------------------------------------------------------------------------------------


def test_without_kafka_reads_work_and_ingest_says_503(service: Service, tenant: str, tmp_path: Path) -> None:
    key = service.key(tenant)
    with Client(service.url, key) as c:
        c.send_ops([record("jo", "knowledge.db", "postgres")], wait=20)
    nowhere = f"127.0.0.1:{free_port()}"  # nothing listens there
    settings = service.stack.settings.replace(sidecar_port=free_port(), kafka_bootstrap=nowhere, sidecar_workers=1)
    with sidecar_process(settings, tmp_path / "no-kafka.log", until="/healthz") as url, service.http(key) as h:
        h.base_url = httpx.URL(url)
        ready = h.get("/readyz")
        assert ready.status_code == 503 and ready.json()["waiting_for"] == ["kafka"]
        assert "postgres" in h.post("/v1/context", json={"user": "jo", "query": "db"}).json()["context"]
        before = service.ends()
        refused = h.post("/v1/turns", json={"user": "jo", "text": "I moved to Oslo."})
        assert refused.status_code == 503 and refused.json()["reason"] == "kafka_unavailable"
        assert int(refused.headers["Retry-After"]) >= 1
        assert service.ends() == before


def test_a_redis_outage_is_503_then_served_again_and_writes_meanwhile_are_kept(
    kafka_bootstrap: str, tmp_path: Path
) -> None:
    redis = LocalRedis(data_dir=tmp_path / "redis").start()
    # one server process: a write while Redis is away is sealed with the user's key the process
    # holds from an earlier write; a second process that never wrote for this user would need
    # Redis for the key and answer 503 (docs/sidecar.md, "Outages")
    svc = start_service(kafka_bootstrap, redis.url, tmp_path, f"ro-{uuid.uuid4().hex[:6]}", sidecar_workers=1)
    try:
        key = svc.key("acme")
        # the first write through the client, which retries a 503 while the new stack's producer
        # is still connecting (under a full suite's load it can be)
        with Client(svc.url, key, retries=8, backoff=0.2) as c:
            assert c.send_ops([record("kim", "knowledge.db", "postgres")], wait=20).complete
        with svc.http(key) as h:
            redis.halt()
            down = h.post("/v1/context", json={"user": "kim", "query": "db"})
            assert down.status_code == 503 and down.json()["reason"] == "redis_unavailable", down.text
            assert int(down.headers["Retry-After"]) >= 1
            ready = h.get("/readyz")
            assert ready.status_code == 503 and "redis" in ready.json()["waiting_for"], ready.text
            assert h.get("/healthz").status_code == 200
            # Kafka is up: a write is taken now and applied once Redis is back
            taken = h.post("/v1/ops", json=record("kim", "knowledge.editor", "helix"))
            assert taken.status_code == 202, taken.text
            op_id = taken.json()["accepted"][0]["id"]
        threading.Timer(2.0, redis.start).start()
        with Client(svc.url, key, retries=8, backoff=0.2) as c:  # rides out the rest of the outage
            assert "postgres" in c.context("kim", "db").context
            again = c.send_ops([{**record("kim", "knowledge.editor", "helix"), "op_id": op_id}], wait=30)
            assert again.accepted[0].outcome == "applied"
            assert "helix" in c.context("kim", "editor", max_items=20).context
    finally:
        svc.stack.stop()
        redis.stop()


def test_a_stored_record_that_does_not_decode_is_a_500_naming_it_and_the_others_still_answer(
    service: Service, tenant: str
) -> None:
    with service.http(service.key(tenant)) as h:
        res = h.post(
            "/v1/ops?wait=20",
            json={"ops": [record("dora", DETAIL, "concise"), record("dora", "knowledge.editor", "vim")]},
        ).json()
        assert [a["outcome"] for a in res["accepted"]] == ["applied"] * 2
        ids = {m["attribute"]: m["id"] for m in h.get("/v1/users/dora/memories").json()["items"]}
        # the editor's record damaged in Redis: a byte no stored form starts with, then JSON that
        # is not a record
        keys = Keys(service.stack.settings.namespace)
        for damaged in (b"\xc1\x00\x01", b'{"id": 3}'):
            service.stack.client.hset(keys.records(tenant, "dora"), ids["knowledge.editor"], damaged)
            broken = h.get(f"/v1/users/dora/memories/{ids['knowledge.editor']}")
            assert broken.status_code == 500, (broken.status_code, broken.text)
            assert broken.json()["reason"] == "stored_state_unreadable", broken.text
            assert h.get(f"/v1/users/dora/memories/{ids[DETAIL]}").json()["value"] == "concise"
