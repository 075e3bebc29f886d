"""Headless Chromium, answer drift (issue 28 part 3): an editor supersedes a record in the
console (the confirmation says how many answers cite it), a worker runs the drift job, the
asker sees the bell's count, opens the notifications and asks again in the same
conversation. Desktop and phone, an axe-core scan of each view, screenshots when
SCREENSHOTS_DIR is set (docs/screenshots/notifications-{desktop,phone}.png).

Served like tests/chat/test_browser_versions.py: Django's LiveServerThread on data this
module commits (and removes afterwards), with a worker thread running the queue.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.test.utils import override_settings

from tests.chat.conftest import RecordingProvider, project_remove
from tests.conftest import make_user
from tests.live import (
    DESKTOP,
    PHONE,
    QueueWorker,
    accept_stored_passwords,
    axe_blocking,
    launch_chromium,
    live_server,
    require_chromium,
    shoot,
    signed_in_page,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db]

KEY = "drift-browser"
READER = ("drift-reader-b", "drift-pw-123")
EDITOR = ("drift-editor-b", "drift-pw-456")
PROVIDER = "drift-recording"
DOC = """---
type: decision
status: accepted
slug: billing-queue-decision
---

# Billing queue decision

## Decision

Billing events go through RabbitMQ quorum queues with three nodes.
"""
SUCCESSOR = """---
type: decision
status: accepted
slug: billing-kafka-decision
---

# Billing on Kafka

## Decision

Billing events go through Kafka topics with six partitions.
"""
QUESTION = "Which queue do billing events go through?"


@pytest.fixture(scope="module")
def server(tenants, django_db_blocker) -> Iterator[dict[str, Any]]:
    """Two records and the reader's answer citing the first one: committed."""
    require_chromium()
    from django.conf import settings
    from django.contrib.auth import get_user_model

    from chat.models import ChatLog, ContentGap
    from chat.providers import register_provider
    from chat.services import message_send
    from kb.embeddings import build_embedder
    from kb.filters import SearchFilters
    from kb.services import document_ingest
    from portal.access.services import project_ensure

    info = tenants["alpha"]
    provider = RecordingProvider(reply="Billing events go through RabbitMQ quorum queues [1].")
    register_provider(PROVIDER, lambda: provider)
    with django_db_blocker.unblock():
        reader = make_user(info, READER[0], password=READER[1], projects={KEY: "reader"})
        make_user(info, EDITOR[0], password=EDITOR[1], projects={KEY: "editor"})
        with info.scope():
            last_log = ChatLog.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
            last_gap = ContentGap.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
            project = project_ensure(key=KEY)
            embedder = build_embedder("hash")
            document = document_ingest(
                project=project, source_path="queue.md", content=DOC, embedder=embedder
            ).document
            successor = document_ingest(
                project=project, source_path="kafka.md", content=SUCCESSOR, embedder=embedder
            ).document
            assert document is not None and successor is not None
            with override_settings(
                KB={**settings.KB, "EMBEDDING_PROVIDER": "hash", "MIN_SIMILARITY": 0.0},
                CHAT={**settings.CHAT, "PROVIDER": PROVIDER},
            ):
                turn = message_send(
                    user=reader,
                    question=QUESTION,
                    filters=SearchFilters(project_keys=(KEY,), doc_ids=(document.pk,)),
                )
            assert turn.refusal_reason is None, turn
        worker = QueueWorker(name="drift-test-worker", idle=0.2)
        with live_server() as port:
            worker.start()
            try:
                yield {
                    "base": f"http://{info.host}:{port}",
                    "document_id": document.pk,
                    "successor_id": successor.pk,
                    "conversation_id": turn.conversation.pk,
                    "worker": worker,
                }
            finally:
                worker.stop.set()
                worker.join(60)
                with info.scope():
                    ChatLog.objects.filter(pk__gt=last_log).delete()
                    ContentGap.objects.filter(pk__gt=last_gap).delete()
                    get_user_model().objects.filter(username__in=[READER[0], EDITOR[0]]).delete()
                    project_remove(KEY)


@pytest.fixture
def browser(server, settings) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    accept_stored_passwords(settings)
    # the re-ask answers like the first answer did (the live server shares these settings)
    settings.KB = {**settings.KB, "EMBEDDING_PROVIDER": "hash", "MIN_SIMILARITY": 0.0}
    settings.CHAT = {**settings.CHAT, "PROVIDER": PROVIDER}
    with sync_playwright() as playwright:
        chromium = launch_chromium(playwright)
        yield chromium
        chromium.close()


def test_an_editor_supersedes_and_the_asker_is_told_and_asks_again(browser, server):
    from playwright.sync_api import expect

    base = server["base"]
    # the editor supersedes the record in the console; the confirmation counts the answers
    editor = signed_in_page(browser, base, EDITOR, "/admin/canonical/canonicalrecord/")
    editor.check(f"input[name=_selected_action][value='{server['document_id']}']")
    editor.select_option("select[name=action]", "supersede_records")
    editor.click("button[name=index]")
    editor.wait_for_selector("#supersede-form")
    count = editor.locator("#citing-count").inner_text()
    assert "1 stored answer (asked by 1 person) cites this record." in count
    editor.select_option("#id_successor", str(server["successor_id"]))
    editor.fill("#id_reason", "We moved billing to Kafka")
    editor.click("#supersede-form input[type=submit]")
    expect(editor.locator("ul.messagelist")).to_contain_text("Superseded 1 record(s)")

    # the asker sees the bell (the worker ran the drift job), opens it and asks again
    reader = signed_in_page(browser, base, READER, "/chat/")
    bell = reader.locator("#notification-bell")
    for _ in range(50):
        if bell.locator(".bell-count").count():
            break
        reader.wait_for_timeout(200)
        reader.reload()
    assert not server["worker"].errors
    expect(bell.locator(".bell-count")).to_have_text("1")
    assert bell.get_attribute("aria-label") == "Notifications, 1 unread"
    bell.click()
    reader.wait_for_url("**/chat/notifications/")
    item = reader.locator(".notification").first
    expect(item).to_contain_text(f"about “{QUESTION}” cites Billing queue decision")
    expect(item).to_contain_text("now superseded by Billing on Kafka")
    expect(item).to_contain_text("Reason given: We moved billing to Kafka")
    for viewport in (DESKTOP, PHONE):
        reader.set_viewport_size(viewport)
        assert axe_blocking(reader) == [], viewport
        assert reader.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    reader.set_viewport_size(DESKTOP)
    shoot(reader, "notifications")

    item.get_by_role("button", name="Ask again").click()
    reader.wait_for_url(f"**/chat/c/{server['conversation_id']}/")
    answers = reader.locator("article.bubble-answer")
    expect(answers).to_have_count(2)
    # the first answer carries the note; the new one is asked in the same conversation
    expect(answers.first.locator(".drift-note")).to_contain_text(
        "Billing queue decision: now superseded by Billing on Kafka"
    )
    expect(reader.locator(".bubble-user")).to_have_count(2)
    for viewport in (DESKTOP, PHONE):
        reader.set_viewport_size(viewport)
        assert axe_blocking(reader, "#message-list") == [], viewport
    assert reader.errors == [] and editor.errors == []
