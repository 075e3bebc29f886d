"""Headless Chromium, document versions (issue 28): an editor opens a document's history,
reads a diff and restores an old version; a reader opens an old answer's chip after the
document changed and reads the passage as it was, under the banner. Desktop and phone, an
axe-core scan of each view, screenshots when SCREENSHOTS_DIR is set (docs/screenshots).

Served like tests/chat/test_browser_everyday.py: Django's LiveServerThread on data this
module commits (and removes afterwards).
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
    axe_blocking,
    live_server,
    require_chromium,
    shoot,
    signed_in_page,
)

# the pages here read no answer of the real model: the browser keeps the test embedder
KEEP_TEST_EMBEDDER = True

pytestmark = [pytest.mark.browser, pytest.mark.django_db]

KEY = "versions-browser"
READER = ("versions-reader", "versions-pw-123")
EDITOR = ("versions-editor", "versions-pw-456")
DOC = """---
type: runbook
status: accepted
slug: billing-queue-runbook
tags: [billing]
---

# Billing queue runbook

## Where events go

Billing events go through RabbitMQ quorum queues with three nodes.

## When the queue backs up

Scale the consumers first, then page the billing on-call engineer.
"""
DOC_V2 = DOC.replace(
    "Billing events go through RabbitMQ quorum queues with three nodes.",
    "Billing events go through Kafka topics with six partitions and two replicas.",
).replace("tags: [billing]", "tags: [billing, kafka]")
QUESTION = "Which queue do billing events go through?"


@pytest.fixture(scope="module")
def server(tenants, django_db_blocker) -> Iterator[dict[str, Any]]:
    """The runbook at version 1, an answer citing it, then version 2: committed."""
    require_chromium()
    from django.conf import settings
    from django.contrib.auth import get_user_model

    from chat.models import ChatLog, ContentGap
    from chat.providers import register_provider
    from chat.services import message_send
    from kb.curation import AuditContext, ChangeSource
    from kb.embeddings import build_embedder
    from kb.filters import SearchFilters
    from kb.services import document_ingest
    from kb.worker import run_queued_tasks
    from portal.access.services import project_ensure

    info = tenants["alpha"]
    provider = RecordingProvider(reply="Billing events go through RabbitMQ quorum queues [1].")
    register_provider("versions-recording", lambda: provider)
    with django_db_blocker.unblock():
        reader = make_user(info, READER[0], password=READER[1], projects={KEY: "reader"})
        editor = make_user(info, EDITOR[0], password=EDITOR[1], projects={KEY: "editor"})
        with info.scope():
            last_log = ChatLog.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
            last_gap = ContentGap.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
            project = project_ensure(key=KEY)
            embedder = build_embedder("hash")
            document = document_ingest(
                project=project, source_path="billing.md", content=DOC, embedder=embedder
            ).document
            assert document is not None
            with override_settings(
                KB={**settings.KB, "EMBEDDING_PROVIDER": "hash", "MIN_SIMILARITY": 0.0},
                CHAT={**settings.CHAT, "PROVIDER": "versions-recording"},
            ):
                turn = message_send(
                    user=reader, question=QUESTION, filters=SearchFilters(project_keys=(KEY,))
                )
            assert turn.refusal_reason is None and turn.citations[0]["version"] == 1, turn
            document_ingest(
                project=project,
                source_path="billing.md",
                content=DOC_V2,
                embedder=embedder,
                origin=AuditContext(actor=editor, source=ChangeSource.API),
            )
            # the re-ingest queued the answer's drift check: run it, so no later test's
            # worker meets a committed task this module left behind
            run_queued_tasks()
        with live_server() as port:
            try:
                yield {
                    "base": f"http://{info.host}:{port}",
                    "document_id": document.pk,
                    "conversation_id": turn.conversation.pk,
                }
            finally:
                with info.scope():
                    ChatLog.objects.filter(pk__gt=last_log).delete()
                    ContentGap.objects.filter(pk__gt=last_gap).delete()
                    get_user_model().objects.filter(username__in=[READER[0], EDITOR[0]]).delete()
                    project_remove(KEY)
                # the restore queued a drift check (committed): run it, so no later test
                # counting the queue's work meets it
                run_queued_tasks()


def test_a_reader_opens_an_old_answers_chip_and_reads_the_passage_as_it_was(browser, server):
    from playwright.sync_api import expect

    page = signed_in_page(browser, server["base"], READER, f"/chat/c/{server['conversation_id']}/")
    chip = page.locator("article.bubble-answer a.chip").first
    assert "version=1" in (chip.get_attribute("href") or "")
    chip.click()
    page.wait_for_selector("#preview-body[data-state=ready] #cited-chunk")
    body = page.locator("#preview-body")
    banner = body.locator(".preview-banner-version")
    assert "You are reading version 1 of" in banner.inner_text()
    assert "as cited" in banner.inner_text()
    cited = body.locator("#cited-chunk").inner_text()
    assert "RabbitMQ quorum queues" in cited
    assert "Kafka" not in body.inner_text()
    assert axe_blocking(page, "#preview-modal") == []
    page.set_viewport_size(PHONE)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert axe_blocking(page, "#preview-modal") == []
    page.set_viewport_size(DESKTOP)
    shoot(page, "pinned-citation")
    # the banner's link opens today's text in the same preview
    banner.get_by_role("link", name="Open the current version").click()
    expect(page.locator("#preview-body")).to_contain_text("Kafka topics")
    assert page.locator("#preview-body .preview-banner-version").count() == 0
    assert page.errors == [], page.errors


def test_an_editor_reads_the_history_compares_and_restores_a_version(browser, server):
    from playwright.sync_api import expect

    document_id = server["document_id"]
    page = signed_in_page(browser, server["base"], EDITOR, f"/chat/documents/{document_id}/")
    history = page.locator("#versions + .table-scroll table.versions")
    expect(history.locator("tbody tr")).to_have_count(2)
    assert "current" in history.locator("tbody tr").first.inner_text()
    page.get_by_role("link", name="Compare versions and restore one").click()
    page.wait_for_url(f"**/chat/documents/{document_id}/versions/")
    diff = page.locator(".version-diff")
    assert "Changes from version 1 to version 2" in diff.locator("h2").inner_text()
    removed = diff.locator(".diff-removed").all_inner_texts()
    added = diff.locator(".diff-added").all_inner_texts()
    assert any("RabbitMQ quorum queues" in line for line in removed), removed
    assert any("Kafka topics" in line for line in added), added
    assert "billing, kafka" in diff.locator("table.diff-fields").inner_text()
    assert axe_blocking(page) == []
    page.set_viewport_size(PHONE)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert axe_blocking(page) == []
    page.set_viewport_size(DESKTOP)
    shoot(page, "versions")

    # a restore needs a reason: the browser asks for one before anything is sent
    restore = page.locator("form.version-restore")
    restore.get_by_role("button", name="Restore version 1").click()
    assert page.url.endswith("/versions/")
    assert page.evaluate("document.querySelector('#restore-reason').validity.valueMissing")
    restore.get_by_label("Why (kept in the history)").fill("Kafka is not live yet")
    restore.get_by_role("button", name="Restore version 1").click()
    page.get_by_text("Version 1 restored: it is now version 3.").wait_for()
    rows = page.locator("table.versions tbody tr")
    expect(rows).to_have_count(3)
    newest = rows.first.inner_text()
    assert "restores 1" in newest and "Kafka is not live yet" in newest
    # what the restore changed: back to the first text
    assert any(
        "RabbitMQ quorum queues" in line
        for line in page.locator(".version-diff .diff-added").all_inner_texts()
    )
    page.goto(f"{server['base']}/chat/documents/{document_id}/")
    assert "RabbitMQ quorum queues" in page.locator(".document-page").inner_text()
    # the console's record page links the same history, diff and restore
    page.goto(f"{server['base']}/admin/canonical/canonicalrecord/{document_id}/change/")
    expect(page.locator("#record-versions table.versions tbody tr")).to_have_count(3)
    page.locator("#record-versions").get_by_role("link", name="Compare versions").click()
    page.locator(".version-diff").wait_for()
    assert axe_blocking(page, "#content") == []
    assert page.errors == [], page.errors


def test_a_reader_of_the_project_may_not_open_the_versions(browser, server):
    document_id = server["document_id"]
    page = signed_in_page(browser, server["base"], READER, f"/chat/documents/{document_id}/")
    assert page.locator("#versions").count() == 0
    response = page.goto(f"{server['base']}/chat/documents/{document_id}/versions/")
    assert response is not None and response.status == 403
    assert "Only editors and admins of this project" in page.locator("main").inner_text()
    assert axe_blocking(page) == []
