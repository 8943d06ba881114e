"""The demo: a preference set then explicitly corrected, a priority that expires; the context is
printed before and after each change. Runs on the configured Redis or an embedded local one."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from slotstream.memory.models import ContextRequest, OpIn, iso
from slotstream.state.namespaces import drop_namespace

from .runtime import redis_client
from .scenario import fresh_namespace
from .settings import Settings

T0 = datetime(2026, 9, 21, 9, 0, tzinfo=UTC)  # a Monday
TENANT, USER = "demo", "alice"


def _show(engine: Any, title: str, at: datetime) -> None:
    req = ContextRequest(tenant=TENANT, user=USER, session="s1", text="plan my week and explain it")
    resp = engine.context(req, at)
    print(f"\n--- context at {iso(at)}: {title}")
    print(resp.context or "(empty)")
    print(f"    used: {', '.join(resp.used_ids) or '-'}")


def _apply(engine: Any, at: datetime, **op: Any) -> Any:
    res = engine.apply(OpIn(at=at, op_id=f"demo:{iso(at)}:{len(op)}", **op))
    print(
        f"\n>>> {iso(at)} {res.outcome}: "
        + "; ".join(f"{c['type']} {c.get('record_id', '')}".strip() for c in res.changes)
    )
    return res


def run_demo(settings: Settings) -> int:
    from slotstream.state.engine import Engine

    with redis_client(settings) as client:
        ns = settings.namespace if settings.redis_url else fresh_namespace("demo")
        engine = Engine(client, namespace=ns)
        try:
            _show(engine, "nothing stored yet", T0)
            first = _apply(
                engine,
                T0,
                record={
                    "tenant": TENANT,
                    "user": USER,
                    "kind": "preference",
                    "attribute": "preference.response.detail",
                    "value": "concise",
                    "statement": "Prefers short, concise answers.",
                    "evidence": [{"source_type": "conversation", "source_id": "turn-1", "quote": "Keep it short."}],
                },
            )
            _apply(
                engine,
                T0 + timedelta(minutes=1),
                record={
                    "tenant": TENANT,
                    "user": USER,
                    "kind": "priority",
                    "attribute": "priority.focus",
                    "value": "ship project A",
                    "statement": "This week: ship project A first.",
                    "valid_until": iso(T0 + timedelta(days=2)),
                    "evidence": [{"source_type": "conversation", "source_id": "turn-2"}],
                },
            )
            _show(engine, "after the preference and the priority", T0 + timedelta(minutes=2))
            _apply(
                engine,
                T0 + timedelta(hours=3),
                record={
                    "tenant": TENANT,
                    "user": USER,
                    "kind": "preference",
                    "attribute": "preference.response.detail",
                    "value": "detailed",
                    "statement": "From now on: detailed answers with the reasoning shown.",
                    "corrects": first.record_ids[0],
                    "evidence": [
                        {
                            "source_type": "conversation",
                            "source_id": "turn-7",
                            "quote": "That was wrong: from now on, show the reasoning in detail.",
                        }
                    ],
                },
            )
            _show(engine, "after the explicit correction", T0 + timedelta(hours=3, minutes=1))
            _show(engine, "two days later: the priority expired (no sweep has run)", T0 + timedelta(days=2, minutes=1))
            print("\nhistory of preference.response.detail:")
            for rec in engine.history(TENANT, USER, "preference.response.detail"):
                print(
                    f"  {rec.id} {rec.value!r:12} {rec.status.value:11} valid_until={iso(rec.valid_until)} "
                    f"supersedes={rec.supersedes} superseded_by={rec.superseded_by}"
                )
        finally:
            if not settings.redis_url:
                drop_namespace(client, ns)
    return 0


CONVERSATION = [
    ("2026-09-21T09:00:00Z", "s1", "Please keep your answers short."),
    ("2026-09-21T09:05:00Z", "s1", "This week focus on the launch of project A."),
    ("2026-09-21T09:10:00Z", "s1", "Let me confirm before you send anything to the client."),
    ("2026-09-23T14:00:00Z", "s2", "Actually, that was wrong: from now on answer in detail and show the reasoning."),
    ("2026-09-23T14:02:00Z", "s2", "这次请用英文回答。"),
]


def run_pipeline_demo(settings: Settings) -> int:
    """The main job: Redis, the Kafka broker and a worker (started locally unless configured), a
    short conversation sent as turns, and the context printed before and after each turn."""
    from pathlib import Path

    from .stack import LocalStack

    print(
        "starting: "
        + ", ".join(
            filter(
                None,
                [
                    "embedded Redis" if not settings.redis_url else f"Redis {settings.redis_url}",
                    "local Kafka broker (KRaft)"
                    if not settings.kafka_bootstrap
                    else f"Kafka {settings.kafka_bootstrap}",
                    f"{settings.workers} worker(s)",
                ],
            )
        ),
        flush=True,
    )
    with LocalStack(settings, persistent=True, log_dir=Path(settings.data_dir) / "logs") as stack:
        print(
            f"ready: kafka {stack.bootstrap}, redis {stack.redis_url}, namespace {stack.settings.namespace}", flush=True
        )
        kept = stack.engine.records(TENANT, USER)
        if kept:
            print(
                f"the data folder {settings.data_dir}/ holds {len(kept)} records of {TENANT}/{USER} from an earlier "
                "run: the turns below are sent again with the same ids and recognised as already applied, "
                "so each context shows the state as it is now",
                flush=True,
            )
        for n, (at, session, text) in enumerate(CONVERSATION, start=1):
            req = ContextRequest(tenant=TENANT, user=USER, session=session, text="how should you answer me?")
            stack.barrier()
            before = stack.engine.context(req, at)
            # stable turn ids: a second run of the main job re-sends the same turns, which the
            # kept state recognises as already applied
            stack.producer.send_turn(
                at,
                {
                    "tenant": TENANT,
                    "user": USER,
                    "session": session,
                    "project": None,
                    "role": "user",
                    "text": text,
                    "turn_id": f"demo-turn-{n}",
                },
            )
            stack.producer.flush()
            stack.barrier()
            after = stack.engine.context(req, at)
            print(f"\n>>> {at} [{session}] user: {text}")
            print("--- context before:\n" + (before.context or "(empty)"))
            print("--- context after:\n" + (after.context or "(empty)"), flush=True)
        print("\nhistory of preference.response.detail:")
        for rec in stack.engine.history(TENANT, USER, "preference.response.detail"):
            print(
                f"  {rec.id} {rec.value!r:12} {rec.status.value:11} supersedes={rec.supersedes} "
                f"superseded_by={rec.superseded_by}"
            )
    return 0
