"""The engine's view cache on a real Redis: the single writer of a user skips the load, and a
view that another writer made stale is never written over."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import redis

from slotstream.memory.models import iso
from slotstream.memory.reconcile import Needs
from slotstream.state.engine import Engine, ViewCache
from slotstream.state.keys import Keys

pytestmark = pytest.mark.integration
T0 = datetime(2026, 10, 1, tzinfo=UTC)
DETAIL = "preference.response.detail"


def op(n: int, value: str, **extra: Any) -> dict[str, Any]:
    return {
        "at": iso(T0 + timedelta(minutes=n)),
        "op_id": f"op{n}",
        "record": {"tenant": "t", "user": "u", "kind": "preference", "attribute": DETAIL, "value": value, **extra},
    }


def counting_loads(engine: Engine) -> list[int]:
    calls = [0]
    inner = engine._load

    class Counting:
        def __call__(self, *a: Any, **kw: Any) -> Any:
            calls[0] += 1
            return inner(*a, **kw)

        def __getattr__(self, name: str) -> Any:
            return getattr(inner, name)

    engine._load = Counting()  # type: ignore[assignment]
    engine._scripts = [inner, engine._apply]
    return calls


def test_the_single_writer_reuses_its_view(redis_client: redis.Redis, namespace: str) -> None:
    engine = Engine(redis_client, namespace)
    loads = counting_loads(engine)
    engine.apply(op(0, "concise"))
    engine.apply(op(1, "concise"))  # a repeat in the same slot: the cached view covers it
    assert loads[0] == 1


def test_a_view_made_stale_by_another_writer_is_reloaded(redis_client: redis.Redis, namespace: str) -> None:
    first, second = Engine(redis_client, namespace), Engine(redis_client, namespace)
    first.apply(op(0, "concise"))
    second.apply(op(1, "detailed", corrects_current=True))  # first's cached view is now stale
    res = first.apply(op(2, "concise", corrects_current=True))
    assert res.outcome == "applied"
    history = first.history("t", "u", DETAIL)
    assert [(r.value, r.status.value) for r in history] == [
        ("concise", "superseded"),
        ("detailed", "superseded"),
        ("concise", "active"),
    ]


def test_the_cache_is_bounded_and_cleared_after_a_failed_write(redis_client: redis.Redis, namespace: str) -> None:
    cache = ViewCache(max_users=2)
    for user in ("a", "b", "c"):
        cache.store_loaded(("t", user), {"version": 1}, Needs())
    assert not cache.covers(("t", "a"), Needs()) and cache.covers(("t", "c"), Needs())
    engine = Engine(redis_client, namespace)
    engine.apply(op(0, "concise"))
    broken = redis.Redis(host="127.0.0.1", port=1)  # nothing listens there
    engine.r = broken
    engine._apply.client = engine._load.client = broken
    with pytest.raises(redis.exceptions.ConnectionError):
        engine.apply(op(1, "detailed"))
    assert not engine._cache.covers(("t", "u"), Needs(slots={f"user|{DETAIL}|global"}))


def on(n: int, attribute: str, value: str, **extra: Any) -> dict[str, Any]:
    body = op(n, value, **extra)
    body["record"] = {**body["record"], "attribute": attribute, "kind": "knowledge"}
    return body


def test_an_op_on_a_slot_the_user_never_had_needs_no_load(redis_client: redis.Redis, namespace: str) -> None:
    """The load listed the user's slot keys: a slot not among them is empty, so a first value
    there is reconciled on the cached view."""
    engine = Engine(redis_client, namespace)
    loads = counting_loads(engine)
    engine.apply(on(0, "knowledge.one", "a"))
    engine.apply_many([on(1, "knowledge.two", "b"), on(2, "knowledge.three", "c")])
    engine.apply(on(3, "knowledge.two", "b2", corrects_current=True))
    assert loads[0] == 1 and engine.users_loaded == 1
    assert [r.value for r in engine.history("t", "u", "knowledge.two")] == ["b", "b2"]


def test_a_slot_another_writer_created_meanwhile_is_found(redis_client: redis.Redis, namespace: str) -> None:
    """The listed slot keys are those of the version loaded: a slot another writer added since
    fails the apply script's version check, and the op is reconciled again on a fresh load."""
    first, second = Engine(redis_client, namespace), Engine(redis_client, namespace)
    first.apply(on(0, "knowledge.one", "a"))
    second.apply(on(1, "knowledge.two", "theirs"))
    res = first.apply(on(2, "knowledge.two", "mine", corrects_current=True))
    assert res.outcome == "applied"
    history = first.history("t", "u", "knowledge.two")
    assert [(r.value, r.status.value) for r in history] == [("theirs", "superseded"), ("mine", "active")]


def test_a_user_with_more_slots_than_are_listed_loads_each_new_slot(
    redis_client: redis.Redis, namespace: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from slotstream.state import engine as engine_module

    monkeypatch.setattr(engine_module, "LISTED_SLOTS_MAX", 1)
    engine = Engine(redis_client, namespace)
    loads = counting_loads(engine)
    engine.apply(on(0, "knowledge.one", "a"))  # no slot yet: listed (empty)
    engine.apply(on(1, "knowledge.two", "b"))  # a new slot, known to be empty
    engine.apply(on(2, "knowledge.three", "c"))  # still listed as of the first load
    assert loads[0] == 1
    fresh = Engine(redis_client, namespace)
    loads = counting_loads(fresh)
    fresh.apply(on(3, "knowledge.one", "a2"))  # three slots now: more than listed
    fresh.apply(on(4, "knowledge.four", "d"))  # unknown whether it exists: loaded
    assert loads[0] == 2


def about(n: int, attribute: str, value: str, **extra: Any) -> dict[str, Any]:
    body = op(n, value, **extra)
    record = {k: v for k, v in body["record"].items() if k != "kind"}
    body["record"] = {**record, "attribute": attribute, "authority": "user_explicit"}
    return body


def command(n: int, **fields: Any) -> dict[str, Any]:
    return {"at": op(n, "")["at"], "op_id": f"op{n}", "command": {"tenant": "t", "user": "u", **fields}}


def test_a_dependent_sent_to_review_does_not_leave_its_slot_half_known(
    redis_client: redis.Redis, namespace: str
) -> None:
    """A correction sends the records derived from the corrected one to review. They come with the
    dependency index, not with their slots: the likes slot here was never loaded, so the view knows
    only the dependent's place in it. Held as if whole, it would hide "jazz", and saying "jazz" again
    would store a second active jazz instead of refreshing the first."""
    Engine(redis_client, namespace).apply(about(0, "profile.home_city", "Paris"))
    setup = Engine(redis_client, namespace)
    paris = setup.records("t", "u")[0].id
    setup.apply_many(
        [about(1, "profile.likes", "cafes in paris", depends_on=[paris]), about(2, "profile.likes", "jazz")]
    )
    engine = Engine(redis_client, namespace)  # its view: the home city slot and the dependency index
    corrected = engine.apply(about(3, "profile.home_city", "Berlin", corrects_current=True))
    assert "needs_review" in [change["type"] for change in corrected.changes]
    again = engine.apply(about(4, "profile.likes", "jazz"))
    assert again.outcome == "refreshed"
    likes = sorted((r.value, r.status.value) for r in engine.records("t", "u") if r.attribute == "profile.likes")
    assert likes == [("cafes in paris", "needs_review"), ("jazz", "active")]


def test_a_forget_after_a_correction_takes_the_corrected_away_value_too(
    redis_client: redis.Redis, namespace: str
) -> None:
    """The correction's load held the slot's live list but not its history; the record it created
    went into a history the view held only in part. A forget of the new value then walks that
    history for what it replaced: held as if whole, the corrected-away value stays stored."""
    Engine(redis_client, namespace).apply(about(0, "preference.language", "English"))
    engine = Engine(redis_client, namespace)
    french = engine.apply(about(1, "preference.language", "French", corrects_current=True)).record_ids[0]
    forget = command(2, op="forget", record_id=french)
    assert engine.apply(forget).outcome == "applied"
    assert [(r.value, r.status.value) for r in engine.records("t", "u")] == [(None, "deleted"), (None, "deleted")]


def test_a_record_known_only_as_a_dependent_is_loaded_with_its_slot(redis_client: redis.Redis, namespace: str) -> None:
    """A command on a record by id is reconciled with the record's slot, as a load gives it."""
    Engine(redis_client, namespace).apply(about(0, "profile.home_city", "Paris"))
    setup = Engine(redis_client, namespace)
    paris = setup.records("t", "u")[0].id
    dependent = setup.apply(about(1, "profile.likes", "cafes in paris", depends_on=[paris])).record_ids[0]
    engine = Engine(redis_client, namespace)
    engine.apply(about(2, "profile.home_city", "Berlin", corrects_current=True))  # loads the dependent, not its slot
    loads = counting_loads(engine)
    expire = command(3, op="expire", record_id=dependent)
    engine.apply(expire)
    assert loads[0] == 1


def test_a_forget_of_a_record_created_earlier_in_its_batch_walks_the_whole_history(
    redis_client: redis.Redis, namespace: str
) -> None:
    """The forget names a record the batch creates, so the load cannot find it to fetch its slot's
    history: a batch's slots come with their histories whenever an op of it walks one. Without
    them the forget saw only the new record, and the same value said before stayed stored."""
    setup = Engine(redis_client, namespace)
    setup.apply(about(0, "preference.language", "French"))
    setup.apply(about(1, "preference.language", "English", corrects_current=True))
    engine = Engine(redis_client, namespace)
    again = about(2, "preference.language", "French", id="r-again")
    forget = command(3, op="forget", record_id="r-again")
    assert [r.outcome for r in engine.apply_many([again, forget])] == ["applied", "applied"]
    stored = sorted((r.status.value, r.value or "") for r in engine.records("t", "u"))
    assert stored == [("active", "English"), ("deleted", ""), ("deleted", "")]


def test_a_load_that_widens_the_cached_view_keeps_the_aliases_it_found(
    redis_client: redis.Redis, namespace: str
) -> None:
    """A repeat under its own id leaves an alias to the record it refreshed. A load asks for the
    aliases of the ids it is given only; widening the cached view with such a load must keep them,
    or a command naming the repeat's id finds nothing."""
    setup = Engine(redis_client, namespace)
    setup.apply(about(0, "preference.language", "French"))
    assert setup.apply(about(1, "preference.language", "French", id="r-repeat")).outcome == "refreshed"
    engine = Engine(redis_client, namespace)
    engine.apply(about(2, "profile.home_city", "Paris"))  # its view: the home city slot only
    correct = command(3, op="correct", record_id="r-repeat", value="English")
    assert engine.apply(correct).outcome == "applied"
    languages = sorted(
        (r.value, r.status.value) for r in engine.records("t", "u") if r.attribute == "preference.language"
    )
    assert languages == [("English", "active"), ("French", "superseded")]


def test_a_row_written_after_an_erase_of_its_batch_is_listed_for_the_next_erase(
    redis_client: redis.Redis, namespace: str
) -> None:
    """The engine tells apply.lua which scopes the user's scope list holds already, so the script
    does not add them again. An erase takes the list: a row written after it, in the same batch, in
    a scope the engine knew, must list its scope again, or a later erase would not find the row and
    the erased user's value would still be served."""
    engine = Engine(redis_client, namespace)
    prefix = engine.keys.prefix("t", "u")
    engine.apply(op(0, "short"))
    engine.apply(op(1, "long", scope="project:p1"))
    results = engine.apply_many([command(2, op="erase_user"), op(3, "medium"), op(4, "brief", scope="project:p1")])
    assert [r.outcome for r in results] == ["applied"] * 3
    assert redis_client.smembers(f"{prefix}:scopes") == {b"global", b"project:p1"}
    engine.apply(command(5, op="erase_user"))
    assert [k for k in redis_client.scan_iter(match=f"{prefix}:act:*")] == []
    assert [k for k in redis_client.scan_iter(match=f"{prefix}:ix*")] == []


def test_a_live_list_the_view_holds_is_written_as_the_script_would_work_it_out(
    redis_client: redis.Redis, namespace: str
) -> None:
    """The engine sends the live lists its view holds whole (apply.lua writes them without reading
    the stored ones) and lets the script work out the others: after a correction that sends a
    dependent in a slot never loaded to review (the view holds only the dependent's place there),
    a move and a forget, every stored list is the one an engine that lets the script work every
    list out stores."""
    script_ns = f"{namespace}script"

    class ScriptWorksListsOut(Engine):
        client_writes_live_lists = False

    for ns, kind in ((namespace, Engine), (script_ns, ScriptWorksListsOut)):
        setup = kind(redis_client, ns)
        setup.apply(about(0, "profile.home_city", "Paris"))
        paris = setup.records("t", "u")[0].id
        setup.apply_many(
            [about(1, "profile.likes", "jazz"), about(2, "profile.likes", "cafes in paris", depends_on=[paris])]
        )
        engine = kind(redis_client, ns)  # its view: the home city slot and the dependency index
        assert engine.apply(about(3, "profile.home_city", "Berlin", corrects_current=True)).outcome == "applied"
        engine.apply_many(
            [
                about(4, "profile.likes", "jazz"),
                command(5, op="move", attribute="profile.likes", from_scope="global", to_scope="project:p1"),
                command(6, op="forget", match={"attribute": "profile.home_city"}),
            ]
        )
    lists = [redis_client.hgetall(f"{Keys(ns).prefix('t', 'u')}:slot") for ns in (namespace, script_ns)]
    assert lists[0] == lists[1]
    assert len(lists[0]) >= 3  # the two home city and likes slots, and the likes moved to p1
