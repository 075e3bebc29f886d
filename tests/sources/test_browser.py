"""Headless Chromium: an editor adds a Git repository as a source on the Sources page, its
first sync runs on a real worker thread and the counts appear live; a commit upstream and
**Run now** show the change; the synced document answers in chat. axe-core finds no serious
or critical violation, on a desktop and a phone."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.live import (
    PHONE,
    axe_blocking,
    editor_server,
    require_chromium,
    shoot,
    signed_in_page,
)
from tests.sources.conftest import Repo

pytestmark = [pytest.mark.browser, pytest.mark.real_model, pytest.mark.django_db]

PROJECT_KEY = "sources-browser"
USERNAME = "sources-editor"
PASSWORD = "sources-pw-123"
DEPLOYS = """# Kestrel deploy window

Production deploys of the Kestrel service happen on Tuesdays between 10:00 and 12:00 UTC.
"""
ONCALL = "# Kestrel on-call\n\nThe Kestrel on-call rotation changes every Monday at nine.\n"


@pytest.fixture(scope="module")
def upstream(tmp_path_factory) -> Repo:
    root = tmp_path_factory.mktemp("sources-browser")
    repo = Repo(root / "upstream" / "kestrel-docs")
    repo.write("docs/deploys.md", DEPLOYS)
    repo.write("docs/oncall.md", ONCALL)
    repo.write("src/main.py", "print('code, not docs')\n")
    repo.commit("docs")
    return repo


@pytest.fixture(scope="module")
def server(tenants, django_db_blocker, upstream) -> Iterator[str]:
    require_chromium()
    with django_db_blocker.unblock():
        with editor_server(
            tenants["alpha"],
            project_key=PROJECT_KEY,
            project_name="Kestrel",
            editor=(USERNAME, PASSWORD),
            worker_name="sources-browser-worker",
        ) as url:
            yield url


@pytest.fixture
def page(browser, server, settings, upstream):
    settings.SOURCES_LOCAL_ROOTS = [str(upstream.path.parent)]
    settings.SOURCES_CACHE_DIR = upstream.path.parent.parent / "cache"
    page = signed_in_page(
        browser,
        server,
        (USERNAME, PASSWORD),
        "/sources/",
        timeout=120_000,
        wait_url=f"**/sources/{PROJECT_KEY}/",
    )
    yield page
    assert page.errors == [], page.errors


def test_an_editor_adds_a_git_source_runs_it_and_sees_the_counts(page, upstream):
    assert page.get_by_text("No sources yet").is_visible()
    assert axe_blocking(page) == []

    page.fill("#git-name", "Kestrel docs")
    page.fill("#git-url", str(upstream.path))
    page.fill("#git-paths", "docs/*.md")
    page.click("#add-git button[type=submit]")
    page.wait_for_url(f"**/sources/{PROJECT_KEY}/")
    source = page.locator("article.source", has_text="Kestrel docs")
    # the list refreshes itself while the first sync is queued and running
    source.locator("[data-testid=state]", has_text="Synced").wait_for()
    assert source.locator("[data-testid=added]").inner_text() == "2"
    assert source.locator("[data-testid=failed]").inner_text() == "0"
    assert "branch main" in source.inner_text()
    assert axe_blocking(page) == []
    shoot(page, "sources-synced")

    upstream.write("docs/oncall.md", ONCALL.replace("Monday", "Wednesday"))
    upstream.commit("on-call moves")
    source.get_by_role("button", name="Run Kestrel docs now").click()
    source = page.locator("article.source", has_text="Kestrel docs")
    page.locator("article.source [data-testid=changed]", has_text="1").wait_for()
    assert source.locator("[data-testid=added]").inner_text() == "0"
    assert "Synced" in source.locator("[data-testid=state]").inner_text()

    page.set_viewport_size(PHONE)
    widths = page.evaluate(
        "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    assert widths[0] <= widths[1]  # nothing wider than the phone
    assert axe_blocking(page) == []
    page.set_viewport_size({"width": 1200, "height": 900})

    # the synced document answers in chat
    page.goto(page.url.split("/sources/")[0] + "/chat/")
    page.fill("#question", "When do production deploys of the Kestrel service happen?")
    page.click("#ask-form button[type=submit]")
    answer = page.locator("article.bubble-answer").last
    answer.wait_for()
    assert answer.get_attribute("data-refusal-reason") == ""
    assert "Tuesdays" in answer.inner_text()
    assert answer.locator("a.chip", has_text="Kestrel deploy window").count() >= 1
