"""The inspector's HTML: Jinja2 templates with escaping always on, and the headers every page is
sent with (a strict Content-Security-Policy: the page's own script and style only, no inline
code, no frames, forms posting to itself only)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup
from starlette.responses import HTMLResponse, Response

from .views import shown_value

HERE = Path(__file__).parent
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",  # "no-referrer" would make the browser send Origin: null on posts
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
    "Cross-Origin-Opener-Policy": "same-origin",
}


def when(at: datetime | None) -> Markup:
    """A time as the page shows it: UTC in the text and on hover; the page's script rewrites the
    text in the browser's zone and keeps UTC in the title."""
    if at is None:
        return Markup("—")
    utc = at.astimezone(UTC)
    text = utc.strftime("%Y-%m-%d %H:%M:%S UTC")
    return Markup('<time datetime="{}" title="{}">{}</time>').format(utc.isoformat().replace("+00:00", "Z"), text, text)


_env = Environment(
    loader=FileSystemLoader(HERE / "templates"),
    autoescape=True,  # every value is text unless a template marks it otherwise
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)
_env.filters["when"] = when
_env.filters["shown"] = shown_value


def page(template: str, code: int = 200, **values: Any) -> HTMLResponse:
    html = _env.get_template(template).render(**values)
    return HTMLResponse(html, status_code=code, headers=HEADERS)


def secured(response: Response) -> Response:
    response.headers.update(HEADERS)
    return response


STATIC = {
    "inspector.css": ("text/css; charset=utf-8", (HERE / "static" / "inspector.css").read_bytes()),
    "inspector.js": ("text/javascript; charset=utf-8", (HERE / "static" / "inspector.js").read_bytes()),
    "favicon.svg": ("image/svg+xml", (HERE / "static" / "favicon.svg").read_bytes()),
}
