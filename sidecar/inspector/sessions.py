"""Sign-in sessions of the memory inspector, kept in Redis so every sidecar process knows them.

An API key is exchanged once for a session: the cookie holds only a random session id, never the
key. The session remembers the key's id, and every request checks that key again (a revoked key
ends its sessions at once). Each session has its own CSRF token, which every form sends back; the
sign-in form, before there is a session, pairs a random token in a short-lived cookie with the
same token in the form.
"""

from __future__ import annotations

import hmac
import secrets
import time
from dataclasses import dataclass
from typing import Any

import orjson

from ..keys import KeyStore, Principal

COOKIE = "ss_inspector"
SIGN_IN_COOKIE = "ss_inspector_signin"
IDLE_SECONDS = 30 * 60  # a session unused this long ends
LIFETIME_SECONDS = 12 * 3600  # and none lasts longer, used or not
SIGN_IN_SECONDS = 15 * 60


@dataclass(frozen=True)
class Session:
    id: str
    key_id: str
    csrf: str
    started: float
    principal: Principal


def session_key(session_id: str) -> str:
    return f"slotstream:inspector:session:{session_id}"


def new_token() -> str:
    return secrets.token_urlsafe(32)


def same_token(sent: str | None, expected: str | None) -> bool:
    """A constant-time comparison of a token a form sent with the one it had to send."""
    return bool(sent) and bool(expected) and hmac.compare_digest(str(sent), str(expected))


def well_formed(session_id: str) -> bool:
    # token_urlsafe(32): 43 characters of the URL-safe alphabet; anything else is not looked up
    return len(session_id) == 43 and all(c.isalnum() or c in "-_" for c in session_id)


class SessionStore:
    def __init__(self, client: Any, keys: KeyStore, clock: Any = time.time) -> None:
        """`client`: an asyncio Redis client (plain or cluster)."""
        self.client, self.keys, self.clock = client, keys, clock

    async def start(self, principal: Principal) -> Session:
        session = Session(new_token(), principal.key_id, new_token(), self.clock(), principal)
        body = {"key_id": session.key_id, "csrf": session.csrf, "started": session.started}
        await self.client.set(session_key(session.id), orjson.dumps(body), ex=IDLE_SECONDS)
        return session

    async def find(self, session_id: str | None) -> Session | None:
        """The live session a cookie names, its key still valid; None otherwise (and an ended
        session is removed)."""
        if not session_id or not well_formed(session_id):
            return None
        # read and kept alive in one round trip
        raw = await self.client.getex(session_key(session_id), ex=IDLE_SECONDS)
        if raw is None:
            return None
        body = orjson.loads(raw)
        principal = self.keys.principal(body["key_id"])
        if principal is None or self.clock() - float(body["started"]) > LIFETIME_SECONDS:
            await self.end(session_id)
            return None
        return Session(session_id, body["key_id"], body["csrf"], float(body["started"]), principal)

    async def end(self, session_id: str) -> None:
        if well_formed(session_id):
            await self.client.delete(session_key(session_id))
