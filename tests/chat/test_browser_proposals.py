"""Headless Chromium, proposals (issue 29 part 2): a reader's thumbs-down naming the document
the answer should have cited is a proposal in the console; the project's editor reads its
evidence and accepts it with one click (the priority change is audited), then finds it in the
project's Knowledge health page no more; an editor of another project sees none. Desktop and
phone, an axe-core scan of the proposal's page.

Served like tests/chat/test_browser_conflicts.py: Django's LiveServerThread on data this
module commits (and removes afterwards).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.chat.conftest import project_remove
from tests.conftest import make_user
from tests.live import (
    DESKTOP,
    PHONE,
    axe_blocking,
    live_server,
    require_chromium,
    signed_in_page,
)

# the pages here read no answer of the real model: the browser keeps the test embedder
KEEP_TEST_EMBEDDER = True

pytestmark = [pytest.mark.browser, pytest.mark.django_db]

KEY = "proposals-browser"
ELSEWHERE = "proposals-browser-other"
EDITOR = ("proposal-editor-b", "proposal-pw-123")
OUTSIDER = ("proposal-outsider-b", "proposal-pw-456")
READER = "proposal-reader-b"
NOTICE = "# Visitor parking ({})\n\nThe visitor car park at the main site closes at 22:00.\n"
QUESTION = "When does the visitor car park at the main site close?"
LIST = "/admin/chat/proposal/"


@pytest.fixture(scope="module")
def server(tenants, django_db_blocker) -> Iterator[dict[str, Any]]:
    """Two copies of a notice; a reader's thumbs-down says the answer should have cited the
    other one: committed."""
    require_chromium()
    from django.contrib.auth import get_user_model

    from chat.feedback import feedback_give
    from chat.models import ChatLog, ContentGap, Message, Proposal
    from chat.services import message_send
    from kb.embeddings import build_embedder
    from kb.filters import SearchFilters
    from kb.services import document_ingest
    from portal.access.services import project_ensure

    info = tenants["alpha"]
    with django_db_blocker.unblock():
        make_user(info, EDITOR[0], password=EDITOR[1], projects={KEY: "editor"})
        make_user(info, OUTSIDER[0], password=OUTSIDER[1], projects={ELSEWHERE: "editor"})
        reader = make_user(info, READER, projects={KEY: "reader"})
        with info.scope():
            project = project_ensure(key=KEY)
            project_ensure(key=ELSEWHERE)
            embedder = build_embedder("hash")
            docs = [
                document_ingest(
                    project=project,
                    source_path=f"{name}.md",
                    content=NOTICE.format(name),
                    embedder=embedder,
                ).document
                for name in ("facilities", "reception")
            ]
            turn = message_send(
                user=reader, question=QUESTION, filters=SearchFilters(project_keys=(KEY,))
            )
            answer = Message.objects.filter(conversation=turn.conversation, role="assistant").get()
            first = answer.citations[0]["document_id"]
            other = next(d for d in docs if d is not None and d.pk != first)
            feedback_give(
                user=reader, message=answer, rating="down", reasons=[], suggested=other.slug
            )
            proposal = Proposal.objects.get(project=project)
        with live_server() as port:
            try:
                yield {
                    "base": f"http://{info.host}:{port}",
                    "proposal_id": proposal.pk,
                    "other": other,
                }
            finally:
                with info.scope():
                    Proposal.objects.filter(project=project).delete()
                    ChatLog.objects.filter(user=reader).delete()
                    ContentGap.objects.filter(project_key=KEY).delete()
                    get_user_model().objects.filter(
                        username__in=[EDITOR[0], OUTSIDER[0], READER]
                    ).delete()  # their conversations and feedback go with them
                    project_remove(KEY)
                    project_remove(ELSEWHERE)


def test_an_editor_reads_a_proposal_and_accepts_it(browser, server):
    from playwright.sync_api import expect

    base = server["base"]
    other = server["other"]
    outsider = signed_in_page(browser, base, OUTSIDER, LIST, wait_url="**/admin/chat/proposal/*")
    expect(outsider.locator("#result_list")).to_have_count(0)

    editor = signed_in_page(browser, base, EDITOR, LIST, wait_url="**/admin/chat/proposal/*")
    row = editor.locator("#result_list tbody tr")
    expect(row).to_have_count(1)
    expect(row).to_contain_text("Raise the document's priority")
    row.locator("a").first.click()
    editor.wait_for_url(f"**{LIST}{server['proposal_id']}/change/**")
    expect(editor.locator("#proposal-evidence")).to_contain_text(QUESTION)
    expect(editor.locator("#proposal-evidence")).to_contain_text("closes at 22:00")
    expect(editor.locator("#proposal-evidence")).to_contain_text(
        f"Suggested by the reader: {other.title}"
    )
    expect(editor.locator("#proposal-change")).to_contain_text("priority 50")
    for viewport in (DESKTOP, PHONE):
        editor.set_viewport_size(viewport)
        assert axe_blocking(editor, ".conflict-item") == [], viewport
    editor.set_viewport_size(DESKTOP)

    editor.get_by_role("button", name="Accept: Raise the document's priority").click()
    expect(editor.locator("ul.messagelist")).to_contain_text("Proposal accepted.")
    expect(editor.locator("#proposal-decision")).to_contain_text("Accepted by proposal-editor-b")
    expect(editor.locator("#proposal-change")).to_contain_text("priority 90")
    editor.goto(f"{base}/admin/chat/healthcheck/project/{KEY}/")
    expect(editor.locator("#health-proposals")).to_contain_text("Open proposals (0)")
    assert editor.errors == [] and outsider.errors == []
