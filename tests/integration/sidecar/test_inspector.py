"""The memory inspector (/ui) on a real sidecar, worker, Redis and Kafka: sign-in and sessions,
CSRF, scopes and tenants over HTTP, then the pages in Debian's Chromium driven by Playwright
(sign in, browse, try a request, correct, forget, the next context changed; hostile text stays
text; another tenant's user is not reachable; keyboard, narrow screen, the browser's time zone).
Screenshots go to $SLOTSTREAM_TEST_ARTIFACTS (default var/test-artifacts/inspector).
"""

from __future__ import annotations

import os
import re
import shutil
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest

from slotstream.sidecar.keys import revoke_key

from support import Service

pytestmark = [pytest.mark.kafka, pytest.mark.integration]
HOSTILE = '<script>window.__xss=1</script><img src=x onerror="window.__xss=2"> javascript:window.__xss=3'
ARTIFACTS = Path(os.environ.get("SLOTSTREAM_TEST_ARTIFACTS", "var/test-artifacts")) / "inspector"


def say(service: Service, key: str, user: str, *texts: str) -> None:
    with service.http(key) as h:
        turns = [{"user": user, "session": "s1", "text": t} for t in texts]
        answer = h.post("/v1/turns?wait=20", json={"turns": turns})
        assert answer.status_code == 202 and answer.json()["complete"], answer.text


def store(service: Service, key: str, user: str, attribute: str, value: Any, **extra: Any) -> None:
    record = {"user": user, "kind": "preference", "attribute": attribute, "value": value, **extra}
    with service.http(key) as h:
        answer = h.post("/v1/ops?wait=20", json={"ops": [{"record": record}]})
        assert answer.status_code == 202 and answer.json()["accepted"][0]["outcome"] == "applied", answer.text


def memories(service: Service, key: str, user: str, **filters: str) -> list[dict[str, Any]]:
    with service.http(key) as h:
        items: list[dict[str, Any]] = h.get(f"/v1/users/{user}/memories", params=filters).json()["items"]
        return items


def context(service: Service, key: str, user: str, query: str) -> str:
    with service.http(key) as h:
        text: str = h.post("/v1/context", json={"user": user, "query": query, "session": "s1"}).json()["context"]
        return text


def csrf_of(html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found, "the page has a form with its token"
    return found.group(1)


@contextmanager
def signed_in(service: Service, key: str) -> Iterator[httpx.Client]:
    """An HTTP client holding an inspector session started with `key`."""
    with httpx.Client(base_url=service.url, timeout=30) as client:
        form = client.get("/ui/sign-in")
        answer = client.post("/ui/sign-in", data={"key": key, "csrf": csrf_of(form.text)})
        assert answer.status_code == 303 and answer.headers["location"] == "/ui/users", answer.text
        yield client


# --- over HTTP -----------------------------------------------------------------------------------


def test_the_key_is_exchanged_for_a_strict_http_only_session_cookie(service: Service, tenant: str) -> None:
    key = service.key(tenant)
    with httpx.Client(base_url=service.url, timeout=30) as client:
        form = client.get("/ui/sign-in")
        assert form.status_code == 200 and form.headers["content-security-policy"].startswith("default-src 'none'")
        answer = client.post("/ui/sign-in", data={"key": key, "csrf": csrf_of(form.text)})
        assert answer.status_code == 303
        cookie = next(c for c in answer.headers.get_list("set-cookie") if c.startswith("ss_inspector="))
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/ui" in cookie
        assert key not in cookie and key not in answer.headers["location"]
        users = client.get("/ui/users")
        assert users.status_code == 200 and f"Users of tenant {tenant}" in users.text
        for header in ("content-security-policy", "x-content-type-options", "x-frame-options"):
            assert header in users.headers
        assert key not in users.text


def test_sign_in_refuses_a_wrong_key_a_missing_token_and_another_origin(service: Service, tenant: str) -> None:
    key = service.key(tenant)
    with httpx.Client(base_url=service.url, timeout=30) as client:
        token = csrf_of(client.get("/ui/sign-in").text)
        wrong = client.post("/ui/sign-in", data={"key": key[:-2] + "xx", "csrf": token})
        assert wrong.status_code == 401 and "unknown or revoked" in wrong.text
        token = csrf_of(wrong.text)
        assert client.post("/ui/sign-in", data={"key": key}).status_code == 403, "no token"
        assert client.post("/ui/sign-in", data={"key": key, "csrf": "x" * 43}).status_code == 403
        other = client.post("/ui/sign-in", data={"key": key, "csrf": token}, headers={"Origin": "https://evil.example"})
        assert other.status_code == 403 and "cross_origin" in other.text
        as_json = client.post("/ui/sign-in", json={"key": key, "csrf": token})
        assert as_json.status_code == 415 and "unsupported_media_type" in as_json.text
        assert "ss_inspector=" not in str(client.cookies), "no session from any of them"
    with httpx.Client(base_url=service.url, timeout=30) as anonymous:
        assert anonymous.get("/ui/users").headers["location"] == "/ui/sign-in"
        assert anonymous.post("/ui/users/u1/memories/r1/forget", data={"csrf": "x"}).status_code == 401


def test_a_control_without_the_session_token_changes_nothing(service: Service, tenant: str) -> None:
    key = service.key(tenant)
    store(service, key, "ann", "profile.likes", "jazz")
    rec = memories(service, key, "ann")[0]
    with signed_in(service, key) as client:
        path = f"/ui/users/ann/memories/{rec['id']}"
        for form in ({"value": "blues"}, {"value": "blues", "csrf": "forged-" + "x" * 36}):
            assert client.post(path + "/correct", data=form).status_code == 403
        assert client.post(path + "/forget", data={"scope": "record"}).status_code == 403
        assert client.post("/ui/users/ann/erase", data={"confirm": "ann"}).status_code == 403
    assert [(r["value"], r["status"]) for r in memories(service, key, "ann")] == [("jazz", "active")]


def test_each_scope_gets_only_its_controls(service: Service, tenant: str) -> None:
    admin = service.key(tenant)
    store(service, admin, "bo", "profile.likes", "tea")
    rec = memories(service, admin, "bo")[0]
    path = f"/ui/users/bo/memories/{rec['id']}"
    with signed_in(service, service.key(tenant, "read")) as reader:
        page = reader.get(path)
        assert page.status_code == 200 and "correct-form" not in page.text and "Export" not in page.text
        token = csrf_of(page.text)
        assert reader.post(path + "/correct", data={"value": "coffee", "csrf": token}).status_code == 403
        assert reader.get("/ui/users/bo/export").status_code == 403
        assert reader.get("/ui/health").status_code == 403
    with signed_in(service, service.key(tenant, "read,write")) as writer:
        page = writer.get(path)
        assert "correct-form" in page.text and "/erase" not in page.text
        assert writer.post("/ui/users/bo/erase", data={"confirm": "bo", "csrf": csrf_of(page.text)}).status_code == 403
        done = writer.post(path + "/correct", data={"value": "coffee", "csrf": csrf_of(page.text)})
        assert done.status_code == 303 and done.headers["location"] == "/ui/users/bo?done=correct&outcome=applied"
    assert "coffee" in context(service, admin, "bo", "what should I drink")
    with signed_in(service, admin) as owner:
        exported = owner.get("/ui/users/bo/export")
        assert exported.status_code == 200 and exported.headers["content-type"].startswith("application/x-ndjson")
        assert exported.text.count('"type":"record"') == 2, "both versions"


def test_erase_needs_the_user_typed_and_then_holds(service: Service, tenant: str) -> None:
    key = service.key(tenant)
    store(service, key, "cy", "profile.likes", "chess")
    with signed_in(service, key) as client:
        token = csrf_of(client.get("/ui/users/cy").text)
        refused = client.post("/ui/users/cy/erase", data={"confirm": "c", "csrf": token})
        assert refused.status_code == 400 and "not_confirmed" in refused.text
        assert memories(service, key, "cy")
        done = client.post("/ui/users/cy/erase", data={"confirm": "cy", "csrf": token})
        assert done.headers["location"] == "/ui/users?done=erase&outcome=applied"
        assert memories(service, key, "cy") == []
        assert client.get("/ui/users/cy").status_code == 404
        assert "erased" in client.get("/ui/users?q=cy").text


def test_signing_out_ends_the_session(service: Service, tenant: str) -> None:
    with signed_in(service, service.key(tenant)) as client:
        cookie = client.cookies["ss_inspector"]
        out = client.post("/ui/sign-out", data={"csrf": csrf_of(client.get("/ui/users").text)})
        assert out.status_code == 303 and out.headers["location"] == "/ui/sign-in"
    with httpx.Client(base_url=service.url, timeout=30, cookies={"ss_inspector": cookie}) as replayed:
        assert replayed.get("/ui/users").headers.get("location") == "/ui/sign-in", "the old cookie opens nothing"


def test_a_revoked_key_ends_its_sessions(service: Service, tenant: str) -> None:
    key = service.key(tenant)
    with signed_in(service, key) as client:
        assert client.get("/ui/users").status_code == 200
        key_id = key.split("_")[1]
        assert revoke_key(service.keys_file, key_id)
        deadline = time.monotonic() + 5  # the keys file is looked at again within a second
        while (gone := client.get("/ui/users")).status_code == 200 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert gone.status_code == 303 and gone.headers["location"] == "/ui/sign-in"


def test_another_tenants_users_are_not_listed_nor_reachable(service: Service) -> None:
    first, second = f"t{uuid.uuid4().hex[:8]}", f"t{uuid.uuid4().hex[:8]}"
    key_a, key_b = service.key(first), service.key(second)
    store(service, key_a, "dana", "profile.likes", "opera")
    rec = memories(service, key_a, "dana")[0]
    with signed_in(service, key_b) as client:
        assert "dana" not in client.get("/ui/users").text
        assert client.get("/ui/users/dana").status_code == 404
        assert client.get(f"/ui/users/dana/memories/{rec['id']}").status_code == 404
        token = csrf_of(client.get("/ui/users").text)
        forget = client.post(f"/ui/users/dana/memories/{rec['id']}/forget", data={"scope": "record", "csrf": token})
        assert forget.status_code == 404
    with signed_in(service, key_a) as owner:
        assert "dana" in owner.get("/ui/users").text
    assert [r["status"] for r in memories(service, key_a, "dana")] == ["active"]


# --- in the browser ------------------------------------------------------------------------------


def chromium_path() -> str:
    found = os.environ.get("SLOTSTREAM_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not found:
        pytest.fail(
            "no Chromium: scripts/setup.sh installs Debian's chromium when run as root (or set SLOTSTREAM_CHROMIUM)"
        )
    return found


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
        yield chromium
        chromium.close()


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def browser_sign_in(browser: Any, service: Service, key: str, **options: Any) -> Any:
    page = browser.new_context(viewport={"width": 1280, "height": 800}, **options).new_page()
    page.goto(f"{service.url}/ui/")
    page.fill("#key", key)
    page.click("form[action='/ui/sign-in'] button")
    page.wait_for_url("**/ui/users")
    return page


def test_in_the_browser_a_correction_and_a_forget_change_the_next_context(
    browser: Any, service: Service, tenant: str
) -> None:
    key = service.key(tenant)
    say(service, key, "alice", "I'm allergic to peanuts.", "Please keep your answers short.")
    page = browser_sign_in(browser, service, key)
    page.click("text=alice")
    assert page.locator("#records-stated").inner_text().count("peanuts") >= 1

    def tried(request: str) -> str:
        page.fill("#query", request)
        page.fill("#t-session", "s1")
        page.click("text=Show the context")
        return str(page.locator("#context-block").inner_text())

    assert "peanut" in tried("Suggest a snack for the flight")
    answer_style = tried("How should you answer me?")
    assert "short" in answer_style or "concise" in answer_style, answer_style
    shot(page, "user-memory-and-try")
    assert page.locator("#left-out").count() in (0, 1)

    page.click("#records-stated a:has-text('concise'), #records-stated a:has-text('short')")
    page.wait_for_selector("#lineage")
    page.fill("#value", "detailed")
    page.click("#correct-form button")
    page.wait_for_selector("text=correct: applied")
    after = tried("How should you answer me?")
    assert "detailed" in after and "concise" not in after, after

    page.click("#records-stated a:has-text('detailed')")
    shot(page, "lineage-after-correction")
    assert page.locator("svg.timeline g.bar").count() == 2
    assert "superseded" in page.locator("#lineage").inner_text()

    page.click("text=Memory of alice")
    page.click("#records-stated a:has-text('peanuts')")
    page.check("#forget-record")
    page.click("#forget-form button")
    page.wait_for_selector("text=forget: applied")
    assert "peanut" not in tried("Suggest a snack for the flight")
    assert "peanut" not in context(service, key, "alice", "Suggest a snack for the flight")


def test_in_the_browser_hostile_text_shows_literally_and_runs_nothing(
    browser: Any, service: Service, tenant: str
) -> None:
    key = service.key(tenant)
    store(service, key, "eve", "profile.likes", HOSTILE, statement=f"I like {HOSTILE}")
    rec = memories(service, key, "eve")[0]
    page = browser_sign_in(browser, service, key)
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    for path in ("/ui/users/eve", f"/ui/users/eve/memories/{rec['id']}"):
        page.goto(service.url + path)
        assert page.evaluate("window.__xss") is None
        assert page.locator("script:not([src])").count() == 0 and page.locator("img[src=x]").count() == 0
        assert "<script>window.__xss=1</script>" in page.locator("main").inner_text()
    shot(page, "hostile-text-inert")
    assert dialogs == [] and page.evaluate("window.__xss") is None


def test_in_the_browser_another_tenants_user_is_not_reachable_by_url(browser: Any, service: Service) -> None:
    first, second = f"t{uuid.uuid4().hex[:8]}", f"t{uuid.uuid4().hex[:8]}"
    key_a = service.key(first)
    store(service, key_a, "fay", "profile.likes", "sailing")
    rec = memories(service, key_a, "fay")[0]
    page = browser_sign_in(browser, service, service.key(second))
    for path in ("/ui/users/fay", f"/ui/users/fay/memories/{rec['id']}", "/ui/users/fay/export"):
        answer = page.goto(service.url + path)
        assert answer is not None and answer.status == 404, path
        assert "sailing" not in page.content()


def test_in_the_browser_keyboard_narrow_screen_and_local_time(browser: Any, service: Service, tenant: str) -> None:
    key = service.key(tenant)
    store(service, key, "gus", "profile.likes", "hiking in the Alps every summer")
    context_ = browser.new_context(viewport={"width": 1280, "height": 800}, timezone_id="Asia/Tokyo", locale="en-US")
    page = context_.new_page()
    page.goto(f"{service.url}/ui/sign-in")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className") == "skip"
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "key", "the key field is reached by keyboard"
    page.keyboard.type(key)
    page.keyboard.press("Enter")
    page.wait_for_url("**/ui/users")
    page.goto(f"{service.url}/ui/users/gus")
    stamp = page.locator(".note time").first
    title = stamp.get_attribute("title") or ""
    assert title.endswith(" UTC") and stamp.inner_text() != title, "the text is in the browser's zone"
    tokyo = datetime.strptime(title, "%Y-%m-%d %H:%M:%S UTC").replace(tzinfo=UTC).astimezone(ZoneInfo("Asia/Tokyo"))
    assert f"{tokyo.hour % 12 or 12}:{tokyo:%M:%S}" in stamp.inner_text(), (stamp.inner_text(), title)
    page.set_viewport_size({"width": 375, "height": 800})
    page.goto(f"{service.url}/ui/users/gus")
    wide = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert wide <= 0, f"the page scrolls sideways by {wide}px on a narrow screen"
    shot(page, "narrow-screen")


def test_in_the_browser_the_health_page_draws_live_charts(browser: Any, service: Service, tenant: str) -> None:
    key = service.key(tenant)
    page = browser_sign_in(browser, service, key)
    page.click("text=Pipeline health")
    page.wait_for_selector("[data-chart=lag] polyline", state="attached")
    say(service, key, "hal", "I live in Lisbon.")
    # a rate needs two reads; (wait_for_function would evaluate a string: the page's policy refuses that)
    page.wait_for_selector("[data-chart=applied] polyline", state="attached")
    legend = page.locator("[data-chart=lag] .legend").inner_text()
    assert ".turns #0" in legend and ".ops #0" in legend
    assert "Last read" in page.locator("#health-status").inner_text()
    shot(page, "pipeline-health")


def test_malformed_and_hostile_page_inputs_get_a_reason_and_change_nothing(service: Service, tenant: str) -> None:
    key = service.key(tenant)
    store(service, key, "ivy", "profile.likes", "jazz")
    with signed_in(service, key) as client:
        listed = client.get("/ui/users", params={"q": "a:b{*}"})
        assert listed.status_code == 200 and "letters, digits" in listed.text
        token = csrf_of(client.get("/ui/users/ivy").text)
        tried = client.post("/ui/users/ivy/try", data={"csrf": token, "query": "x", "max_items": "lots"})
        assert tried.status_code == 422 and "whole number" in tried.text
        tried = client.post("/ui/users/ivy/try", data={"csrf": token, "query": "x" * 4_001, "max_items": "8"})
        assert tried.status_code == 422
        crowded = client.post("/ui/users/ivy/try", data={"csrf": token, **{f"f{n}": "x" for n in range(30)}})
        assert crowded.status_code == 400 and "invalid_form" in crowded.text
        assert client.get("/ui/users/a%3Ab").status_code == 422
    for cookie in ("x", "*" * 43, "../" * 15, "a" * 4_000):
        with httpx.Client(base_url=service.url, timeout=30, cookies={"ss_inspector": cookie}) as forged:
            assert forged.get("/ui/users").headers.get("location") == "/ui/sign-in", cookie
    assert [(r["value"], r["status"]) for r in memories(service, key, "ivy")] == [("jazz", "active")]
