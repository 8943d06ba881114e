"""The LangGraph store over a real sidecar, worker, Redis and Kafka: what LangGraph's BaseStore
promises (put, get, search, delete, namespaces, ttl, the async twins), what the slot rules add (a
put supersedes, a delete forgets), tenants apart, and a small graph that shares what one thread
learned with another thread of the same user."""

from __future__ import annotations

import asyncio
import time
from typing import Any, TypedDict

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_config, get_store
from langgraph.graph import END, START, StateGraph
from langgraph.store.base import InvalidNamespaceError

from slotstream.client import Client, SidecarRequestError
from slotstream.integrations.langgraph import SlotstreamStore

from support import Service

pytestmark = [pytest.mark.kafka, pytest.mark.integration]


@pytest.fixture
def store(service: Service, tenant: str) -> Any:
    opened = SlotstreamStore(service.url, service.key(tenant))
    yield opened
    opened.close()


def test_put_get_search_delete_as_basestore_promises(store: SlotstreamStore) -> None:
    ns = ("ann",)
    assert store.get(ns, "food") is None
    store.put(ns, "food", {"text": "I love spicy Thai food", "cuisine": "thai"})
    store.put(ns, "pets", {"text": "I have two cats named Miso and Tofu", "cuisine": None})
    item = store.get(ns, "food")
    assert item is not None and item.key == "food" and item.namespace == ns
    assert item.value == {"text": "I love spicy Thai food", "cuisine": "thai"}
    listed = store.search(ns)
    assert {i.key for i in listed} == {"food", "pets"} and all(i.score is None for i in listed)
    assert [i.key for i in store.search(ns, filter={"cuisine": "thai"})] == ["food"]
    assert len(store.search(ns, limit=1)) == 1 and len(store.search(ns, limit=1, offset=1)) == 1
    found = store.search(ns, query="Suggest a restaurant for dinner tonight")
    assert "food" in [i.key for i in found], "what is related by meaning is found"
    assert [i.score for i in found] == [1.0 / (n + 1) for n in range(len(found))], "scored by rank"
    store.delete(ns, "food")
    assert store.get(ns, "food") is None
    assert [i.key for i in store.search(ns)] == ["pets"]


def test_a_put_supersedes_and_keeps_the_history(store: SlotstreamStore, service: Service, tenant: str) -> None:
    ns = ("bo",)
    store.put(ns, "city", {"text": "I live in Lisbon"})
    store.put(ns, "city", {"text": "I moved to Porto"})
    item = store.get(ns, "city")
    assert item is not None and item.value == {"text": "I moved to Porto"}
    assert len(store.search(ns)) == 1
    with Client(service.url, service.key(tenant)) as client:
        current = client.memories("bo", attribute="store.city", status="active").items[0]
        lineage = client.history("bo", current["id"]).lineage
        assert [r["value"]["text"] for r in lineage] == ["I live in Lisbon", "I moved to Porto"]
        assert lineage[0]["status"] == "superseded"


def test_namespaces_are_scopes_and_users(store: SlotstreamStore) -> None:
    store.put(("cy",), "tone", {"text": "keep it formal"})
    store.put(("cy", "project", "p1"), "tone", {"text": "casual is fine here"})
    store.put(("cy", "session", "s9"), "topic", {"text": "tax questions"})
    assert store.get(("cy",), "tone").value["text"] == "keep it formal"  # type: ignore[union-attr]
    assert store.get(("cy", "project", "p1"), "tone").value["text"] == "casual is fine here"  # type: ignore[union-attr]
    assert store.get(("cy", "project", "p2"), "tone") is None
    assert store.get(("other",), "tone") is None
    assert store.list_namespaces(prefix=("cy",)) == [("cy",), ("cy", "project", "p1"), ("cy", "session", "s9")]
    assert store.list_namespaces(prefix=("cy",), max_depth=1) == [("cy",)]
    for bad in ((), ("a:b",), ("cy", "team", "x"), ("cy", "project"), ("cy", "project", "a b")):
        with pytest.raises(InvalidNamespaceError):
            store.get(bad, "tone")
    for key in ("", "a.b", "a/b", "x" * 65):
        with pytest.raises(ValueError):
            store.put(("cy",), key, {"text": "x"})
    with pytest.raises(InvalidNamespaceError):
        store.list_namespaces()


def test_ttl_ends_an_item_at_its_time(store: SlotstreamStore) -> None:
    store.put(("dee",), "mood", {"text": "busy week"}, ttl=0.03)  # 1.8 s
    assert store.get(("dee",), "mood") is not None
    time.sleep(2.0)
    assert store.get(("dee",), "mood") is None
    assert store.search(("dee",)) == []


def test_a_secret_or_an_oversized_item_is_refused_and_nothing_is_stored(store: SlotstreamStore) -> None:
    for value in ({"text": "my api key is sk-live-" + "a" * 40}, {"text": "x" * 2_000_000}):
        with pytest.raises(SidecarRequestError):
            store.put(("ivy",), "note", value)
    assert store.get(("ivy",), "note") is None


def test_another_tenant_sees_nothing(store: SlotstreamStore, service: Service, tenant: str) -> None:
    store.put(("eli",), "food", {"text": "vegan"})
    stranger = SlotstreamStore(service.url, service.key(f"{tenant}x"))
    try:
        assert stranger.get(("eli",), "food") is None and stranger.search(("eli",)) == []
    finally:
        stranger.close()


def test_the_async_twins(store: SlotstreamStore) -> None:
    async def run() -> None:
        await store.aput(("fay",), "drink", {"text": "green tea, no sugar"})
        item = await store.aget(("fay",), "drink")
        assert item is not None and item.value["text"] == "green tea, no sugar"
        assert [i.key for i in await store.asearch(("fay",))] == ["drink"]
        await store.adelete(("fay",), "drink")
        assert await store.aget(("fay",), "drink") is None

    asyncio.run(run())


class Chat(TypedDict):
    said: str
    known: list[str]


def learn(state: Chat) -> dict[str, Any]:
    user = get_config()["configurable"]["user_id"]
    store = get_store()
    if state["said"].startswith("remember:"):
        store.put((user,), "note", {"text": state["said"].removeprefix("remember:").strip()})
    return {"known": [i.value["text"] for i in store.search((user,))]}


def test_a_graph_shares_what_one_thread_learned_with_another(store: SlotstreamStore) -> None:
    graph = StateGraph(Chat)
    graph.add_node("learn", learn)
    graph.add_edge(START, "learn")
    graph.add_edge("learn", END)
    app = graph.compile(checkpointer=InMemorySaver(), store=store)
    first = {"configurable": {"thread_id": "t1", "user_id": "gus"}}
    second = {"configurable": {"thread_id": "t2", "user_id": "gus"}}
    other_user = {"configurable": {"thread_id": "t3", "user_id": "hal"}}
    app.invoke({"said": "remember: I'm allergic to shellfish", "known": []}, first)
    assert app.invoke({"said": "what should I order?", "known": []}, second)["known"] == ["I'm allergic to shellfish"]
    assert app.invoke({"said": "what should I order?", "known": []}, other_user)["known"] == []
