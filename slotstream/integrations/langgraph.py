"""A LangGraph store (`BaseStore`) over the sidecar: what a graph puts becomes a record, written
through the ops topic and the slot rules like any other.

What it is, and is not:
- A namespace is `(user,)`, `(user, "project", id)` or `(user, "session", id)`: the user the items
  belong to, and the scope they hold in. The tenant is the API key's.
- An item is a record `store.<key>` of the user, in that scope, kind `preference`, with the
  item's dict as its value and its `text` (or `content`) as the statement selection reads. A put
  to a key that holds a value supersedes it (the old version stays in the record's history); a
  put of None, or a delete, forgets the key in that scope, and what is forgotten stays forgotten
  against replays. `ttl` (minutes) becomes the record's validity: the item stops being returned
  at that moment; reading it does not extend it.
- `search` with a query is a context lookup (relevance by meaning and the selection's budget),
  scored by rank; without one it lists the namespace's items, filtered by exact field values.
- Keys are `[A-Za-z0-9_-]{1,64}`; ids as the API's. A put waits for the write to apply (so a get
  right after it sees it) up to `wait` seconds.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)

from slotstream.client import Client
from slotstream.memory.models import ID_RE, SCOPE_ID_RE

PREFIX = "store."
KEY_RE = re.compile(r"^[A-Za-z0-9_\-]{1,64}$")
SCOPE_KINDS = ("project", "session")


class SlotstreamStore(BaseStore):
    supports_ttl = True  # a put's ttl is the record's validity (reading does not extend it)

    def __init__(self, base_url: str, key: str, wait: float = 10.0) -> None:
        self.client = Client(base_url, key, timeout=wait + 10)
        self.wait = wait

    def close(self) -> None:
        self.client.close()

    # --- BaseStore ---------------------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        results: list[Result] = []
        for op in ops:
            if isinstance(op, GetOp):
                results.append(self._get(op.namespace, op.key))
            elif isinstance(op, PutOp):
                self._put(op.namespace, op.key, op.value, op.ttl)
                results.append(None)
            elif isinstance(op, SearchOp):
                results.append(self._search(op.namespace_prefix, op.query, op.filter, op.limit, op.offset))
            elif isinstance(op, ListNamespacesOp):
                results.append(self._namespaces(op))
            else:
                raise TypeError(f"unknown store op {type(op).__name__}")
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        # the HTTP calls block: off the event loop
        return await asyncio.get_running_loop().run_in_executor(None, self.batch, list(ops))

    # --- the ops -------------------------------------------------------------------------------

    def _get(self, namespace: tuple[str, ...], key: str) -> Item | None:
        user, scope = _where(namespace)
        found = self._items(user, scope, _key(key))
        return found[0] if found else None

    def _put(self, namespace: tuple[str, ...], key: str, value: Mapping[str, Any] | None, ttl: float | None) -> None:
        user, scope = _where(namespace)
        attribute = PREFIX + _key(key)
        if value is None:
            command = {"op": "forget", "user": user, "match": {"attribute": attribute, "scope": scope}}
            self.client.send_ops([{"command": command}], wait=self.wait)
            return
        text = value.get("text") or value.get("content")
        record: dict[str, Any] = {
            "user": user,
            "kind": "preference",
            "attribute": attribute,
            "scope": scope,
            "value": dict(value),
            "statement": str(text) if text else None,
            # a put replaces what the key holds: a correction of the slot's current value, applied
            # by reconciliation (the same rule a user's "that was wrong" follows)
            "corrects_current": True,
        }
        if ttl is not None:
            record["valid_until"] = (datetime.now(UTC) + timedelta(minutes=ttl)).isoformat()
        outcome = self.client.send_ops([{"record": record}], wait=self.wait)
        first = outcome.accepted[0]
        if first.outcome == "rejected":
            raise ValueError(f"the store's record was refused: {first.reason}")

    def _search(
        self,
        prefix: tuple[str, ...],
        query: str | None,
        wanted: dict[str, Any] | None,
        limit: int,
        offset: int,
    ) -> list[SearchItem]:
        user, scope = _where(prefix)
        items = [i for i in self._items(user, scope) if _matches(i.value, wanted)]
        if not query:
            return [_scored(i, None) for i in items[offset : offset + limit]]
        session = scope.split(":", 1)[1] if scope.startswith("session:") else None
        project = scope.split(":", 1)[1] if scope.startswith("project:") else None
        found = self.client.context(user, query, session=session, project=project, max_items=200)
        by_id = {i.key: i for i in items}
        ranked: list[SearchItem] = []
        for line in (line for lines in found.sections.values() for line in lines):
            if line.attribute.startswith(PREFIX):
                item = by_id.get(line.attribute[len(PREFIX) :])
                if item is not None and item.key not in {r.key for r in ranked}:
                    ranked.append(_scored(item, None))
        # scored by rank in the context: 1.0 first, falling
        out = [_scored(r, 1.0 / (n + 1)) for n, r in enumerate(ranked)]
        return out[offset : offset + limit]

    def _namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        prefixes = [c.path for c in op.match_conditions or () if c.match_type == "prefix"]
        users = {p[0] for p in prefixes if p and p[0] != "*"}
        if not users:
            raise InvalidNamespaceError("list namespaces from a prefix naming the user: (user, ...)")
        spaces: set[tuple[str, ...]] = set()
        for user in users:
            for rec in self._records(user):
                kind, _, ident = str(rec["scope"]).partition(":")
                spaces.add((user,) if kind == "global" else (user, kind, ident))
        chosen = sorted(s for s in spaces if any(s[: len(p)] == tuple(p) for p in prefixes))
        if op.max_depth is not None:
            chosen = sorted({s[: op.max_depth] for s in chosen})
        return chosen[op.offset : op.offset + op.limit]

    # --- reading records -----------------------------------------------------------------------

    def _records(self, user: str) -> list[dict[str, Any]]:
        """The user's active store records (every page)."""
        out: list[dict[str, Any]] = []
        cursor = 0
        while True:
            page = self.client.memories(user, cursor=cursor, limit=200, status="active")
            out += [r for r in page.items if str(r["attribute"]).startswith(PREFIX)]
            if not page.next_cursor:
                return out
            cursor = page.next_cursor

    def _items(self, user: str, scope: str, key: str | None = None) -> list[Item]:
        now = datetime.now(UTC)
        items = []
        for rec in self._records(user):
            if rec["scope"] != scope or (key is not None and rec["attribute"] != PREFIX + key):
                continue
            until = rec.get("valid_until")
            if until and datetime.fromisoformat(until) <= now:
                continue  # past its ttl: gone at that moment, whether or not a sweep has run
            items.append(
                Item(
                    value=rec["value"],
                    key=rec["attribute"][len(PREFIX) :],
                    namespace=_namespace(user, scope),
                    created_at=datetime.fromisoformat(rec["observed_at"]),
                    updated_at=datetime.fromisoformat(rec["updated_at"]),
                )
            )
        items.sort(key=lambda i: (i.updated_at, i.key), reverse=True)
        return items


def _where(namespace: tuple[str, ...]) -> tuple[str, str]:
    """(user, scope) of a namespace: (user,), (user, "project", id) or (user, "session", id)."""
    if not namespace or not ID_RE.fullmatch(str(namespace[0])):
        raise InvalidNamespaceError(f"a namespace starts with the user's id ([A-Za-z0-9_.@+-]): {namespace!r}")
    if len(namespace) == 1:
        return namespace[0], "global"
    if len(namespace) == 3 and namespace[1] in SCOPE_KINDS and SCOPE_ID_RE.fullmatch(str(namespace[2])):
        return namespace[0], f"{namespace[1]}:{namespace[2]}"
    raise InvalidNamespaceError(f"(user,), (user, 'project', id) or (user, 'session', id), not {namespace!r}")


def _namespace(user: str, scope: str) -> tuple[str, ...]:
    kind, _, ident = scope.partition(":")
    return (user,) if kind == "global" else (user, kind, ident)


def _key(key: str) -> str:
    if not KEY_RE.fullmatch(key):
        raise ValueError(f"a store key is [A-Za-z0-9_-]{{1,64}}, not {key!r}")
    return key


def _matches(value: Mapping[str, Any], wanted: Mapping[str, Any] | None) -> bool:
    return all(value.get(k) == v for k, v in (wanted or {}).items())


def _scored(item: Item, score: float | None) -> SearchItem:
    return SearchItem(item.namespace, item.key, item.value, item.created_at, item.updated_at, score)
