"""Property-based tests (hypothesis) with real Redis (the `redis_client` session fixture; a fresh
namespace per example):
  (d) applying an op twice equals applying it once;
  (e) nothing of tenant A is ever returned for tenant B;
  (f) an engine reusing its cached view across calls writes what engines loading every time write;
  (g) the lineage and live list stored for each slot are the pure model's (tests/simulation.py);
  (h) a user whose retired records move into the cold history at every write reads, reconciles and
      digests as one whose records all stay whole.
"""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slotstream.memory.models import OpIn
from slotstream.memory.validation import normalize_value
from slotstream.state.digest import digest_namespace
from slotstream.state.engine import Engine

from simulation import Sim
from strategies import REDIS, D, H, op_sequences
from support import dump_namespace

# --- with real Redis ------------------------------------------------------------------------------


class Namespace:
    def __init__(self, client: Any) -> None:
        self.client = client
        self.ns = f"prop-{uuid.uuid4().hex[:10]}"

    def __enter__(self) -> str:
        return self.ns

    def __exit__(self, *exc: Any) -> None:
        for key in self.client.scan_iter(match=f"{self.ns}:*", count=1000):
            self.client.delete(key)


@pytest.mark.integration
@settings(REDIS)
@given(ops=op_sequences(max_ops=15, dependencies=True), data=st.data())
def test_applying_an_op_twice_equals_applying_it_once(redis_client, ops, data):
    k = data.draw(st.integers(0, len(ops) - 1), label="op applied twice")
    with Namespace(redis_client) as ns:
        engine = Engine(redis_client, namespace=ns)
        if k:
            engine.apply_many(ops[:k])
        first = engine.apply(ops[k])
        once = dump_namespace(redis_client, ns)
        records_once = sorted(r.model_dump_json() for r in engine.records("t1", "u1"))
        sup_once = sorted(s.model_dump_json() for s in engine.suppressions("t1", "u1"))
        second = engine.apply(ops[k])
        # an op refused by validation is never recorded (it is refused the same way again); anything
        # that reached the user's state, a state-dependent rejection included, is a duplicate now
        if second.outcome == "rejected":
            assert first.outcome == "rejected" and second.reason == first.reason, (first, second)
        else:
            assert second.outcome == "duplicate", (first, second)
        assert dump_namespace(redis_client, ns) == once
        assert sorted(r.model_dump_json() for r in engine.records("t1", "u1")) == records_once
        assert sorted(s.model_dump_json() for s in engine.suppressions("t1", "u1")) == sup_once
        # redelivering the whole prefix (a consumer restarting from an old offset) changes nothing either
        again = engine.apply_many(ops[: k + 1])
        assert all(r.outcome in ("duplicate", "rejected") for r in again)
        assert dump_namespace(redis_client, ns) == once


class ScriptWorksListsOut(Engine):
    client_writes_live_lists = False


@pytest.mark.integration
@settings(REDIS, max_examples=60)
@given(
    ops=op_sequences(max_ops=20, dependencies=True, moves=True),
    batches=st.lists(st.tuples(st.integers(1, 4), st.integers(0, 1)), min_size=20, max_size=20),
)
def test_a_cached_view_writes_what_a_fresh_load_writes(redis_client, ops, batches):
    """A writer of a user reconciles on the view it last wrote (state/engine.py, ViewCache). Two
    such writers take the batches in turns (the worker and the expiry processor, say): each one's
    view goes stale under the other's writes. The outcome of every op and the state must be those
    of engines that load before every op: a view holds exactly what a load would return for every
    slot it claims to hold (a dependent sent to review in a slot never loaded, a record created in
    a slot whose history was never loaded, a batch's record that a later op of it forgets).
    The cached writers send apply.lua the live lists and known scopes their views hold; the fresh
    engines let the script work every list and scope out from what is stored: the same bytes."""
    with Namespace(redis_client) as cached_ns, Namespace(redis_client) as fresh_ns:
        writers = [Engine(redis_client, namespace=cached_ns), Engine(redis_client, namespace=cached_ns)]
        cached_outcomes: list[tuple[str, str | None]] = []
        fresh_outcomes: list[tuple[str, str | None]] = []
        position = 0
        for size, writer in batches:
            batch = ops[position : position + size]
            position += size
            cached_outcomes += [(r.outcome, r.reason) for r in writers[writer].apply_many(batch)]
            for op in batch:  # a new engine per op: nothing cached, every op reconciled on a fresh load
                fresh = ScriptWorksListsOut(redis_client, namespace=fresh_ns).apply(op)
                fresh_outcomes.append((fresh.outcome, fresh.reason))
        assert cached_outcomes == fresh_outcomes
        assert dump_namespace(redis_client, cached_ns) == dump_namespace(redis_client, fresh_ns)


@pytest.mark.integration
@settings(REDIS, max_examples=60)
@given(ops=op_sequences(max_ops=20, dependencies=True, moves=True), batch=st.integers(1, 5))
def test_each_slots_stored_lineage_and_live_list_are_the_pure_models(redis_client, ops, batch):
    """A slot's lineage is stored only where it is not the slot's live list (apply.lua): whatever
    the ops (corrections, retractions, forgets, moves between scopes, an erase), reading it back
    gives every id the slot ever held, in order, as the pure model keeps it."""
    sim = Sim()
    for op in ops:
        sim.apply_wire(op)
    with Namespace(redis_client) as ns:
        engine = Engine(redis_client, namespace=ns)
        for first in range(0, len(ops), batch):
            engine.apply_many(ops[first : first + batch])
        keys = engine.keys
        for slot, ids in sim.view.history.items():
            subject, attribute, scope = slot.split("|", 2)
            stored = [r.id for r in engine.history("t1", "u1", attribute, scope=scope, subject=subject)]
            assert stored == [i for i in ids if i in sim.view.records], slot
            live = redis_client.hget(keys.slots("t1", "u1"), slot)
            assert orjson.loads(live or b"[]") == sim.view.slots.get(slot, []), slot


@pytest.mark.integration
@settings(REDIS, max_examples=60)
@given(ops=op_sequences(max_ops=20, dependencies=True, moves=True), batch=st.integers(1, 4), hot=st.integers(0, 1))
def test_a_history_moved_into_the_cold_form_answers_as_one_kept_whole(redis_client, ops, batch, hot):
    """Settled after every write (state/engine.py `settle`), retired versions live compressed in
    the cold history; ops that walk a slot's history (a forget of a value, a retraction that
    brings a version back, an erase) read them from there. Every outcome, record, lineage and
    the state digest must be those of a user whose records all stay whole."""
    with Namespace(redis_client) as cold_ns, Namespace(redis_client) as whole_ns:
        cold = Engine(redis_client, namespace=cold_ns, history_hot=hot, settle_after=1)
        whole = Engine(redis_client, namespace=whole_ns, history_hot=None)
        for first in range(0, len(ops), batch):
            part = ops[first : first + batch]
            assert [(r.outcome, r.reason, r.record_ids) for r in cold.apply_many(part)] == [
                (r.outcome, r.reason, r.record_ids) for r in whole.apply_many(part)
            ]
        assert digest_namespace(redis_client, cold_ns).digest == digest_namespace(redis_client, whole_ns).digest
        records = {r.id: r for r in whole.records("t1", "u1")}
        assert {r.id: r for r in cold.records("t1", "u1")} == records
        for rid in records:
            assert cold.record("t1", "u1", rid) == records[rid]
        for rec in records.values():
            assert cold.history("t1", "u1", rec.attribute, rec.scope, rec.subject) == whole.history(
                "t1", "u1", rec.attribute, rec.scope, rec.subject
            )


VALUES_A = ("aaa-one", "aaa-two", "aaa-three")
VALUES_B = ("bbb-one", "bbb-two", "bbb-three")


@pytest.mark.integration
@settings(REDIS)
@given(
    ops_a=st.lists(st.sampled_from(["u1", "u2"]), min_size=1, max_size=2, unique=True).flatmap(
        lambda users: st.tuples(
            *[op_sequences(tenant="tA", user=u, values=VALUES_A, prefix=f"A{u}-", max_ops=10) for u in users]
        )
    ),
    ops_b=st.tuples(
        *[op_sequences(tenant="tB", user=u, values=VALUES_B, prefix=f"B{u}-", max_ops=10) for u in ("u1", "u2")]
    ),
    batch=st.integers(1, 8),
    seed=st.randoms(use_true_random=False),
)
def test_nothing_of_tenant_a_is_returned_for_tenant_b(redis_client, ops_a, ops_b, batch, seed):
    stream = [op for seq in ops_a for op in seq] + [op for seq in ops_b for op in seq]
    seed.shuffle(stream)  # interleaved; per-user order does not matter for isolation
    with Namespace(redis_client) as ns:
        engine = Engine(redis_client, namespace=ns)
        for i in range(0, len(stream), batch):
            engine.apply_many(stream[i : i + batch])
        a_ids = {r.id for u in ("u1", "u2") for r in engine.records("tA", u)}
        end = max(OpIn.model_validate(op).at for op in stream)
        for user in ("u1", "u2"):
            b_ids = {r.id for r in engine.records("tB", user)}
            for r in engine.records("tB", user):
                assert r.tenant == "tB" and r.user == user
                assert r.value is None or normalize_value(r.value) not in {normalize_value(v) for v in VALUES_A}
            for offset in (timedelta(0), H, 5 * D):
                for scope in ({}, {"project": "p1"}, {"session": "s1", "project": "p1"}):
                    out = engine.context(
                        {
                            "tenant": "tB",
                            "user": user,
                            "text": "aaa one two three",
                            "max_items": 50,
                            "max_chars": 20000,
                            "explain": True,
                            **scope,
                        },
                        at=end + offset,
                    )
                    text = out.context.casefold()
                    assert "aaa-" not in text
                    assert set(out.used_ids) <= b_ids and not set(out.used_ids) & a_ids
                    assert not {e.id for e in out.excluded} & a_ids
                    assert out.tenant == "tB"
