"""Headless Chromium, conflicts (issue 29 part 1): an editor opens the Conflicts list in the
console, reads both passages side by side and deprecates the record in review that states
another PITR window; an editor of another project sees no conflict. Desktop and phone, an
axe-core scan of the conflict's page, a screenshot when SCREENSHOTS_DIR is set
(docs/screenshots/admin-conflict.png).

Served like tests/chat/test_browser_drift.py: Django's LiveServerThread on data this module
commits (and removes afterwards); the check runs when the data is written.
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
    shoot,
    signed_in_page,
)

# the pages here read no answer of the real model: the browser keeps the test embedder
KEEP_TEST_EMBEDDER = True

pytestmark = [pytest.mark.browser, pytest.mark.django_db]

KEY = "conflicts-browser"
ELSEWHERE = "conflicts-browser-other"
EDITOR = ("conflict-editor-b", "conflict-pw-123")
OUTSIDER = ("conflict-outsider-b", "conflict-pw-456")
RUNBOOK = """---
type: runbook
status: accepted
slug: portal-db-recovery-b
---

# Portal database recovery

## Backups

- PITR window: 35 days of WAL on the backup bucket.
"""
REWRITE = """---
type: runbook
status: review
slug: portal-db-recovery-rewrite-b
---

# Portal database recovery (rewrite)

## Backups

- PITR window: 14 days of WAL on the backup bucket.
"""
LIST = "/admin/chat/conflict/"


@pytest.fixture(scope="module")
def server(tenants, django_db_blocker) -> Iterator[dict[str, Any]]:
    """An accepted runbook and its rewrite in review stating another window: committed,
    and checked."""
    require_chromium()
    from django.contrib.auth import get_user_model

    from chat.conflicts.services import conflicts_check
    from chat.models import Conflict
    from kb.embeddings import build_embedder
    from kb.services import document_ingest
    from portal.access.services import project_ensure

    info = tenants["alpha"]
    with django_db_blocker.unblock():
        make_user(info, EDITOR[0], password=EDITOR[1], projects={KEY: "editor"})
        make_user(info, OUTSIDER[0], password=OUTSIDER[1], projects={ELSEWHERE: "editor"})
        with info.scope():
            project = project_ensure(key=KEY)
            project_ensure(key=ELSEWHERE)
            embedder = build_embedder("hash")
            runbook = document_ingest(
                project=project, source_path="runbook.md", content=RUNBOOK, embedder=embedder
            ).document
            rewrite = document_ingest(
                project=project, source_path="rewrite.md", content=REWRITE, embedder=embedder
            ).document
            assert runbook is not None and rewrite is not None
            assert conflicts_check(document_id=rewrite.pk)["raised"] == 1
            conflict = Conflict.objects.get(record=runbook, other=rewrite)
        with live_server() as port:
            try:
                yield {
                    "base": f"http://{info.host}:{port}",
                    "conflict_id": conflict.pk,
                    "rewrite_id": rewrite.pk,
                }
            finally:
                with info.scope():
                    Conflict.objects.filter(project=project).delete()
                    get_user_model().objects.filter(username__in=[EDITOR[0], OUTSIDER[0]]).delete()
                    project_remove(KEY)
                    project_remove(ELSEWHERE)


def test_an_editor_reads_a_conflict_and_deprecates_the_other_record(browser, server):
    from playwright.sync_api import expect

    base = server["base"]
    outsider = signed_in_page(browser, base, OUTSIDER, LIST, wait_url="**/admin/chat/conflict/*")
    expect(outsider.locator("#result_list")).to_have_count(0)  # nothing of theirs to resolve
    assert "35 days" not in outsider.content()

    editor = signed_in_page(browser, base, EDITOR, LIST, wait_url="**/admin/chat/conflict/*")
    row = editor.locator("#result_list tbody tr")
    expect(row).to_have_count(1)
    expect(row).to_contain_text("35 days vs 14 days")
    row.locator("a").first.click()
    editor.wait_for_url(f"**{LIST}{server['conflict_id']}/change/**")
    expect(editor.locator("#conflict-record")).to_contain_text("PITR window: 35 days")
    expect(editor.locator("#conflict-other")).to_contain_text("PITR window: 14 days")
    expect(editor.locator("#conflict-other")).to_contain_text("review")
    expect(editor.locator("#conflict-edit-record")).to_have_text(
        "Open Portal database recovery to edit"
    )
    for viewport in (DESKTOP, PHONE):
        editor.set_viewport_size(viewport)
        assert axe_blocking(editor, ".conflict-item") == [], viewport
    editor.set_viewport_size(DESKTOP)
    shoot(editor, "admin-conflict")

    editor.get_by_role("button", name="Deprecate Portal database recovery (rewrite)").click()
    expect(editor.locator("ul.messagelist")).to_contain_text("The other document is deprecated.")
    expect(editor.locator("#conflict-resolution")).to_contain_text(
        "Resolved: the other document deprecated by conflict-editor-b"
    )
    # the list opens on the open conflicts: none left
    editor.goto(f"{base}{LIST}")
    expect(editor.locator("#result_list tbody tr")).to_have_count(0)
    assert editor.errors == [] and outsider.errors == []
