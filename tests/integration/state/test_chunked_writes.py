"""A batch's apply scripts go out chunk by chunk on one connection while the next chunk is
reconciled, and their replies are read at the end (state/lua.py, ChunkedWrites): whatever
happens between the first chunk sent and the last reply read, the state is that of a clean run."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import redis

from slotstream.state import engine as engine_module
from slotstream.state.engine import WRITE_CHUNK_USERS, Engine
from slotstream.state.lua import ChunkedWrites

from support import dump_namespace

pytestmark = pytest.mark.integration

T0 = datetime(2024, 1, 1, tzinfo=UTC)
USERS = 3 * WRITE_CHUNK_USERS + 5  # four chunks


def batch(round_no: int) -> list[dict[str, Any]]:
    """Two ops per user, the second correcting the first."""
    ops = []
    for u in range(USERS):
        at = T0 + timedelta(hours=round_no)
        for k, value in enumerate(("concise", "detailed")):
            ops.append(
                {
                    "at": (at + timedelta(minutes=k)).isoformat(),
                    "op_id": f"r{round_no}-u{u}-{k}",
                    "record": {
                        "tenant": "t1",
                        "user": f"u{u}",
                        "attribute": "preference.response.detail",
                        "value": f"{value} {round_no}",
                        "corrects_current": k == 1,
                    },
                }
            )
    return ops


def clean_state(client: redis.Redis, namespace: str, rounds: int) -> dict[str, Any]:
    clean = Engine(client, namespace=namespace)
    for round_no in range(rounds):
        clean.apply_many(batch(round_no))
    return dump_namespace(client, namespace)


def connections_in_use(client: Any) -> int:
    """Connections taken from the pools and not given back (every node's, on a cluster)."""
    if isinstance(client, redis.Redis):
        pools = [client.connection_pool]
    else:
        pools = [node.redis_connection.connection_pool for node in client.get_nodes() if node.redis_connection]
    return sum(len(pool._in_use_connections) for pool in pools)


def test_a_batch_over_many_chunks_is_applied_whole(engine, redis_client, namespace, other_namespace):
    results = engine.apply_many(batch(0))
    assert [r.outcome for r in results] == ["applied"] * len(results)
    assert connections_in_use(redis_client) == 0
    assert dump_namespace(redis_client, namespace) == clean_state(redis_client, other_namespace, 1)
    last = engine.context({"tenant": "t1", "user": f"u{USERS - 1}", "text": "detail"}, at=T0 + timedelta(days=1))
    assert "detailed 0" in last.context and "concise 0" not in last.context  # the last chunk's user, corrected


def test_scripts_flushed_between_batches_are_loaded_and_the_chunks_sent_again(
    engine, redis_client, namespace, other_namespace
):
    engine.apply_many(batch(0))  # every user's view is now cached: the next batch loads nothing
    redis_client.script_flush()
    results = engine.apply_many(batch(1))
    assert [r.outcome for r in results] == ["applied"] * len(results)
    assert dump_namespace(redis_client, namespace) == clean_state(redis_client, other_namespace, 2)


def kill_the_others(client: Any) -> None:
    """Every other normal connection to the server (to every node of a cluster) is closed."""
    if isinstance(client, redis.Redis):
        client.client_kill_filter(_type="normal", skipme=True)
    else:
        client.client_kill_filter(_type="normal", skipme=True, target_nodes=client.get_nodes())


def kill_while_the_chunks_go_out(monkeypatch: pytest.MonkeyPatch, client: Any) -> None:
    reconcile_user = Engine._reconcile_user
    reconciled = [0]

    def kill_after_the_first_chunk(self: Engine, *args: Any) -> Any:
        reconciled[0] += 1
        if reconciled[0] == WRITE_CHUNK_USERS + 1:  # the first chunk is out, the second being built
            kill_the_others(client)
        return reconcile_user(self, *args)

    monkeypatch.setattr(Engine, "_reconcile_user", kill_after_the_first_chunk)


def kill_before_the_replies_are_read(monkeypatch: pytest.MonkeyPatch, client: Any) -> None:
    replies = ChunkedWrites.replies

    def kill_then_read(self: ChunkedWrites) -> list[Any]:
        kill_the_others(client)
        return replies(self)

    monkeypatch.setattr(ChunkedWrites, "replies", kill_then_read)


@pytest.mark.parametrize("kill", [kill_while_the_chunks_go_out, kill_before_the_replies_are_read])
def test_a_connection_killed_mid_batch_loses_nothing(
    kill, engine, redis_client, namespace, other_namespace, monkeypatch
):
    engine.apply_many(batch(0))
    kill(monkeypatch, redis_client)
    results = engine.apply_many(batch(1))
    # a chunk may have been applied before its reply was lost: sent again, it is a duplicate
    assert {r.outcome for r in results} <= {"applied", "duplicate"}
    assert connections_in_use(redis_client) == 0
    monkeypatch.undo()
    assert dump_namespace(redis_client, namespace) == clean_state(redis_client, other_namespace, 2)


def test_a_failure_between_chunks_leaves_no_reply_behind(engine, redis_client, namespace, other_namespace, monkeypatch):
    """An error while the second chunk is built: the first chunk's replies are never read, so its
    connection is closed instead of going back to the pool with them; the batch redelivered
    completes the state."""
    real = engine_module.reconcile
    calls = [0]

    def failing(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        if calls[0] == 2 * WRITE_CHUNK_USERS + 1:
            raise RuntimeError("reconciliation failed mid-batch")
        return real(*args, **kwargs)

    monkeypatch.setattr(engine_module, "reconcile", failing)
    with pytest.raises(RuntimeError):
        engine.apply_many(batch(0))
    assert connections_in_use(redis_client) == 0
    monkeypatch.setattr(engine_module, "reconcile", real)
    assert redis_client.ping()  # the pool hands out connections without stale replies
    results = engine.apply_many(batch(0))
    assert {r.outcome for r in results} == {"applied", "duplicate"}
    assert dump_namespace(redis_client, namespace) == clean_state(redis_client, other_namespace, 1)
