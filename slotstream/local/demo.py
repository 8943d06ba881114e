"""The demo: a preference set then explicitly corrected, a priority that expires; the context is
printed before and after each change. Runs on the configured Redis or an embedded local one."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from slotstream.client import Client
from slotstream.config.settings import Settings
from slotstream.eval.scenarios import fresh_namespace
from slotstream.local.redis_server import configured_or_local
from slotstream.memory.models import ContextRequest, OpIn, iso
from slotstream.state.namespaces import drop_namespace

if TYPE_CHECKING:
    from slotstream.local.stack import LocalStack

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


def _demo_records(at: datetime) -> list[tuple[datetime, dict[str, Any]]]:
    """The engine demo's writes: a preference, a priority that expires in two days, and (its
    `corrects` filled in when applied) the explicit correction of the preference."""
    conversation = "conversation"
    return [
        (
            at,
            {
                "kind": "preference",
                "attribute": "preference.response.detail",
                "value": "concise",
                "statement": "Prefers short, concise answers.",
                "evidence": [{"source_type": conversation, "source_id": "turn-1", "quote": "Keep it short."}],
            },
        ),
        (
            at + timedelta(minutes=1),
            {
                "kind": "priority",
                "attribute": "priority.focus",
                "value": "ship project A",
                "statement": "This week: ship project A first.",
                "valid_until": iso(at + timedelta(days=2)),
                "evidence": [{"source_type": conversation, "source_id": "turn-2"}],
            },
        ),
        (
            at + timedelta(hours=3),
            {
                "kind": "preference",
                "attribute": "preference.response.detail",
                "value": "detailed",
                "statement": "From now on: detailed answers with the reasoning shown.",
                "evidence": [
                    {
                        "source_type": conversation,
                        "source_id": "turn-7",
                        "quote": "That was wrong: from now on, show the reasoning in detail.",
                    }
                ],
            },
        ),
    ]


def run_demo(settings: Settings) -> int:
    """The engine alone: the demo's writes applied, the context shown before and after each."""
    from slotstream.state.engine import Engine

    with configured_or_local(settings) as client:
        ns = settings.namespace if settings.redis_url else fresh_namespace("demo")
        engine = Engine(client, namespace=ns)
        try:
            _show(engine, "nothing stored yet", T0)
            (first_at, first), (focus_at, focus), (fix_at, fix) = _demo_records(T0)
            owner = {"tenant": TENANT, "user": USER}
            first_id = _apply(engine, first_at, record={**owner, **first}).record_ids[0]
            _apply(engine, focus_at, record={**owner, **focus})
            _show(engine, "after the preference and the priority", T0 + timedelta(minutes=2))
            _apply(engine, fix_at, record={**owner, **fix, "corrects": first_id})
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
    ("2026-09-21T09:12:00Z", "s1", "By the way, I'm vegetarian. I'm also allergic to peanuts."),
    ("2026-09-23T14:00:00Z", "s2", "Actually, that was wrong: from now on answer in detail and show the reasoning."),
    ("2026-09-23T14:02:00Z", "s2", "这次请用英文回答。"),
]
# everyday memory reaches a request that names none of it; the allergy (a special category) only
# where food is the topic
LATER_REQUESTS = [
    ("2026-09-25T18:00:00Z", "Suggest a dinner recipe for tonight."),
    ("2026-09-25T18:05:00Z", "Draft a status email to the client."),
]


def _fresh_demo_key(keys_file: str) -> str:
    """A fresh demo key each run (the previous one is revoked): only its hash is kept."""
    from slotstream.sidecar.keys import create_key, list_keys, revoke_key

    for entry in list_keys(keys_file):
        if entry.get("name") == "demo" and not entry.get("revoked_at"):
            revoke_key(keys_file, entry["id"])
    _, key = create_key(keys_file, TENANT, ["read", "write", "admin"], name="demo")
    return key


def _converse(client: Client) -> None:
    """The conversation as turns through the sidecar, the context before and after each."""
    for n, (at, session, text) in enumerate(CONVERSATION, start=1):
        before = client.context(USER, "how should you answer me?", session=session, at=at)
        # stable turn ids: a second run re-sends the same turns, which the kept state recognises as
        # already applied
        turn = {"user": USER, "session": session, "text": text, "at": at, "turn_id": f"demo-turn-{n}"}
        client.send_turns([turn], wait=15)
        after = client.context(USER, "how should you answer me?", session=session, at=at)
        print(f"\n>>> {at} [{session}] user: {text}")
        print("--- context before:\n" + (before.context or "(empty)"))
        print("--- context after:\n" + (after.context or "(empty)"), flush=True)
    for at, query in LATER_REQUESTS:
        answer = client.context(USER, query, session="s3", at=at)
        print(f"\n>>> {at} [s3] request: {query}")
        print("--- context:\n" + (answer.context or "(empty)"), flush=True)
    print("\nhistory of preference.response.detail:")
    current = client.memories(USER, attribute="preference.response.detail", status="active").items
    if current:
        for rec in client.history(USER, current[0]["id"]).lineage:
            print(
                f"  {rec['id']} {rec['value']!r:12} {rec['status']:11} supersedes={rec['supersedes']} "
                f"superseded_by={rec['superseded_by']}"
            )


def _serve(stack: LocalStack, url: str) -> None:
    print(f"\nserving on {url} (API docs: {url}/docs); Ctrl-C or SIGTERM stops everything", flush=True)
    try:
        while stack.sidecar is not None and stack.sidecar.poll() is None:
            time.sleep(0.5)
    except KeyboardInterrupt as stop:
        print(
            f"stopping ({stop or 'Ctrl-C'}): the sidecar drains, the workers commit, the servers write out", flush=True
        )


def run_pipeline_demo(settings: Settings, serve: bool = True) -> int:
    """The main job: Redis, the Kafka broker, a worker and the sidecar (started locally unless
    configured); a short conversation sent as turns through the sidecar, the context printed
    before and after each turn; then the sidecar keeps serving until Ctrl-C (unless `serve` is off)."""
    from slotstream.local.stack import LocalStack

    where = [
        "embedded Redis" if not settings.redis_url else f"Redis {settings.redis_url}",
        "local Kafka broker (KRaft)" if not settings.kafka_bootstrap else f"Kafka {settings.kafka_bootstrap}",
        f"{settings.workers} worker(s)",
        f"the sidecar on {settings.sidecar_host}:{settings.sidecar_port}",
    ]
    print("starting: " + ", ".join(where), flush=True)
    key = _fresh_demo_key(settings.keys_file)
    with LocalStack(settings, persistent=True, log_dir=Path(settings.data_dir) / "logs") as stack:
        url = stack.start_sidecar()
        print(f"ready: sidecar {url}, kafka {stack.bootstrap}, redis {stack.redis_url}", flush=True)
        kept = stack.engine.records(TENANT, USER)
        if kept:
            print(
                f"the data folder {settings.data_dir}/ holds {len(kept)} records of {TENANT}/{USER} from an earlier "
                "run: the turns below are sent again with the same ids and recognised as already applied, "
                "so each context shows the state as it is now",
                flush=True,
            )
        with Client(url, key) as client:
            _converse(client)
        body = orjson.dumps({"user": USER, "query": "how should you answer me?", "session": "s2"}).decode()
        print(
            "\ntry it:\n"
            f"curl -s -X POST {url}/v1/context -H 'Authorization: Bearer {key}' "
            f"-H 'Content-Type: application/json' -d '{body}'",
            flush=True,
        )
        print(
            f"\nthe memory inspector: {url}/ui/ (sign in with the demo key above; {USER}'s memory is at "
            f"{url}/ui/users/{USER})",
            flush=True,
        )
        print(
            f"the MCP server (Streamable HTTP): {url}/mcp with the header 'Authorization: Bearer <the key>'; "
            "over stdio: SLOTSTREAM_API_KEY=<the key> slotstream mcp (docs/agents.md)",
            flush=True,
        )
        if not serve:
            print("(--demo-only: the sidecar stops now; without it, it keeps serving for this command)", flush=True)
            return 0
        _serve(stack, url)
    return 0
