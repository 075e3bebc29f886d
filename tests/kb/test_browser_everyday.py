"""Headless Chromium, everyday use round 2: the Documents page (sorting by a heading, the Upload
button, a phone-sized screen) and the search page (filters folded away on a phone, an inverted
date range said out loud), with axe-core scans in light and dark. Screenshots go to
SCREENSHOTS_DIR (e.g. docs/screenshots) when it is set.

Served like tests/chat/test_browser_everyday.py: Django's LiveServerThread on committed data.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

import pytest

from portal.access.models import Project
from tests.chat.conftest import project_remove
from tests.conftest import make_user
from tests.live import (
    PHONE,
    axe_blocking,
    live_server,
    require_chromium,
    screenshot,
    signed_in_page,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db]

PROJECT_KEY = "docs-everyday"
EDITOR = ("docs-everyday-ed", "docs-everyday-pw-1")
# (path, content, last change): titles and paths long enough to test the phone layout
DOCUMENTS = [
    (
        "runbooks/storage/replication-lag-investigation-and-recovery-procedure-for-operators.md",
        "# Replication lag: investigation and recovery procedure for on-call operators\n\n"
        "Check the replica's WAL position first.\n",
        "2025-05-01T09:00:00",
    ),
    ("notes/alpha.md", "# alpha note\n\nLower-case title.\n", "2025-05-03T09:00:00"),
    (
        "decisions/cache.md",
        "---\ntitle: Cache layer decision\ntype: decision\nstatus: accepted\nslug: dec-cache-x\n"
        "---\nWe use Redis.\n",
        "2025-04-20T09:00:00",
    ),
    ("notes/zulu.txt", "Zulu checklist\n\nEnd of the alphabet.\n", "2025-05-02T09:00:00"),
]
NEWEST_FIRST = ["alpha note", "Zulu", "Replication lag", "Cache layer decision"]


@pytest.fixture(scope="module")
def server(tenants, django_db_blocker) -> Iterator[str]:
    require_chromium()
    from django.contrib.auth import get_user_model

    from kb.embeddings import build_embedder
    from kb.models import Document, IngestJob
    from kb.services import IngestItem, documents_ingest_many
    from kb.worker import run_queued_tasks

    info = tenants["alpha"]
    with django_db_blocker.unblock():
        with info.scope():
            project, _ = Project.objects.get_or_create(
                key=PROJECT_KEY, defaults={"name": "Everyday documents"}
            )
            outcomes = documents_ingest_many(
                project=project,
                items=[IngestItem(source_path=path, content=text) for path, text, _ in DOCUMENTS],
                embedder=build_embedder("hash"),
            )
            assert not [o for o in outcomes if o.status == "failed"], outcomes
            for path, _, when in DOCUMENTS:
                Document.objects.filter(project=project, source_path=path).update(
                    updated_at=dt.datetime.fromisoformat(when).replace(tzinfo=dt.UTC)
                )
        make_user(info, EDITOR[0], password=EDITOR[1], projects={PROJECT_KEY: "editor"})
        with live_server() as port:
            try:
                yield f"http://{info.host}:{port}"
            finally:
                with info.scope():
                    # run what the uploads queued, so no later test's worker meets it
                    run_queued_tasks(worker_id="kb-browser-teardown")
                    IngestJob.objects.filter(project__key=PROJECT_KEY).delete()
                    get_user_model().objects.filter(username=EDITOR[0]).delete()
                    project_remove(PROJECT_KEY)


def _signed_in(browser, server: str, next_url: str, **context: Any) -> Any:
    """The editor's page on `next_url` (this module waits 30 s at most)."""
    return signed_in_page(browser, server, EDITOR, next_url, timeout=30_000, **context)


def _titles(page) -> list[str]:
    cells = page.locator("#document-list tbody td.document-title")
    return [text.split("\n")[0] for text in cells.all_inner_texts()]


def _starts(titles: list[str]) -> list[str]:
    return [next((w for w in NEWEST_FIRST if title.startswith(w)), title) for title in titles]


def _no_sideways_scroll(page) -> None:
    widths = page.evaluate(
        "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    assert widths[0] <= widths[1], widths


def test_documents_are_newest_first_and_a_heading_click_sorts_them(browser, server):
    page = _signed_in(browser, server, f"/documents/{PROJECT_KEY}/")
    assert _starts(_titles(page)) == NEWEST_FIRST
    updated = page.locator("table.documents th", has_text="Updated")
    assert updated.get_attribute("aria-sort") == "descending"

    page.locator("table.documents th a", has_text="Title").click()
    page.wait_for_url("**?sort=title")
    title = page.locator("table.documents th", has_text="Title")
    title.and_(page.locator("[aria-sort=ascending]")).wait_for()
    assert _starts(_titles(page)) == [
        "alpha note",
        "Cache layer decision",
        "Replication lag",
        "Zulu",
    ]
    assert page.locator("table.documents th[aria-sort]").count() == 1
    # the keyboard stays on the heading that was used (focus moves once htmx settles,
    # a moment after the new table is in place)
    page.locator('table.documents a[data-sort-column="title"]:focus').wait_for(timeout=5000)

    page.keyboard.press("Enter")  # again: reversed
    page.wait_for_url("**?sort=-title")
    title.and_(page.locator("[aria-sort=descending]")).wait_for()
    assert _starts(_titles(page))[0] == "Zulu"
    page.reload()  # the address keeps the sort
    assert _starts(_titles(page))[0] == "Zulu"
    assert page.errors == []


def test_the_upload_button_chooses_files_and_never_sends_nothing(browser, server, tmp_path):
    page = _signed_in(browser, server, f"/documents/{PROJECT_KEY}/")
    note = tmp_path / "dock-hours.md"
    note.write_text("# Dock hours\n\nThe dock opens at six.\n")
    page.set_input_files("#upload-files", str(note))  # choosing uploads at once
    rows = page.locator("#job-list tr.job")
    rows.first.wait_for()
    assert rows.count() == 1 and "dock-hours.md" in rows.first.inner_text()

    button = page.locator("#upload-button")
    assert button.get_attribute("type") == "button"
    with page.expect_file_chooser() as chooser:
        button.click()  # opens the chooser, sends nothing
    assert chooser.value.is_multiple()
    chooser.value.set_files([])
    page.wait_for_timeout(500)
    assert rows.count() == 1
    assert page.locator("#job-list", has_text="choose or drop").count() == 0
    assert page.locator("#job-list [data-state=failed]").count() == 0
    assert page.errors == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_documents_fit_a_phone_and_pass_axe(browser, server, scheme):
    page = _signed_in(browser, server, f"/documents/{PROJECT_KEY}/", color_scheme=scheme)
    assert axe_blocking(page) == []
    if scheme == "light":
        screenshot(page, "documents-desktop")
    page.set_viewport_size(PHONE)
    page.wait_for_timeout(200)
    _no_sideways_scroll(page)
    table = page.locator("table.documents").bounding_box()
    assert table["x"] >= 0 and table["x"] + table["width"] <= PHONE["width"], table
    # every document still shows its title, facts and buttons, and the headings still sort
    card = page.locator("#document-list tbody tr").first
    updated = card.locator("td[data-label=Updated]")
    assert updated.is_visible() and card.locator("button", has_text="Delete").is_visible()
    label = updated.evaluate("(td) => getComputedStyle(td, '::before').content")
    assert "Updated" in label  # a card says what each fact is
    assert page.locator("table.documents th a", has_text="Title").is_visible()
    assert axe_blocking(page) == []
    if scheme == "light":
        screenshot(page, "documents-phone")
    assert page.errors == []


def test_search_filters_fold_away_on_a_phone_and_open_when_set(browser, server):
    page = _signed_in(browser, server, "/search/", viewport=PHONE)
    filters = page.locator("details.search-filters")
    assert filters.get_attribute("open") is None  # folded: the query box is on the first screen
    assert not page.locator("#id_date_from").is_visible()
    assert page.locator("#id_q").is_visible()
    _no_sideways_scroll(page)
    screenshot(page, "search-filters-phone")
    page.locator("details.search-filters summary").click()
    assert page.locator("#id_date_from").is_visible()

    # a filter in the address: open at once, even on a phone
    page.goto(f"{server}/search/?q=cache&canonical_statuses=accepted")
    assert page.locator("details.search-filters").get_attribute("open") is not None
    assert "1 set" in page.locator("details.search-filters summary").inner_text()

    desktop = _signed_in(browser, server, "/search/")
    assert desktop.locator("details.search-filters").get_attribute("open") is not None
    assert desktop.locator("#id_date_from").is_visible()
    assert page.errors == [] and desktop.errors == []


def test_an_inverted_date_range_is_said_not_ignored(browser, server):
    page = _signed_in(browser, server, "/search/")
    page.fill("#id_q", "cache")
    page.fill("#id_date_from", "2025-02-01")
    page.fill("#id_date_to", "2025-01-01")
    page.click("form.search-form button[type=submit]")  # htmx swaps the results only
    alert = page.locator("#search-results [role=alert]")
    alert.wait_for()
    assert "The end date must not be before the start date." in alert.inner_text()
    assert "Nothing was searched" in alert.inner_text()
    assert page.locator("#search-results ol.search-results").count() == 0
    assert page.errors == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_search_page_passes_axe(browser, server, scheme):
    page = _signed_in(browser, server, "/search/", color_scheme=scheme)
    page.goto(f"{server}/search/?q=cache&date_from=2025-02-01&date_to=2025-01-01")
    assert axe_blocking(page) == []
    page.set_viewport_size(PHONE)
    page.wait_for_timeout(200)
    assert axe_blocking(page) == []
    assert page.errors == []
