"""Headless Chromium, everyday use (issues 15 and 27): rename/delete a conversation, Enter to
send, a thumbs-down with reasons reaching the editors' queue and resolved there with a note,
the search page with a filter, dark mode, the 404 page, an axe-core scan of chat, modal,
search and home, and screenshots (set SCREENSHOTS_DIR, e.g. docs/screenshots, to write them).

Served like tests/chat/test_browser.py: Django's LiveServerThread on committed module data.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.chat.conftest import REAL_HANDBOOK_KEY
from tests.conftest import make_user
from tests.live import (
    DESKTOP,
    PHONE,
    axe_blocking,
    live_server,
    require_chromium,
    screenshot,
    shoot,
    signed_in_page,
)

pytestmark = [pytest.mark.browser, pytest.mark.real_model, pytest.mark.django_db]

READER = ("everyday-browser", "everyday-pw-123")
EDITOR = ("everyday-browser-ed", "everyday-pw-456")
FAILOVER = "How do I fail over the Redis cluster when a primary is down?"


@pytest.fixture(scope="module")
def server(tenants, django_db_blocker, real_handbook, local_embedder) -> Iterator[str]:
    require_chromium()
    from django.contrib.auth import get_user_model

    from chat.models import ChatLog, ContentGap

    info = tenants["alpha"]
    with django_db_blocker.unblock():
        with info.scope():
            last_log = ChatLog.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
            last_gap = ContentGap.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
        make_user(info, READER[0], password=READER[1], projects={REAL_HANDBOOK_KEY: "reader"})
        make_user(info, EDITOR[0], password=EDITOR[1], projects={REAL_HANDBOOK_KEY: "editor"})
        with live_server() as port:
            try:
                yield f"http://{info.host}:{port}"
            finally:
                with info.scope():
                    ChatLog.objects.filter(pk__gt=last_log).delete()
                    ContentGap.objects.filter(pk__gt=last_gap).delete()
                    # conversations, messages and feedback cascade with the users
                    get_user_model().objects.filter(username__in=[READER[0], EDITOR[0]]).delete()


@pytest.fixture
def page(browser, server):
    page = signed_in_page(browser, server, READER, "/chat/")
    yield page
    assert page.errors == [], page.errors


def _ask(page, question: str, *, press_enter: bool = False) -> Any:
    before = page.locator("article.bubble-answer").count()
    page.fill("#question", question)
    if press_enter:
        page.press("#question", "Enter")
    else:
        page.click("#ask-form button[type=submit]")
    answer = page.locator("article.bubble-answer").nth(before)
    answer.wait_for()
    return answer


def test_enter_sends_and_shift_enter_adds_a_line(page):
    page.fill("#question", "first line")
    page.press("#question", "Shift+Enter")
    page.keyboard.type("second line")
    assert page.input_value("#question") == "first line\nsecond line"
    assert page.locator("article.bubble-answer").count() == 0  # nothing was sent
    assert "Enter sends" in page.locator("#ask-hint").inner_text()
    assert page.locator("#question-counter [data-count]").inner_text() == str(
        len("first line\nsecond line")
    )
    answer = _ask(page, FAILOVER, press_enter=True)
    assert answer.locator("a.chip").count() >= 1
    assert "/chat/c/" in page.url
    shoot(page, "chat-answer")


def test_over_the_limit_the_counter_warns_and_nothing_is_sent(page, settings):
    settings.CHAT = {**settings.CHAT, "QUESTION_MAX_CHARS": 40}
    page.reload()
    page.fill("#question", "x" * 45)
    counter = page.locator("#question-counter")
    assert "too long by 5" in counter.inner_text()
    page.press("#question", "Enter")
    page.wait_for_timeout(500)
    assert page.locator("article.bubble-answer").count() == 0
    shoot(page, "chat-over-limit")


def test_rename_then_delete_a_conversation(page):
    _ask(page, FAILOVER)
    page.click("#conversation-header summary")
    page.fill("#conversation-title", "Redis failover notes")
    page.click("#conversation-header .rename-form button[type=submit]")
    sidebar = page.locator("#conversation-list")
    sidebar.get_by_text("Redis failover notes").wait_for()
    assert page.locator("#conversation-header .conversation-title").inner_text() == (
        "Redis failover notes"
    )
    shoot(page, "chat-rename")
    page.reload()  # it stuck
    assert page.locator("#conversation-list").get_by_text("Redis failover notes").count() == 1

    page.on("dialog", lambda dialog: dialog.accept())
    page.click("#conversation-header summary")
    page.click("#conversation-header .delete-form button[type=submit]")
    page.wait_for_url("**/chat/")
    assert page.locator("#conversation-list").get_by_text("Redis failover notes").count() == 0


def test_thumbs_down_with_reasons_reaches_the_editors_queue_and_is_resolved_with_a_note(
    page, browser, server
):
    from playwright.sync_api import expect

    answer = _ask(page, FAILOVER)
    feedback = answer.locator(".feedback")
    assert feedback.locator("input[name=reasons]").count() == 0  # the rating comes first
    feedback.locator("button[aria-label='Not helpful']").click()
    status = feedback.locator(".feedback-status")
    status.get_by_text("Tell them what was wrong, if you like.").wait_for()
    assert feedback.locator("button[aria-label='Not helpful']").get_attribute("aria-pressed") == (
        "true"
    )
    # keyboard: focus stays on the pressed thumb across the swap; Tab reaches the chips
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "Not helpful"
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.value") == "outdated"
    page.keyboard.press("Space")
    feedback.get_by_label("Wrong source").check()
    feedback.get_by_label("Comment for the editors").fill("It skipped the Sentinel step")
    assert feedback.get_by_label("Outdated").is_checked()
    page.set_viewport_size(PHONE)  # the chips wrap at phone width: nothing scrolls sideways
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.set_viewport_size(DESKTOP)
    assert axe_blocking(page, ".feedback") == []
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")  # the sticky ask box below
    shoot(page, "feedback-reasons")
    feedback.get_by_role("button", name="Send").click()
    expect(status).to_have_text("Thanks. The editors will review this answer.")
    conversation_url = page.url
    page.reload()  # it stuck
    stored = page.locator("article.bubble-answer .feedback").last
    assert stored.get_by_label("Outdated").is_checked()
    assert stored.get_by_label("Wrong source").is_checked()
    assert not stored.get_by_label("Unclear").is_checked()
    dark = signed_in_page(
        browser, server, READER, next_url=conversation_url.split(server)[1], color_scheme="dark"
    )
    assert axe_blocking(dark, ".feedback") == []  # contrast of the chips holds in the dark

    editor = signed_in_page(browser, server, EDITOR, next_url="/admin/chat/feedback/")
    row = editor.locator("#result_list tbody tr", has_text="It skipped the Sentinel step")
    assert row.count() == 1
    assert FAILOVER[:40] in row.inner_text()
    assert "Outdated, Wrong source" in row.inner_text()
    shoot(editor, "admin-feedback-queue")
    row.locator("th a, td a").first.click()
    turns = editor.locator("#feedback-conversation")
    turns.wait_for()
    text = turns.inner_text()
    assert FAILOVER in text and turns.locator(".turn-rated").count() == 1
    assert "It skipped the Sentinel step" in text
    assert turns.locator(".turn-rated .reason-tags li").all_inner_texts() == [
        "Outdated",
        "Wrong source",
    ]
    assert turns.locator(".turn-rated .turn-citations li").count() >= 1
    # the page's own content (Django's header and breadcrumbs are the console's, not its)
    assert axe_blocking(editor) == []
    editor.get_by_label("Note: what you did about it").fill(
        "Added the Sentinel step to the failover runbook."
    )
    shoot(editor, "feedback-item")
    item_path = editor.url.split(server)[1].split("?")[0]
    editor.locator("#feedback-resolution input[type=submit]").click()
    editor.get_by_text("Feedback resolved.").wait_for()
    resolution = editor.locator("#feedback-resolution").inner_text()
    assert "Resolved by everyday-browser-ed" in resolution
    assert "Added the Sentinel step to the failover runbook." in resolution
    dark_editor = signed_in_page(browser, server, EDITOR, next_url=item_path, color_scheme="dark")
    assert axe_blocking(dark_editor) == []
    editor.goto(f"{server}/admin/chat/feedback/")  # the open queue
    assert editor.locator("#result_list tbody tr", has_text="Sentinel").count() == 0
    editor.goto(f"{server}/admin/chat/feedback/documents/")
    assert editor.locator("table tbody tr").count() >= 1
    shoot(editor, "admin-feedback-documents")
    editor.goto(f"{server}/")
    assert "0 open feedback items" in editor.locator("main").inner_text()
    shoot(editor, "home-editor")
    assert editor.errors == [] and dark.errors == [] and dark_editor.errors == []


def test_search_page_with_a_status_filter(page, server):
    page.goto(f"{server}/search/")
    page.fill("#id_q", "redis cache sessions")
    page.click("form[role=search] button[type=submit]")
    results = page.locator("#search-results .search-results > li")
    results.first.wait_for()
    everything = results.count()
    page.select_option("#id_canonical_statuses", "superseded")
    page.click("form[role=search] button[type=submit]")
    page.wait_for_url("**canonical_statuses=superseded*")
    page.locator("#search-results .search-results > li").first.wait_for()
    badges = page.locator("#search-results .search-results > li").all_inner_texts()
    assert badges and all("superseded" in text for text in badges)
    assert len(badges) < everything
    assert page.locator("#search-results mark").count() >= 1
    shoot(page, "search")


def test_dark_mode_follows_the_system_setting(browser, server):
    for path in ("/", "/chat/", "/search/"):
        dark = signed_in_page(browser, server, READER, next_url=path, color_scheme="dark")
        background = dark.evaluate("getComputedStyle(document.body).backgroundColor")
        assert background == "rgb(15, 20, 28)", (path, background)
        assert dark.errors == []
        assert axe_blocking(dark) == [], path  # contrast holds in the dark theme too
    light = signed_in_page(browser, server, READER, next_url="/chat/", color_scheme="light")
    assert light.evaluate("getComputedStyle(document.body).backgroundColor") == (
        "rgb(246, 247, 249)"
    )
    shoot(dark, "search-dark")


def test_unknown_urls_show_the_branded_404(page, server):
    response = page.goto(f"{server}/no/such/page/")
    assert response is not None and response.status == 404
    assert page.locator("h1").inner_text() == "Page not found"
    assert page.locator("a[href='/search/']").count() >= 1
    shoot(page, "not-found")


def test_no_serious_accessibility_violations(page, server):
    _ask(page, FAILOVER)
    page.set_viewport_size(PHONE)
    assert axe_blocking(page) == []  # the drawer closed
    page.click("[data-drawer-open]")
    assert axe_blocking(page) == []  # the drawer open
    page.keyboard.press("Escape")
    page.set_viewport_size(DESKTOP)
    assert axe_blocking(page) == []
    page.locator("article.bubble-answer a.chip").first.click()
    page.wait_for_selector("#preview-body[data-state=ready]")
    close = page.locator("[data-close-modal]").bounding_box()
    assert close and close["width"] >= 24 and close["height"] >= 24
    assert axe_blocking(page, "#preview-modal") == []
    shoot(page, "chat-modal")
    page.click("[data-close-modal]")
    for path in ("/search/?q=redis+failover", "/"):
        page.goto(f"{server}{path}")
        assert page.locator("h1").count() == 1
        assert axe_blocking(page) == [], path
    shoot(page, "home")


def test_stop_ends_a_streaming_answer(page, settings):
    import threading
    from http.server import ThreadingHTTPServer

    from tests.chat.test_openai_provider import FakeOpenAI

    fake = ThreadingHTTPServer(("127.0.0.1", 0), FakeOpenAI)
    fake.daemon_threads = True
    fake.mode = "slow"  # 1.5 s before the first token
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
        stop = page.locator("#ask-form [data-stop-answer]")
        assert not stop.is_visible()  # only while an answer is on its way
        page.fill("#question", FAILOVER)
        page.click("#ask-form button[type=submit]")
        stop.wait_for(state="visible")
        stop.click()
        page.locator(".bubble-streaming .stopped-note").wait_for()
        assert not stop.is_visible()
        assert page.locator("#ask-form button[type=submit]").is_enabled()
        shoot(page, "chat-stopped")
    finally:
        fake.shutdown()
        fake.server_close()


def test_curation_console_views_for_screenshots(browser, server):
    """The new console views render for an editor: record readers, review due, bulk confirm."""
    editor = signed_in_page(browser, server, EDITOR, next_url="/admin/canonical/canonicalrecord/")
    editor.goto(f"{server}/admin/canonical/canonicalrecord/?review=due")
    assert "not reviewed for" in editor.locator("#changelist-filter").inner_text()
    shoot(editor, "admin-review-due")
    editor.goto(f"{server}/admin/canonical/canonicalrecord/?q=redis")
    editor.locator("#result_list tbody tr").first.locator("input.action-select").check()
    editor.select_option("select[name=action]", "deprecate_records")
    editor.click("button[name=index]")
    editor.locator("#bulk-confirm-form textarea[name=reason]").wait_for()
    assert "Deprecate 1 record(s)?" in editor.locator("#content").inner_text()
    shoot(editor, "admin-bulk-confirm")
    editor.click("#bulk-confirm-form .cancel-link")  # nothing is changed
    editor.locator("#result_list tbody tr th a").first.click()
    readers = editor.locator("#record-readers")
    # (the page may still be arriving when the section is first found: wait for its table)
    readers.locator("td", has_text="everyday-browser").first.wait_for()
    assert "everyday-browser" in readers.inner_text()
    readers.scroll_into_view_if_needed()
    shoot(editor, "admin-record-readers")
    assert editor.errors == []


# --- everyday use, round 2 (issue 27) -------------------------------------------------------


def test_on_a_phone_the_conversation_list_is_a_drawer(page):
    from playwright.sync_api import expect

    _ask(page, FAILOVER)
    assert not page.locator("[data-drawer-open]").is_visible()  # a desktop shows the list
    assert page.locator("#chat-sidebar").is_visible()
    page.set_viewport_size(PHONE)
    sidebar = page.locator("#chat-sidebar")
    sidebar.wait_for(state="hidden")  # the chat has the screen
    answer = page.locator("article.bubble-answer").last.bounding_box()
    assert answer and answer["height"] > 150 and answer["width"] > 300
    opener = page.locator("[data-drawer-open]")
    opener.click()
    sidebar.wait_for(state="visible")
    assert opener.get_attribute("aria-expanded") == "true"
    # focus moved into the drawer (a locator waits without evaluating a string, which the
    # page's CSP forbids once a first check has failed)
    expect(page.locator("#chat-sidebar :focus")).to_have_count(1)
    # every conversation title shows whole: not cut in half
    cut = page.evaluate(
        "[...document.querySelectorAll('#conversation-list a')]"
        ".filter(a => a.getBoundingClientRect().height < 24).length"
    )
    assert cut == 0
    screenshot(page, "chat-drawer-phone", full_page=False)
    page.keyboard.press("Escape")
    sidebar.wait_for(state="hidden")
    assert page.evaluate("document.activeElement.hasAttribute('data-drawer-open')")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_a_skip_link_leads_to_the_question_which_comes_before_the_conversation_list(page):
    page.keyboard.press("Tab")
    skip = page.evaluate("[document.activeElement.className, document.activeElement.textContent]")
    assert skip == ["skip-link", "Skip to the question"]
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "question"
    # without the skip link, the question box still comes before the conversation list
    page.reload()
    order = []
    for _ in range(40):
        page.keyboard.press("Tab")
        focused = page.evaluate("document.activeElement.id")
        if focused in {"question", "conversation-q"}:
            order.append(focused)
        if len(order) == 2:
            break
    assert order == ["question", "conversation-q"]


def test_the_cited_passage_reads_in_dark_mode_and_the_preview_names_its_document(browser, server):
    dark = signed_in_page(browser, server, READER, "/chat/", color_scheme="dark")
    _ask(dark, FAILOVER)
    dark.locator("article.bubble-answer a.chip").first.click()
    dark.wait_for_selector("#preview-body[data-state=ready] #cited-chunk")
    heading = dark.locator("#preview-heading").inner_text()
    chip_title = dark.locator("article.bubble-answer a.chip").first.inner_text()
    assert heading and heading in chip_title
    assert dark.locator("#preview-header a.preview-open").count() == 1
    colours = dark.evaluate(
        "(() => { const s = getComputedStyle(document.querySelector('#cited-chunk p, #cited-chunk li'));"
        " const b = getComputedStyle(document.getElementById('cited-chunk'));"
        " return [s.color, b.backgroundColor]; })()"
    )
    assert colours == ["rgb(229, 231, 235)", "rgb(59, 49, 18)"], colours  # light on dark amber
    assert axe_blocking(dark, "#preview-modal") == []
    shoot(dark, "chat-preview-dark")
    dark.click("#preview-header .preview-open")
    dark.wait_for_url("**/chat/documents/**")
    assert dark.locator("h1.preview-title").inner_text() == heading
    assert dark.locator("#cited-chunk").count() == 1
    assert axe_blocking(dark) == []
    shoot(dark, "document-page-dark")
    assert dark.errors == []


def test_copy_answer_copies_the_text_and_its_numbered_sources(browser, server):
    page = signed_in_page(
        browser, server, READER, "/chat/", permissions=["clipboard-read", "clipboard-write"]
    )
    answer = _ask(page, FAILOVER)
    answer.locator("[data-copy-answer]").click()
    page.wait_for_function("document.querySelector('[data-copy-answer]').textContent === 'Copied'")
    copied = page.evaluate("navigator.clipboard.readText()")
    text, _, sources = copied.partition("\n\nSources:\n")
    assert text.strip() == answer.locator(".answer-text").inner_text().strip()
    first = sources.splitlines()[0]
    assert first.startswith("1. ") and f"{server}/chat/preview/" in first
    assert len(sources.splitlines()) == answer.locator(".citations a.chip").count()


def test_a_reload_before_the_answer_arrives_finds_the_answer(page):
    held = []

    def hold(route):  # the server answers, the tab never sees it (as if reloaded meanwhile)
        url = urlsplit(route.request.url)  # the test's resolver knows 127.0.0.1, not the tenant
        held.append(
            route.fetch(
                url=url._replace(netloc=f"127.0.0.1:{url.port}").geturl(),
                headers={**route.request.headers, "host": url.netloc},
            )
        )
        route.abort()

    page.route("**/chat/send", hold)
    page.fill("#question", FAILOVER)
    page.click("#ask-form button[type=submit]")
    page.wait_for_function("window.sessionStorage.getItem('groundwork:pending') !== null")
    for _ in range(600):  # the handler runs while the test waits on the page
        if held:
            break
        page.wait_for_timeout(100)
    assert held and held[0].status == 200, "the question reached the server and was answered"
    page.unroute("**/chat/send")
    page.reload()
    page.wait_for_url("**/chat/c/**")
    answer = page.locator("article.bubble-answer[data-turn-key]")
    answer.wait_for()
    assert page.locator(".bubble-user").first.inner_text() == FAILOVER
    assert page.evaluate("window.sessionStorage.getItem('groundwork:pending')") is None
    shoot(page, "chat-reloaded")


def test_an_expired_session_signs_in_again_and_keeps_the_typed_question(page, server):
    page.fill("#question", "Where is the on-call rota kept?")
    page.context.clear_cookies(name="sessionid")
    page.press("#question", "Enter")
    page.wait_for_url("**/login/?next=*")
    assert page.locator("#chat-main").count() == 0  # a full page, not a fragment in the chat
    shoot(page, "sign-in-again")
    page.fill("#id_username", READER[0])
    page.fill("#id_password", READER[1])
    page.click("form button[type=submit]")
    page.wait_for_url(f"{server}/chat/")
    assert page.input_value("#question") == "Where is the on-call rota kept?"
    shoot(page, "chat-draft-kept")


def test_a_refusal_offers_the_closest_documents(page):
    answer = _ask(page, "How much does the Redis cluster cost per month?")  # a near-miss
    assert answer.get_attribute("data-refusal-reason")
    closest = answer.locator(".closest-documents a[data-preview-url]")
    assert closest.count() >= 1
    closest.first.click()
    page.wait_for_selector("#preview-body[data-state=ready]")
    assert page.locator("#preview-heading").inner_text() == closest.first.inner_text()
    page.keyboard.press("Escape")
    assert axe_blocking(page) == []
    shoot(page, "chat-refusal-closest")
