"""Rule 7 end to end: secrets said in turns, written as values, or named in a forget or a correct
reach neither Redis nor any topic (sealed payloads opened with their users' keys to look), while an
ordinary commit hash in a statement is remembered."""

from __future__ import annotations

import uuid
from typing import Any

import orjson
from kafka import KafkaProducer

from slotstream.config.master_key import user_keys
from slotstream.memory.sealing import is_sealed, key_id, open_sealed
from slotstream.state.digest import user_state
from slotstream.state.keys import Keys
from slotstream.streams.topics import ALL, DLQ, OPS, user_key

from support import Service, read_topic, record, wait_until


def op(tenant: str, attribute: str, value: Any) -> dict[str, Any]:
    return {"record": record(tenant, "sam", attribute, value)}


# a cloud secret key four characters past the standard 40, and one of Chinese talk
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY0aB1"
ZH_SECRET = "Xk9mP2vL8qR4tZ7wN3bY6cH1jD5fQa"
BARE = "3lNVVyHPXlX4oODcMyzpY8nmhypMA7aJTp2dGV"  # a value that is itself a key
PASSWORD = "Sunbeam_4412x"
FORGET_KEY = "M4CoossxrSUehgoB4vdc8G7r77QfyW12mfBn"
WORKER_KEY = "q8Zr2LmX7vTn4KpW9sYd3HbF6jCg1NaE0u"
COMMIT = "3f9a2b1c4d5e6f708192a3b4c5d6e7f8091a2b3c"
SECRETS = (AWS_SECRET, ZH_SECRET, BARE, PASSWORD, FORGET_KEY)


def _opened_topic_values(service: Service, tenant: str) -> list[tuple[str, bytes]]:
    """Every record value of every topic of the pipeline (with the topic's role), sealed ones
    opened with their user's key."""
    stack = service.stack
    held: dict[str, bytes] = {}
    for user in ("sam", "lin"):
        held.update(user_keys(stack.settings, stack.client).keys_of([(tenant, user)])[(tenant, user)])
    out: list[tuple[str, bytes]] = []
    for role in ALL:
        for rec in read_topic(stack, role):
            value = rec.value or b""
            if is_sealed(value) and key_id(value) in held and rec.key:
                value = open_sealed(held[key_id(value)], rec.key, value)
            out.append((role, value))
    return out


def test_secrets_reach_no_state_and_no_topic_and_a_commit_hash_is_kept(service: Service, tenant: str) -> None:
    stack = service.stack
    with service.http(service.key(tenant)) as h:
        turns = [
            f"My aws secret {AWS_SECRET} is for the backup bucket.",
            f"我的阿里云密钥 {ZH_SECRET} 别忘了。",
            f"{PASSWORD} — that's the new password for the school portal.",
            f"We decided to pin the release to commit {COMMIT}.",
        ]
        sent = h.post("/v1/turns?wait=30", json={"turns": [{"user": "sam", "session": "s1", "text": t} for t in turns]})
        assert sent.status_code == 202 and sent.json()["complete"] is True, sent.text
        assert [a["refused"] for a in sent.json()["accepted"][:3]] == [["secret_value"]] * 3
        stored = h.post("/v1/ops?wait=20", json={"ops": [op(tenant, "knowledge.bucket", "backups-eu")]})
        assert stored.status_code == 202 and stored.json()["complete"] is True, stored.text
        memories = h.get("/v1/users/sam/memories").json()["items"]
        bucket = next(m for m in memories if m["attribute"] == "knowledge.bucket")

        # refused at the door, each with the reason code: nothing is produced
        before = service.ends()
        refusals = [
            ("POST", "/v1/ops", {"ops": [op(tenant, "knowledge.note", BARE)]}),
            ("POST", "/v1/ops", {"ops": [op(tenant, "knowledge.note", f"aws secret {AWS_SECRET}")]}),
            (
                "POST",
                "/v1/ops",
                {
                    "ops": [
                        {
                            "command": {
                                "op": "forget",
                                "user": "sam",
                                "match": {"attribute": "knowledge.bucket", "value": FORGET_KEY},
                            }
                        }
                    ]
                },
            ),
            ("POST", f"/v1/users/sam/memories/{bucket['id']}/correct", {"value": FORGET_KEY}),
        ]
        for method, path, body in refusals:
            res = h.request(method, path, json=body)
            assert (res.status_code, res.json()["reason"]) == (422, "secret_value"), (path, res.text)
            assert FORGET_KEY not in res.text and BARE not in res.text and AWS_SECRET not in res.text
        assert service.ends() == before

    # a forget that reaches the worker past the door (another producer) is dead-lettered, its value not kept
    forget = {
        "at": "2026-01-01T00:00:00Z",
        "op_id": f"raw-{uuid.uuid4().hex[:8]}",
        "command": {
            "op": "forget",
            "tenant": tenant,
            "user": "lin",
            "match": {"attribute": "knowledge.bucket", "value": WORKER_KEY},
        },
    }
    producer = KafkaProducer(bootstrap_servers=stack.bootstrap)
    producer.send(stack.settings.topics[OPS], key=user_key(tenant, "lin"), value=orjson.dumps(forget)).get(30)
    producer.close()

    def dead_letter() -> dict[str, Any] | None:
        letters = [rec for rec in read_topic(stack, DLQ) if rec.key == user_key(tenant, "lin")]
        return dict(orjson.loads(letters[0].value)) if letters else None

    dead = wait_until(dead_letter, 60, "the forget's dead letter")
    assert dead["reason"] == "secret_value" and dead["excerpt"] is None

    # nothing of any secret in Redis or in any topic; the commit hash is remembered
    keys = Keys(stack.settings.namespace)
    state = orjson.dumps(
        [user_state(stack.client, keys, tenant, user) for user in ("sam", "lin")], default=str
    ).decode()
    assert COMMIT in state and "backups-eu" in state
    values = _opened_topic_values(service, tenant)
    assert any(COMMIT.encode() in v for _, v in values)
    assert not any(is_sealed(v) for _, v in values), "every sealed payload was opened and searched"
    for secret in SECRETS:
        assert secret not in state, secret
        assert not any(secret.encode() in v for _, v in values), secret
    # the forget produced past the door stays only where that producer wrote it
    assert WORKER_KEY not in state
    assert [role for role, v in values if WORKER_KEY.encode() in v] == [OPS]
