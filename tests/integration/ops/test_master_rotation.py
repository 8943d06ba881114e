"""Master-key rotation on a running pipeline (worker, two sidecar processes, real Redis and
Kafka): `slotstream keys rotate-master --generate --retire` wraps every data key with a new master
key while turns keep coming; afterwards the new key alone opens every data key, in Redis and in the
keys topic, and every sealed payload of a user not erased; an erase in the middle still holds.

The deployment's data keys and wrapping pointer are shared by every namespace of a Redis, so this
module runs on a Redis of its own."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from slotstream.config.master_key import add_master_key, master_keys, master_ring, user_keys
from slotstream.local.redis_server import LocalRedis
from slotstream.memory.sealing import fingerprint, is_sealed, key_id, open_sealed
from slotstream.ops.master_rotation import rotate
from slotstream.processors.sealed import owner
from slotstream.state.client import connect
from slotstream.state.keys import all_user_data_keys, master_pointer, user_data_keys
from slotstream.state.user_keys import MasterRing, UserKeys, record_key
from slotstream.streams.log_reader import log_consumer, read_whole
from slotstream.streams.producer import SlotstreamProducer
from slotstream.streams.topics import KEYS, OPS, TURNS

from support import Service, start_service

pytestmark = [pytest.mark.kafka, pytest.mark.integration]


@pytest.fixture(scope="module")
def own_redis() -> Iterator[LocalRedis]:
    with LocalRedis() as server:
        yield server


@pytest.fixture(scope="module")
def service(kafka_bootstrap: str, own_redis: LocalRedis, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    folder = tmp_path_factory.mktemp("rotation")
    svc = start_service(
        kafka_bootstrap,
        own_redis.url,
        folder,
        f"rot-{uuid.uuid4().hex[:6]}",
        master_key_file=str(folder / "master.key"),
    )
    yield svc
    svc.stack.stop()


def remember(http: Any, user: str, value: str) -> None:
    answer = http.post("/v1/ops?wait=30", json={"record": {"user": user, "attribute": "profile.diet", "value": value}})
    assert answer.status_code < 300 and answer.json()["accepted"][0]["outcome"] == "applied", answer.text


def context_values(http: Any, user: str) -> list[str]:
    """The values the user's next context holds (read through their data, opened with their key)."""
    answer = http.post("/v1/context", json={"user": user, "query": "what should I cook tonight?"})
    assert answer.status_code == 200, answer.text
    return [line["value"] for lines in answer.json()["sections"].values() for line in lines]


def every_data_key(client: redis.Redis) -> dict[str, dict[str, bytes]]:
    out = {}
    for name in client.scan_iter(match=all_user_data_keys()):
        held = client.hgetall(name)
        out[name.decode()] = {k.decode(): v for k, v in held.items() if k != b"current"}
    return out


def sealed_payloads(service: Service) -> list[tuple[bytes, bytes]]:
    settings = service.stack.settings
    consumer = log_consumer(settings.kafka_bootstrap)
    try:
        return [
            (key, value)
            for role in (TURNS, OPS)
            for key, value in read_whole(consumer, settings.topic_specs()[role].name)
            if value is not None and is_sealed(value)
        ]
    finally:
        consumer.close()


def keys_topic(service: Service) -> list[tuple[bytes, bytes | None]]:
    settings = service.stack.settings
    consumer = log_consumer(settings.kafka_bootstrap)
    try:
        return list(read_whole(consumer, settings.topic_specs()[KEYS].name))
    finally:
        consumer.close()


def cli(service: Service, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLOTSTREAM_")}
    env.update(service.stack.settings.to_env())
    return subprocess.run(
        [sys.executable, "-P", "-m", "slotstream.cli", *args], env=env, capture_output=True, text=True, timeout=300
    )


def test_rotation_while_turns_keep_coming_leaves_nothing_unreadable(service: Service, own_redis: LocalRedis) -> None:
    tenant = f"t{uuid.uuid4().hex[:6]}"
    settings = service.stack.settings
    client = connect(own_redis.url)
    old = master_keys(settings)
    assert len(old) == 1
    with service.http(service.key(tenant)) as http:
        for n in range(12):
            remember(http, f"before{n}", f"diet {n}")
        # an erased user's payloads stay in the log; they must stay unreadable
        assert http.delete("/v1/users/before0?wait=30").json()["accepted"][0]["outcome"] == "applied"

        stop = threading.Event()
        during: list[str] = []

        def keep_talking() -> None:
            with service.http(service.key(tenant)) as talker:
                n = 0
                while not stop.is_set():
                    remember(talker, f"during{n}", f"diet during {n}")
                    during.append(f"during{n}")
                    n += 1

        talker = threading.Thread(target=keep_talking)
        talker.start()
        try:
            done = cli(service, "keys", "rotate-master", "--generate", "--retire")
        finally:
            stop.set()
            talker.join(timeout=60)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "complete: every data key is wrapped with" in done.stdout
        assert during, "no turn was ingested during the rotation"

        # the key file now holds the new key alone; a ring of it alone opens everything
        new = master_keys(settings)
        assert len(new) == 1 and new[0] not in old
        assert client.get(master_pointer()) == fingerprint(new[0]).encode()
        alone = UserKeys(client, MasterRing(new))
        held = every_data_key(client)
        assert len(held) >= 12 + len(during) - 1
        opened = alone.keys_of([pair for pair in (owner_of(name) for name in held) if pair is not None])
        assert all(opened.values())

        # every sealed payload in the log of a user not erased opens with the new key alone
        payloads = sealed_payloads(service)
        assert payloads
        for key, value in payloads:
            pair = owner(key)
            assert pair is not None
            if pair[1] == "before0":
                assert key_id(value) not in opened.get(pair, {})
                continue
            open_sealed(opened[pair][key_id(value)], key, value)

        # the keys topic's last word on each key is a form the new key opens, or the erasure
        for name in list(held):
            client.delete(name)
        assert alone.restore(keys_topic(service)) == sum(len(v) for v in held.values())
        assert every_data_key(client) == held
        assert not client.exists(user_data_keys(tenant, "before0"))

        # the running worker and sidecar go on: they took the new key from the file
        remember(http, "after", "diet after")
        assert "diet after" in context_values(http, "after")
        assert "diet 5" in context_values(http, "before5")
        assert "diet 0" not in context_values(http, "before0")
    client.close()


def owner_of(name: str) -> tuple[str, str] | None:
    from slotstream.state.keys import user_of_data_keys

    return user_of_data_keys(name)


def test_an_erase_in_the_middle_of_a_rotation_holds(service: Service, own_redis: LocalRedis) -> None:
    tenant = f"t{uuid.uuid4().hex[:6]}"
    settings = service.stack.settings
    client = connect(own_redis.url)
    with service.http(service.key(tenant)) as http:
        for user in ("keep", "gone"):
            remember(http, user, f"diet of {user}")
        add_master_key(settings)
        keys = UserKeys(client, master_ring(settings))
        producer = SlotstreamProducer(settings.kafka_bootstrap, settings.topic_prefix)
        doomed = record_key(tenant, "gone", "")[:-1]  # the prefix of the user's keys-topic records
        erased: list[bytes] = []

        def send(key: bytes, stored: bytes | None) -> None:
            producer.send_raw(KEYS, key, stored)
            if stored is not None and key.startswith(doomed) and not erased:
                # the rotation has sent the new form, not yet swapped it in: erase the user now
                assert http.delete("/v1/users/gone?wait=30").json()["accepted"][0]["outcome"] == "applied"
                # the worker shreds the keys once the batch's output is delivered, a moment after
                # the erasure's outcome is readable: the rotation's swap must come after that
                deadline = time.monotonic() + 30
                while client.exists(user_data_keys(tenant, "gone")) and time.monotonic() < deadline:
                    time.sleep(0.02)
                erased.append(key)

        try:
            report = rotate(keys, send, lambda: producer.flush())
        finally:
            producer.close()
        assert erased and report.complete and report.erased_meanwhile >= 1
        assert not client.exists(user_data_keys(tenant, "gone"))
        # the keys topic's last record of the erased key is its tombstone: a restore brings it not back
        records = keys_topic(service)
        last = {key: stored for key, stored in records}
        assert last[erased[0]] is None
        client.delete(user_data_keys(tenant, "keep"))
        user_keys(settings, client).restore(records)
        assert not client.exists(user_data_keys(tenant, "gone"))
        assert client.exists(user_data_keys(tenant, "keep"))
        assert context_values(http, "gone") == []
        assert "diet of keep" in context_values(http, "keep")
    client.close()
