"""Headless Chromium (issue 30 parts 3-4): an editor uploads a scanned policy (a PDF with no
text layer) and the wiki's Markdown copy of it on the Documents page, watches both reach
"done" (a real worker thread: the scan is read by OCR), and sees the two listed as
near-duplicates, the newest marked as the one answers cite; desktop and phone, axe-core
clean. Screenshots go to SCREENSHOTS_DIR (e.g. docs/screenshots) when it is set."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.kb.scans import paragraphs, scanned_pdf
from tests.kb.test_ocr import require_tesseract
from tests.live import (
    PHONE,
    axe_blocking,
    editor_server,
    require_chromium,
    shoot,
    signed_in_page,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db]

PROJECT_KEY = "ocr-duplicates"
EDITOR = ("ocr-dup-editor", "ocr-dup-pw-123")
LINES = (
    "Backup retention policy",
    "The Kestrel vault keeps every nightly backup for four hundred days, and the Osprey vault "
    "keeps ninety days.",
    "Encryption keys rotate every forty five days; the on-call engineer approves each "
    "rotation before nine in the morning.",
    "Restores are tested every quarter on a random two percent of the snapshots, compared "
    "byte for byte with their checksums.",
)
WIKI_COPY = "# Backup retention policy\n\n" + "\n\n".join(LINES[1:]) + "\n"


@pytest.fixture(scope="module")
def server(tenants, django_db_blocker) -> Iterator[str]:
    require_chromium()
    require_tesseract()
    with django_db_blocker.unblock():
        with editor_server(
            tenants["alpha"],
            project_key=PROJECT_KEY,
            project_name="Policies",
            editor=EDITOR,
            worker_name="ocr-dup-worker",
        ) as url:
            yield url


def _no_sideways_scroll(page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], width


def test_a_scan_and_its_wiki_copy_are_read_and_shown_as_near_duplicates(browser, server, tmp_path):
    page = signed_in_page(browser, server, EDITOR, f"/documents/{PROJECT_KEY}/", timeout=120_000)
    scan = tmp_path / "backup-policy-scan.pdf"
    scan.write_bytes(scanned_pdf([paragraphs(*LINES)]))
    page.set_input_files("#upload-files", [str(scan)])
    page.locator("#job-list tr.job[data-state=done]", has_text=scan.name).wait_for()
    copy = tmp_path / "backup-retention-wiki.md"
    copy.write_text(WIKI_COPY, encoding="utf-8")
    page.set_input_files("#upload-files", [str(copy)])
    page.locator("#job-list tr.job[data-state=done]", has_text=copy.name).wait_for()

    groups = page.locator(".duplicate-groups")
    groups.wait_for()  # the list refreshed without a reload
    assert "Near-duplicates (1 group)" in page.locator("#document-list").inner_text()
    members = groups.locator("li[data-document-id]")
    assert members.count() == 2
    cited = groups.locator("li[data-stands-in]")
    assert copy.name in cited.inner_text() and "cited" in cited.inner_text()  # the newest
    other = members.filter(has_text=scan.name)
    assert "% similar" in other.inner_text()
    assert axe_blocking(page) == []
    shoot(page, "documents-near-duplicates")

    page.set_viewport_size(PHONE)
    page.wait_for_timeout(200)
    _no_sideways_scroll(page)
    assert groups.is_visible() and axe_blocking(page) == []
    assert page.errors == []
