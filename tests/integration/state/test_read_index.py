"""The read index on a real Redis (state/read_index.py, context.lua): an indexed lookup answers
exactly as a whole read does, over random users, scopes, eligibility and requests; the index
follows the read model through corrections, forgets, moves and erasure; a scope the index does not
cover is read whole, and an answer the index cannot certify is read again whole — both counted."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import redis

from slotstream.memory.models import ContextRequest, iso
from slotstream.state import read_index
from slotstream.state.engine import Engine
from slotstream.state.keys import Keys
from slotstream.state.read_index import per_list

pytestmark = pytest.mark.integration

T0 = datetime(2024, 1, 1, tzinfo=UTC)
WORDS = ["api", "latency", "budget", "deploy", "review", "design", "client", "invoice", "roadmap", "hiring"]
WORDS += ["security", "backup", "数据库", "预算"]
REQUEST_ONLY_WORDS = ["dinner", "recipe", "trip", "what", "did", "we", "decide"]
SINGLE = ["preference.response.detail", "preference.language", "profile.home_city", "priority.focus"]
MULTI = ["goal.main", "rule.confirm_before"]
EVERYDAY = ["profile.diet", "profile.allergies", "profile.pets", "preference.travel.seat"]
EVERY_READ = 1 << 62


def _engines(client: redis.Redis, namespace: str) -> tuple[Engine, Engine]:
    """One engine that reads through the index whatever the size, one that always reads whole."""
    # every scope indexed from its first row, so that small scopes test the indexed read too
    return (
        Engine(client, namespace, read_whole_up_to=0, index_above=0),
        Engine(client, namespace, read_whole_up_to=EVERY_READ, index_above=0),
    )


def _random_record(rng: random.Random, user: str, i: int) -> dict[str, Any]:
    kind = rng.random()
    words = " ".join(rng.sample(WORDS, 3))
    scope = rng.choice(["global", "global", "global", "project:p1", "session:s1", "project:p2"])
    body: dict[str, Any] = {
        "tenant": "t1",
        "user": user,
        "scope": scope,
        "importance": round(rng.random(), 2),
        "statement": f"Note {i}: {words}.",
        "evidence": [{"source_type": "conversation", "source_id": f"turn-{i}"}],
    }
    if kind < 0.45:
        body.update(kind="knowledge", attribute=f"knowledge.item_{i % 40}", value=f"{words} {i}")
    elif kind < 0.65:
        body.update(attribute=rng.choice(SINGLE), value=f"{rng.choice(WORDS)} {i}")
    elif kind < 0.8:
        body.update(attribute=rng.choice(MULTI), value=f"{words} {i}")
    else:
        body.update(attribute=rng.choice(EVERYDAY), value=f"{rng.choice(WORDS)} {i}")
    if rng.random() < 0.15:
        body["valid_until"] = iso(T0 + timedelta(hours=rng.randrange(1, 72)))
    if rng.random() < 0.1:
        body["sensitivity"] = "personal"
    if rng.random() < 0.1:
        body["audience"] = [rng.choice(["role:finance", "role:support"])]
    return body


def _random_request(rng: random.Random, user: str) -> ContextRequest:
    text = " ".join(rng.sample([*WORDS, *REQUEST_ONLY_WORDS], rng.randrange(0, 6)))
    return ContextRequest(
        tenant="t1",
        user=user,
        text=text,
        project=rng.choice([None, "p1", "p2"]),
        session=rng.choice([None, "s1"]),
        max_items=rng.randrange(1, 12),
        max_chars=rng.choice([300, 2000]),
        allow_personal=rng.random() < 0.5,
        roles=rng.choice([[], ["role:finance"]]),
        overrides=rng.choice([{}, {"preference.language": "German"}]),
    )


def _index_matches_read_model(client: redis.Redis, keys: Keys, user: str) -> None:
    prefix = keys.prefix("t1", user)
    for raw_scope in client.smembers(f"{prefix}:scopes"):
        scope = raw_scope.decode()
        rows = set(client.hkeys(keys.active("t1", user, scope)))
        assert set(client.zrange(keys.read_index("t1", user, scope, "ixs"), 0, -1)) == rows, scope
        assert set(client.hkeys(keys.read_index("t1", user, scope, "ix"))) == rows, scope


@pytest.mark.parametrize("seed", range(6))
def test_indexed_lookups_answer_exactly_as_whole_reads(redis_client, namespace, seed):
    rng = random.Random(seed)
    indexed, whole = _engines(redis_client, namespace)
    user = f"u{seed}"
    ops: list[dict[str, Any]] = []
    for i in range(rng.choice([30, 300])):
        body = _random_record(rng, user, i)
        if i > 5 and rng.random() < 0.1:
            body["corrects_current"] = True
        ops.append({"at": iso(T0 + timedelta(minutes=i)), "op_id": f"o{i}", "record": body})
    indexed.apply_many(ops)
    indexed.apply_many(
        [
            {
                "at": iso(T0 + timedelta(hours=6)),
                "op_id": "forget",
                "command": {"op": "forget", "tenant": "t1", "user": user, "match": {"attribute": "goal.main"}},
            }
        ]
    )
    _index_matches_read_model(redis_client, indexed.keys, user)
    for _ in range(60):
        req = _random_request(rng, user)
        when = T0 + timedelta(hours=rng.randrange(0, 96))
        assert indexed.context(req, when).model_dump() == whole.context(req, when).model_dump(), req
    stats = indexed.read_stats.as_dict()
    assert stats["indexed"] + stats["uncertified"] == 60 and stats["indexed"] > 0, stats


def test_a_lookup_through_the_index_reads_only_the_best_rows(redis_client, namespace):
    """1,000 records, each with 3 of 12 words (so each query word is on a quarter of them): the
    budget of 8 is answered from at most 2 x per_list rows, certified, as the whole read answers."""
    indexed, whole = _engines(redis_client, namespace)
    rng = random.Random(17)
    words = WORDS[:12]
    ops = []
    for i in range(1000):
        chosen = " ".join(rng.sample(words, 3))
        record = {"tenant": "t1", "user": "big", "kind": "knowledge", "attribute": f"knowledge.item_{i}"}
        record |= {"value": f"{chosen} {i}", "statement": f"Decision {i}: {chosen}.", "importance": rng.random()}
        ops.append({"at": iso(T0), "op_id": f"o{i}", "record": record})
    indexed.apply_many(ops)
    when = T0 + timedelta(days=1)
    for text in ["what did we decide about the api latency budget", "deploy review", ""]:
        req = ContextRequest(tenant="t1", user="big", text=text, max_items=8)
        before = indexed.read_stats.as_dict()
        assert indexed.context(req, when) == whole.context(req, when), text
        after = indexed.read_stats.as_dict()
        assert after["indexed"] - before["indexed"] == 1 and after["uncertified"] == 0, (text, after)
        assert after["rows"] - before["rows"] <= 2 * per_list(8), (text, after["rows"] - before["rows"])


def test_the_index_follows_moves_and_is_erased_with_the_user(redis_client, namespace):
    indexed, whole = _engines(redis_client, namespace)
    rng = random.Random(5)
    ops = [{"at": iso(T0), "op_id": f"o{i}", "record": _random_record(rng, "mover", i)} for i in range(40)]
    seat = {"tenant": "t1", "user": "mover", "attribute": "preference.travel.seat", "value": "window"}
    ops.append({"at": iso(T0), "op_id": "seat", "record": seat})
    indexed.apply_many(ops)
    move = {"op": "move", "tenant": "t1", "user": "mover", "attribute": "preference.travel.seat"}
    move |= {"from_scope": "global", "to_scope": "project:p1"}
    result = indexed.apply({"at": iso(T0 + timedelta(minutes=1)), "op_id": "move", "command": move})
    assert result.outcome == "applied", result
    _index_matches_read_model(redis_client, indexed.keys, "mover")
    req = ContextRequest(tenant="t1", user="mover", text="window seat for my trip", project="p1", max_items=3)
    assert indexed.context(req, T0 + timedelta(days=1)) == whole.context(req, T0 + timedelta(days=1))

    erase = {"op": "erase_user", "tenant": "t1", "user": "mover"}
    indexed.apply({"at": iso(T0 + timedelta(minutes=2)), "op_id": "erase", "command": erase})
    prefix = indexed.keys.prefix("t1", "mover")
    left = [k.decode() for k in redis_client.scan_iter(match=f"{prefix}:ix*")]
    assert left == []


def test_an_unindexed_scope_is_read_whole_and_an_uncertified_answer_again_whole(redis_client, namespace):
    indexed, whole = _engines(redis_client, namespace)
    rng = random.Random(3)
    ops = [
        {"at": iso(T0), "op_id": f"o{i}", "record": _random_record(rng, "u", i) | {"scope": "global"}}
        for i in range(60)
    ]
    # the 30 most important rows have expired by the time of the request: the best rows the index
    # offers are not usable, so the budget does not fill from them and the answer is not certified
    for i, op in enumerate(ops):
        op["record"].pop("audience", None)
        op["record"].pop("sensitivity", None)
        op["record"]["importance"] = 1.0 if i < 30 else 0.1
        op["record"]["valid_until"] = iso(T0 + timedelta(hours=1)) if i < 30 else None
    indexed.apply_many(ops)
    req = ContextRequest(tenant="t1", user="u", text="", max_items=8)
    when = T0 + timedelta(days=1)
    assert indexed.context(req, when) == whole.context(req, when)
    assert indexed.read_stats.uncertified == 1 and indexed.read_stats.indexed == 0

    # rows written before the index existed: its sorted set does not cover the read model
    redis_client.delete(indexed.keys.read_index("t1", "u", "global", "ixs"))
    assert indexed.context(req, when) == whole.context(req, when)
    assert indexed.read_stats.whole_unindexed == 1


def test_suppressions_a_lookup_reads_skip_values_corrected_away_and_survive_an_upgrade(redis_client, namespace):
    indexed, whole = _engines(redis_client, namespace)
    detail = "preference.response.detail"
    versions = [
        {
            "at": iso(T0 + timedelta(minutes=i)),
            "op_id": f"v{i}",
            "record": {
                "tenant": "t1",
                "user": "u",
                "attribute": detail,
                "value": f"style {i}",
                "corrects_current": i > 0,
            },
        }
        for i in range(30)
    ]
    forget = {"op": "forget", "tenant": "t1", "user": "u", "match": {"attribute": "goal.main"}}
    indexed.apply_many([*versions, {"at": iso(T0 + timedelta(hours=1)), "op_id": "f", "command": forget}])
    # 29 corrections and one forget are kept; a lookup reads only the forget's
    rsup = indexed.keys.read_suppressions("t1", "u")
    assert redis_client.hlen(indexed.keys.suppressions("t1", "u")) == 30 and redis_client.hlen(rsup) == 1
    req = ContextRequest(tenant="t1", user="u", text="style")
    when = T0 + timedelta(days=1)
    expected = whole.context(req, when)
    assert expected.used_ids and indexed.context(req, when) == expected

    # state written before rsup existed: the lookup filters sup itself; the next write fills rsup
    redis_client.delete(rsup)
    redis_client.hdel(indexed.keys.meta("t1", "u"), "rsup")
    assert indexed.context(req, when) == expected
    record = {"tenant": "t1", "user": "u", "attribute": "profile.home_city", "value": "Lyon"}
    indexed.apply({"at": iso(T0 + timedelta(hours=2)), "op_id": "later", "record": record})
    assert redis_client.hlen(rsup) == 1


def test_a_request_of_thousands_of_words_reads_as_a_whole_read_does(redis_client, namespace):
    indexed, whole = _engines(redis_client, namespace)
    rng = random.Random(9)
    indexed.apply_many(
        [{"at": iso(T0), "op_id": f"o{i}", "record": _random_record(rng, "long", i)} for i in range(200)]
    )
    # 4,000 characters (the sidecar's bound): about 3,000 distinct CJK pairs, almost none held by a row
    text = "".join(chr(0x4E00 + rng.randrange(3000)) for _ in range(3990)) + " 数据库 预算"
    req = ContextRequest(tenant="t1", user="long", text=text, max_items=5)
    when = T0 + timedelta(days=1)
    assert indexed.context(req, when) == whole.context(req, when)
    assert indexed.read_stats.indexed + indexed.read_stats.uncertified == 1


# statements in users' words (used only when related by meaning), over a few areas of life
STATED = [
    ("preference.stated.food", "I can't stand coriander, it tastes like soap to me"),
    ("preference.stated.food", "Spicy food is my thing, the hotter the better"),
    ("profile.diet", "I'm vegetarian"),
    ("profile.allergies", "I'm allergic to peanuts"),
    ("preference.stated.cars", "I only drive automatics, never learned stick"),
    ("preference.stated.cars", "Electric cars don't work for me, no charger where I park"),
    ("preference.stated.travel", "I always book an aisle seat on long flights"),
    ("preference.stated.travel", "Hostels are not for me, I need my own bathroom"),
    ("preference.stated.music", "Jazz on vinyl is how I unwind every evening"),
    ("preference.stated.fitness", "I run every morning before work, about 5k"),
    ("preference.stated.tech", "I stick with Linux on every laptop I own"),
    ("preference.stated.pets", "We have two cats, so no plants that are toxic to them"),
]
EVERYDAY_REQUESTS = [
    "Give me a recipe for a beef stew",
    "Which car should I lease next year?",
    "Plan a weekend in Lisbon for me",
    "Recommend an album for a rainy evening",
    "What houseplants are easy to keep alive?",
    "Which laptop should I buy for coding?",
    "Draft an email to my landlord about the boiler",
    "what should I do this weekend?",
    "",
]


def _stated_record(rng: random.Random, user: str, i: int) -> dict[str, Any]:
    attribute, said = rng.choice(STATED)
    return {
        "tenant": "t1",
        "user": user,
        "attribute": attribute,
        "value": f"{said} ({i})",
        "statement": f"{said} ({i})",
        "scope": rng.choice(["global", "global", "project:p1"]),
        "evidence": [{"source_type": "conversation", "source_id": f"turn-{i}"}],
    }


@pytest.mark.parametrize("seed", range(4))
def test_indexed_lookups_over_statements_answer_exactly_as_whole_reads(redis_client, namespace, seed):
    """Users whose records are half statements used only when related by meaning: the indexed read
    gives the rows on the request's meaning lists, screens out those that cannot be related, and
    answers as the whole read does."""
    rng = random.Random(100 + seed)
    indexed, whole = _engines(redis_client, namespace)
    user = f"s{seed}"
    ops = []
    for i in range(rng.choice([60, 400])):
        body = _stated_record(rng, user, i) if rng.random() < 0.5 else _random_record(rng, user, i)
        ops.append({"at": iso(T0 + timedelta(minutes=i)), "op_id": f"o{i}", "record": body})
    indexed.apply_many(ops)
    _index_matches_read_model(redis_client, indexed.keys, user)
    for text in EVERYDAY_REQUESTS:
        req = ContextRequest(tenant="t1", user=user, text=text, project=rng.choice([None, "p1"]), max_items=8)
        when = T0 + timedelta(days=1)
        assert indexed.context(req, when).model_dump() == whole.context(req, when).model_dump(), text
    stats = indexed.read_stats.as_dict()
    assert stats["indexed"] + stats["uncertified"] == len(EVERYDAY_REQUESTS) and stats["indexed"] > 0, stats


def _rows_read(engine: Engine, req: ContextRequest, when: datetime) -> int:
    before = engine.read_stats.as_dict()
    engine.context(req, when)
    after = engine.read_stats.as_dict()
    assert after["indexed"] - before["indexed"] == 1, after
    return after["rows"] - before["rows"]


def test_statements_that_cannot_be_related_to_a_request_are_not_read(redis_client, namespace):
    """200 statements about coriander and 200 about electric cars: all are on the meaning lists a
    request to lease a car reads, and only the cars ones are read. A row indexed before the screen
    existed (no `ixr` entry) is read as before, and the answers are the whole read's throughout."""
    indexed, whole = _engines(redis_client, namespace)
    ops = []
    for i in range(400):
        attribute, statement = STATED[0] if i % 2 else STATED[5]
        record = {"tenant": "t1", "user": "driver", "attribute": attribute, "value": f"{statement} ({i})"}
        record |= {"statement": f"{statement} ({i})", "evidence": [{"source_type": "conversation", "source_id": "t"}]}
        ops.append({"at": iso(T0), "op_id": f"o{i}", "record": record})
    indexed.apply_many(ops)
    when = T0 + timedelta(days=1)
    lease = ContextRequest(tenant="t1", user="driver", text="Which car should I lease next year?", max_items=8)
    assert indexed.context(lease, when).model_dump() == whole.context(lease, when).model_dump()
    assert _rows_read(indexed, lease, when) == 200
    redis_client.delete(indexed.keys.read_index("t1", "driver", "global", "ixr"))
    assert _rows_read(indexed, lease, when) == 400
    assert indexed.context(lease, when).model_dump() == whole.context(lease, when).model_dump()


def test_rows_used_only_when_related_are_told_apart_alike_by_their_ids_read_at_once_or_one_by_one(
    redis_client, namespace, monkeypatch
):
    """The script reads the ids of a scope's rows used only when related at once, or (a scope
    holding more than GATED_READ of them) asks row by row: both ways read the same rows and
    answer as the whole read does, every lookup certified. The statements are valued above the
    other rows, so the walk must tell them apart to read on past those that cannot take a place."""
    indexed, whole = _engines(redis_client, namespace)
    rng = random.Random(5)
    ops = []
    for i in range(600):
        if i % 3:
            body = _stated_record(rng, "many", i) | {"importance": 0.95}
        else:
            body = _random_record(rng, "many", i) | {"importance": 0.3}
        body["scope"] = "global"
        ops.append({"at": iso(T0 + timedelta(seconds=i)), "op_id": f"o{i}", "record": body})
    indexed.apply_many(ops)
    when = T0 + timedelta(days=1)
    rows_read: dict[int, list[int]] = {}
    at_once = read_index.GATED_READ
    for gated_read in (at_once, 0):
        monkeypatch.setattr(read_index, "GATED_READ", gated_read)
        rows_read[gated_read] = []
        for text in EVERYDAY_REQUESTS:
            req = ContextRequest(tenant="t1", user="many", text=text, max_items=8)
            before = indexed.read_stats.as_dict()
            assert indexed.context(req, when).model_dump() == whole.context(req, when).model_dump(), text
            after = indexed.read_stats.as_dict()
            assert after["indexed"] - before["indexed"] == 1 and after["uncertified"] == 0, (text, after)
            rows_read[gated_read].append(after["rows"] - before["rows"])
    assert rows_read[at_once] == rows_read[0]
