"""The demo: a preference set then explicitly corrected, a priority that expires; the context is
printed before and after each change. Runs on the configured Redis or an embedded local one."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

from memory.models import ContextRequest, OpIn, iso

from .runtime import drop_namespace, redis_client
from .scenario import fresh_namespace
from .settings import Settings

T0 = datetime(2026, 9, 21, 9, 0, tzinfo=timezone.utc)  # a Monday
TENANT, USER = "demo", "alice"


def _show(engine: Any, title: str, at: datetime) -> None:
    req = ContextRequest(tenant=TENANT, user=USER, session="s1", text="plan my week and explain it")
    resp = engine.context(req, at)
    print(f"\n--- context at {iso(at)}: {title}")
    print(resp.context or "(empty)")
    print(f"    used: {', '.join(resp.used_ids) or '-'}")


def _apply(engine: Any, at: datetime, **op: Any) -> Any:
    res = engine.apply(OpIn(at=at, op_id=f"demo:{iso(at)}:{len(op)}", **op))
    print(f"\n>>> {iso(at)} {res.outcome}: " + "; ".join(
        f"{c['type']} {c.get('record_id', '')}".strip() for c in res.changes))
    return res


def run_demo(settings: Settings) -> int:
    from state.engine import Engine

    with redis_client(settings) as client:
        ns = settings.namespace if settings.redis_url else fresh_namespace("demo")
        engine = Engine(client, namespace=ns)
        try:
            _show(engine, "nothing stored yet", T0)
            first = _apply(engine, T0, record={
                "tenant": TENANT, "user": USER, "kind": "preference", "attribute": "preference.response.detail",
                "value": "concise", "statement": "Prefers short, concise answers.",
                "evidence": [{"source_type": "conversation", "source_id": "turn-1", "quote": "Keep it short."}]})
            _apply(engine, T0 + timedelta(minutes=1), record={
                "tenant": TENANT, "user": USER, "kind": "priority", "attribute": "priority.focus",
                "value": "ship project A", "statement": "This week: ship project A first.",
                "valid_until": iso(T0 + timedelta(days=2)),
                "evidence": [{"source_type": "conversation", "source_id": "turn-2"}]})
            _show(engine, "after the preference and the priority", T0 + timedelta(minutes=2))
            _apply(engine, T0 + timedelta(hours=3), record={
                "tenant": TENANT, "user": USER, "kind": "preference", "attribute": "preference.response.detail",
                "value": "detailed", "statement": "From now on: detailed answers with the reasoning shown.",
                "corrects": first.record_ids[0],
                "evidence": [{"source_type": "conversation", "source_id": "turn-7",
                              "quote": "That was wrong: from now on, show the reasoning in detail."}]})
            _show(engine, "after the explicit correction", T0 + timedelta(hours=3, minutes=1))
            _show(engine, "two days later: the priority expired (no sweep has run)", T0 + timedelta(days=2, minutes=1))
            print("\nhistory of preference.response.detail:")
            for rec in engine.history(TENANT, USER, "preference.response.detail"):
                print(f"  {rec.id} {rec.value!r:12} {rec.status.value:11} valid_until={iso(rec.valid_until)} "
                      f"supersedes={rec.supersedes} superseded_by={rec.superseded_by}")
        finally:
            if not settings.redis_url:
                drop_namespace(client, ns)
    return 0
