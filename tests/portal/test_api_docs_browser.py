"""Headless Chromium on the API's documentation pages: Swagger UI (/api/docs/) and Redoc
(/api/redoc/) render the operations under the page's Content-Security-Policy, and no request
leaves for another host (Redoc's template linked Google Fonts; Swagger UI started from an
inline script the CSP blocks, so it stayed blank)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.live import launch_chromium, live_server, require_chromium

pytestmark = [pytest.mark.browser, pytest.mark.django_db]


@dataclass
class Visit:
    page: Any
    requests: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # page errors, CSP violations


@pytest.fixture(scope="module")
def server(tenants) -> Iterator[str]:
    require_chromium()
    with live_server() as port:
        yield f"http://{tenants['alpha'].host}:{port}"


@pytest.fixture
def visit(server) -> Iterator[Visit]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        page.set_default_timeout(60_000)
        seen = Visit(page=page)
        page.on("request", lambda request: seen.requests.append(request.url))
        page.on("pageerror", lambda exc: seen.problems.append(str(exc)))
        page.on(
            "console",
            lambda message: (
                seen.problems.append(message.text)
                if "Content Security Policy" in message.text or message.type == "error"
                else None
            ),
        )
        yield seen
        browser.close()


def _other_hosts(server: str, urls: list[str]) -> list[str]:
    own = urlsplit(server).netloc
    return [url for url in urls if urlsplit(url).scheme in {"http", "https"}
            and urlsplit(url).netloc != own]  # fmt: skip


def test_swagger_ui_renders_the_operations_from_our_own_host(server, visit):
    visit.page.goto(f"{server}/api/docs/")
    search = visit.page.locator(".opblock-summary-path", has_text="/api/kb/search")
    search.first.wait_for()
    assert visit.page.locator(".opblock").count() >= 10
    assert visit.page.locator(".opblock-summary-path", has_text="/api/kb/chat").count() >= 1
    assert _other_hosts(server, visit.requests) == []
    assert visit.problems == [], (visit.problems, visit.requests)


def test_redoc_renders_the_operations_from_our_own_host(server, visit):
    visit.page.goto(f"{server}/api/redoc/")
    visit.page.get_by_text("/api/kb/search", exact=False).first.wait_for()
    operations = visit.page.locator("[data-section-id^='operation/']")
    assert operations.count() >= 10
    assert _other_hosts(server, visit.requests) == []
    assert visit.problems == [], (visit.problems, visit.requests)
