"""Headless Chromium: an editor uploads a PDF, a Word file and a Markdown file on the Documents
page, watches them reach "done" (a real worker thread, the real model), then asks the chat a
question only the PDF answers and gets a citation whose preview shows the right page."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.live import editor_server, require_chromium, screenshot, signed_in_page

pytestmark = [pytest.mark.browser, pytest.mark.real_model, pytest.mark.django_db]

SAMPLES = Path(__file__).parent / "samples"
PROJECT_KEY = "upload-browser"
USERNAME = "upload-editor"
PASSWORD = "upload-pw-123"
MARKDOWN = b"""# Cafeteria rules

The cafeteria opens at eight and closes at three. Trays go back to the rack by the door.
"""


@pytest.fixture(scope="module")
def server(tenants, django_db_blocker) -> Iterator[str]:
    require_chromium()
    with django_db_blocker.unblock():
        with editor_server(
            tenants["alpha"],
            project_key=PROJECT_KEY,
            project_name="Upload test",
            editor=(USERNAME, PASSWORD),
            worker_name="browser-test-worker",
        ) as url:
            yield url


@pytest.fixture
def page(browser, server):
    page = signed_in_page(
        browser,
        server,
        (USERNAME, PASSWORD),
        "/documents/",
        timeout=120_000,
        wait_url=f"**/documents/{PROJECT_KEY}/",
    )
    yield page
    assert page.errors == [], page.errors


def _shoot(page, name: str) -> None:
    screenshot(page, f"documents-{name}", env="CHAT_SCREENSHOTS_DIR")


def test_upload_three_formats_watch_them_finish_then_ask_and_see_the_page(page, tmp_path):
    markdown = tmp_path / "cafeteria.md"
    markdown.write_bytes(MARKDOWN)
    page.set_input_files(
        "#upload-files",
        [str(SAMPLES / "handbook.pdf"), str(SAMPLES / "incident-guide.docx"), str(markdown)],
    )  # choosing files uploads them
    rows = page.locator("#job-list tr.job")
    rows.nth(2).wait_for()
    assert rows.count() == 3
    for name in ("handbook.pdf", "incident-guide.docx", "cafeteria.md"):
        row = page.locator("#job-list tr.job", has_text=name)
        row.and_(page.locator("[data-state=done]")).wait_for()  # live, without a reload
        assert " chunk" in row.inner_text()  # done · N chunk(s)
    documents = page.locator("#document-list")
    # The list refreshes once per finished job; the last refresh must win even when the jobs
    # finish while an earlier refresh is still on its way.
    for title in ("Storage operations handbook", "Incident response guide", "Cafeteria rules"):
        documents.get_by_text(title).wait_for(timeout=10_000)
    assert "(3)" in documents.locator("h2").inner_text()
    assert "PDF" in documents.inner_text() and "Word" in documents.inner_text()
    _shoot(page, "uploaded")

    page.goto(page.url.split("/documents/")[0] + "/chat/")
    page.fill("#question", "How often does the Kestrel backup vault rotate its encryption keys?")
    page.click("#ask-form button[type=submit]")
    answer = page.locator("article.bubble-answer").last
    answer.wait_for()
    assert answer.get_attribute("data-refusal-reason") == ""
    assert "45 days" in answer.inner_text()
    chip = answer.locator("a.chip", has_text="Storage operations handbook").first
    assert "Page 3" in chip.inner_text()  # the citation says which page
    chip.click()
    page.wait_for_selector("#preview-body[data-state=ready]")
    heading = page.locator("#preview-body .preview-content").evaluate(
        """(root) => {
            const para = [...root.querySelectorAll('p')]
                .find((p) => p.textContent.includes('Kestrel backup vault rotates'));
            let node = para;
            while (node && node.tagName !== 'H2') node = node.previousElementSibling;
            return node ? node.textContent : null;
        }"""
    )
    assert heading == "Page 3"  # the preview shows the passage under its page
    _shoot(page, "pdf-citation")
