"""Headless Chromium: log in, ask, open a citation, and prove a hostile document runs no script.

pytest-django's `live_server` fixture is not used on purpose: it forces `transactional_db`,
whose teardown flushes shared tables (the tenant and domain rows every other test relies on).
Django's own LiveServerThread serves the app instead, on data committed by session fixtures.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from portal.access.models import Project
from tests.chat.conftest import REAL_HANDBOOK_KEY, project_remove
from tests.conftest import make_user
from tests.live import live_server, require_chromium, screenshot, signed_in_page

# django_db: so the test database is set up even when only these tests run; the served data
# is committed by the module fixture, outside any test transaction.
pytestmark = [pytest.mark.browser, pytest.mark.real_model, pytest.mark.django_db]

BROWSER_KEY = "chat-browser"
USERNAME = "browser-demo"
PASSWORD = "browser-pw-123"
HOSTILE = """---
type: runbook
status: accepted
slug: zanzibar-manifests
---

# Zanzibar manifest protocol

The Zanzibar shipping protocol sends cargo manifests to the harbour office every hour.

<script>window.__pwned = "script tag"</script>

<img src="x" onerror="window.__pwned = 'img onerror'">

[Open the manifest portal](javascript:window.__pwned='link')

Manifests that arrive late are re-sent by the harbour office on the next hourly cycle.
"""
DRAFT = """---
type: runbook
status: draft
slug: quokka-pallet-labels
---

# Quokka warehouse pallet labels

Every pallet in the Quokka warehouse gets a yellow label with a QR code before it leaves the dock.
The label printer sits next to dock door 7 and is refilled every Tuesday.
"""


@pytest.fixture(scope="module")
def server(tenants, django_db_blocker, real_handbook, local_embedder) -> Iterator[str]:
    require_chromium()
    from django.contrib.auth import get_user_model

    from chat.models import ChatLog, ContentGap
    from kb.services import document_ingest

    info = tenants["alpha"]
    with django_db_blocker.unblock():
        with info.scope():
            project, _ = Project.objects.get_or_create(
                key=BROWSER_KEY, defaults={"name": "Harbour ops"}
            )
            for path, content in (("zanzibar.md", HOSTILE), ("quokka.md", DRAFT)):
                document_ingest(
                    project=project, source_path=path, content=content, embedder=local_embedder
                )
            last_log = ChatLog.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
            last_gap = ContentGap.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
        make_user(
            info,
            USERNAME,
            password=PASSWORD,
            projects={REAL_HANDBOOK_KEY: "reader", BROWSER_KEY: "reader"},
        )
        with live_server() as port:
            try:
                yield f"http://{info.host}:{port}"
            finally:
                # everything the browser committed goes, so no other test sees it
                with info.scope():
                    ChatLog.objects.filter(pk__gt=last_log).delete()
                    ContentGap.objects.filter(pk__gt=last_gap).delete()
                    get_user_model().objects.filter(username=USERNAME).delete()
                    project_remove(BROWSER_KEY)


@pytest.fixture
def page(browser, server):
    page = signed_in_page(browser, server, (USERNAME, PASSWORD), "/chat/", wait_url="**/chat/")
    yield page
    assert page.errors == [], page.errors  # no JavaScript error on the page (CSP included)


def _shoot(page, name: str) -> None:
    screenshot(page, f"chat-{name}", env="CHAT_SCREENSHOTS_DIR")


def _ask(page, question: str) -> None:
    before = page.locator("article.bubble-answer").count()
    page.fill("#question", question)
    page.click("#ask-form button[type=submit]")
    # a locator wait, not wait_for_function: the page's CSP forbids string evaluation
    page.locator("article.bubble-answer").nth(before).wait_for()


def test_ask_cite_preview_and_refuse_in_a_real_browser(page):
    _ask(page, "How do I fail over the Redis cluster when a primary is down?")
    answer = page.locator("article.bubble-answer").last
    assert answer.get_attribute("data-refusal-reason") == ""
    assert answer.locator("a.chip").count() >= 1
    assert "Redis" in answer.inner_text()
    assert "/chat/c/" in page.url  # the conversation got its own address
    _shoot(page, "answer")

    answer.locator("a.chip").first.click()
    page.wait_for_selector("#preview-body[data-state=ready]")
    assert page.locator("#preview-modal").evaluate("dialog => dialog.open")
    assert page.locator("#preview-body .preview-content").inner_text().strip()
    _shoot(page, "preview")
    page.click("[data-close-modal]")

    _ask(page, "Can you recommend a good recipe for sourdough bread?")
    refusal = page.locator("article.bubble-answer").last
    assert refusal.get_attribute("data-refusal-reason") == "no_relevant_context"
    assert refusal.locator("a.chip").count() == 0
    _shoot(page, "refusal")

    page.set_viewport_size({"width": 390, "height": 844})  # a phone
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    _shoot(page, "mobile")


def test_a_hostile_document_runs_no_script_in_the_preview(page):
    _ask(page, "How often does the Zanzibar shipping protocol send cargo manifests?")
    answer = page.locator("article.bubble-answer").last
    chip = answer.locator("a.chip", has_text="Zanzibar")
    assert chip.count() >= 1, answer.inner_html()
    chip.first.click()
    page.wait_for_selector("#preview-body[data-state=ready]")
    body = page.locator("#preview-body .preview-content")
    assert "window.__pwned" in body.inner_text()  # shown as text
    assert body.locator("script, iframe").count() == 0
    assert body.locator("[onerror]").count() == 0
    link = body.locator("a", has_text="Open the manifest portal")
    assert link.count() == 0 or not (link.first.get_attribute("href") or "").startswith(
        "javascript"
    )
    page.wait_for_timeout(300)  # give any injected handler a chance to fire
    assert page.evaluate("typeof window.__pwned") == "undefined"
    _shoot(page, "hostile-preview")


def test_a_missing_source_shows_the_error_state_with_retry(page):
    page.evaluate(
        """() => {
            const a = document.createElement('a');
            a.href = '/chat/preview/987654321/';
            a.dataset.previewUrl = '/chat/preview/987654321/';
            a.id = 'ghost-chip';
            a.textContent = 'ghost';
            document.querySelector('#chat-main').appendChild(a);
        }"""
    )
    page.click("#ghost-chip")
    page.wait_for_selector("#preview-body[data-state=error]")
    assert "not available" in page.locator("#preview-body").inner_text()
    assert page.locator("#preview-body [data-retry-preview]").is_visible()


def test_a_streaming_provider_streams_into_the_page(page, settings):
    import threading
    from http.server import ThreadingHTTPServer

    from tests.chat.test_openai_provider import FakeOpenAI

    fake = ThreadingHTTPServer(("127.0.0.1", 0), FakeOpenAI)
    fake.daemon_threads = True
    fake.mode = "ok"
    fake.requests = []
    threading.Thread(target=fake.serve_forever, daemon=True).start()
    host, port = fake.server_address[:2]
    settings.CHAT = {
        **settings.CHAT,
        "PROVIDER": "openai",
        "BASE_URL": f"http://{host}:{port}/v1",
        "STREAMING": True,
    }
    try:
        page.reload()
        assert page.locator("#ask-form[data-stream-url]").count() == 1
        page.fill("#question", "How do I fail over the Redis cluster when a primary is down?")
        page.click("#ask-form button[type=submit]")
        answer = page.locator("article.bubble-answer:not(.bubble-streaming)").last
        answer.locator("a.chip").first.wait_for()
        assert "Redis Cluster is the standard cache" in answer.inner_text()
        assert "/chat/c/" in page.url
        assert fake.requests[0]["body"]["stream"] is True
        _shoot(page, "streamed")
    finally:
        fake.shutdown()
        fake.server_close()


def test_chips_run_1_to_n_and_open_the_modal_at_the_highlighted_passage(page):
    _ask(page, "What does GW-4021 mean and what should I do when it fires?")
    answer = page.locator("article.bubble-answer").last
    assert answer.get_attribute("data-refusal-reason") == ""
    # [n] links in order of first appearance, and the chips, both count 1, 2, 3, ...
    seen: list[int] = []
    for ref in answer.locator("a.cite-ref").all_inner_texts():
        n = int(ref.strip("[]"))
        if n not in seen:
            seen.append(n)
    assert seen == list(range(1, len(seen) + 1)), seen
    chips = answer.locator("a.chip")
    chip_numbers = [int(t) for t in answer.locator("a.chip .chip-n").all_inner_texts()]
    assert sorted(chip_numbers) == list(range(1, len(chip_numbers) + 1)), chip_numbers
    listed = [int(t) for t in answer.locator("ul.citations a.chip .chip-n").all_inner_texts()]
    assert listed == sorted(listed), listed

    chip = chips.first
    chunk_id = chip.get_attribute("data-chunk-id")
    chip.click()
    page.wait_for_selector("#preview-body[data-state=ready]")
    cited = page.locator("#preview-body #cited-chunk")
    assert cited.count() == 1
    assert cited.get_attribute("data-chunk-id") == chunk_id
    assert cited.inner_text().strip()
    # the passage is scrolled into the modal's view and holds the keyboard focus
    assert page.evaluate("document.activeElement && document.activeElement.id") == "cited-chunk"
    box = cited.bounding_box()
    viewport = page.viewport_size
    assert box is not None and viewport is not None
    assert 0 <= box["y"] < viewport["height"], box
    _shoot(page, "cited-passage")

    # keyboard only: Escape closes and gives focus back to the chip; Enter reopens
    page.keyboard.press("Escape")
    assert not page.locator("#preview-modal").evaluate("dialog => dialog.open")
    assert page.evaluate("document.activeElement.classList.contains('chip')")
    page.keyboard.press("Enter")
    page.wait_for_selector("#preview-body[data-state=ready] #cited-chunk")
    assert page.locator("#preview-modal").evaluate("dialog => dialog.open")
    page.keyboard.press("Escape")


def test_a_draft_source_carries_its_status_badge(page):
    _ask(page, "Where is the label printer for Quokka warehouse pallets?")
    answer = page.locator("article.bubble-answer").last
    chip = answer.locator("a.chip", has_text="Quokka")
    assert chip.count() >= 1, answer.inner_html()
    badge = chip.first.locator(".badge-status")
    assert badge.inner_text() == "draft"
    assert "dock door 7" in answer.inner_text()
    _shoot(page, "draft-badge")
