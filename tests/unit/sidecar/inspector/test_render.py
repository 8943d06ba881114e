"""The inspector's HTML: stored text is text, times carry UTC, every page has its headers."""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace

from slotstream.memory.models import Status
from slotstream.sidecar.inspector.render import CSP, page, when
from slotstream.sidecar.inspector.views import sections

from support import stored_record as rec

HOSTILE = '<script>alert(1)</script><img src=x onerror=alert(2)> <a href="javascript:alert(3)">x</a>'


def test_times_are_utc_in_the_text_and_on_hover() -> None:
    html = str(when(datetime(2026, 3, 1, 12, 30, tzinfo=UTC)))
    assert html == (
        '<time datetime="2026-03-01T12:30:00Z" title="2026-03-01 12:30:00 UTC">2026-03-01 12:30:00 UTC</time>'
    )
    assert str(when(None)) == "—"


def test_stored_text_renders_as_text_never_as_markup() -> None:
    hostile = rec(
        value=HOSTILE, statement=HOSTILE, attribute="profile.likes", kind="preference", evidence=[{"quote": HOSTILE}]
    )
    now = datetime(2026, 6, 1, tzinfo=UTC)
    response = page(
        "user.html",
        session=SimpleNamespace(csrf="token", key_id="k1"),
        tenant="t1",
        may_write=True,
        may_admin=True,
        title="u1",
        user="u1",
        sections=sections([hostile, rec(Status.SUPERSEDED, value=HOSTILE)], now),
        cut=False,
        now=now,
        notice=None,
        result=None,
        asked={"query": HOSTILE, "session": "", "project": "", "max_items": "8"},
    )
    html = bytes(response.body).decode()
    assert "<script>alert" not in html and "<img src=x" not in html and 'href="javascript:' not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "javascript:alert(3)" in html, "shown, as text"
    assert response.headers["content-security-policy"] == CSP
    assert "script-src 'self'" in CSP and "'unsafe-inline'" not in CSP and "frame-ancestors 'none'" in CSP
    assert response.headers["x-content-type-options"] == "nosniff"
