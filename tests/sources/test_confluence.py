"""The Confluence Cloud connector against a local server that implements the REST API v2
endpoints it uses (spaces by key, a space's pages with `_links.next`, a page's storage body,
a page's attachments and their download links, which redirect to a signed link elsewhere as
Atlassian's do): first sync, an edit, a retitle, a deletion, an attachment, bad credentials
and a missing space as clear errors. Never run against Atlassian's service."""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from kb.models import Chunk, Document
from sources.services import source_create
from sources.sync import source_sync
from tests.kb.pdfs import raw_pdf, text_operators

EMAIL = "docs-bot@example.com"
TOKEN = "atlassian-api-token-123"
SPACE_ID = "98305"
PER_PAGE = 2  # the server pages its listings by two, so `_links.next` is followed


class Site:
    """The state of the fake Confluence site, and what it was asked."""

    def __init__(self) -> None:
        self.pages: dict[str, dict[str, Any]] = {}
        self.media: dict[str, bytes] = {}
        self.media_auth: list[str | None] = []

    def page(self, page_id: str, title: str, body: str, version: int = 1) -> None:
        attachments = self.pages.get(page_id, {}).get("attachments", {})
        self.pages[page_id] = {
            "title": title,
            "body": body,
            "version": version,
            "attachments": attachments,
        }


def handler_for(site: Site) -> type[BaseHTTPRequestHandler]:
    expected = "Basic " + base64.b64encode(f"{EMAIL}:{TOKEN}".encode()).decode()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def send(self, status: int, body: Any = None, headers: dict[str, str] | None = None):
            data = body if isinstance(body, bytes) else json.dumps(body or {}).encode()
            self.send_response(status)
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def listing(self, rows: list[dict[str, Any]], path: str, query: dict[str, list[str]]):
            start = int(query.get("cursor", ["0"])[0])
            chunk = rows[start : start + PER_PAGE]
            links = {}
            if start + PER_PAGE < len(rows):
                links["next"] = f"{path}?limit=250&cursor={start + PER_PAGE}"
            return self.send(200, {"results": chunk, "_links": links})

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            parts = urlsplit(self.path)
            path, query = parts.path, parse_qs(parts.query)
            if path.startswith("/media/"):
                site.media_auth.append(self.headers.get("Authorization"))
                return self.send(200, site.media[path.removeprefix("/media/")])
            if self.headers.get("Authorization") != expected:
                return self.send(401, {"message": "Unauthorized"})
            if path == "/wiki/api/v2/spaces":
                found = query.get("keys") == ["DOCS"]
                return self.send(
                    200, {"results": [{"id": SPACE_ID, "key": "DOCS"}] if found else []}
                )
            if path == f"/wiki/api/v2/spaces/{SPACE_ID}/pages":
                rows = [
                    {
                        "id": page_id,
                        "title": page["title"],
                        "status": "current",
                        "version": {"number": page["version"]},
                        "_links": {"webui": f"/spaces/DOCS/pages/{page_id}"},
                    }
                    for page_id, page in site.pages.items()
                ]
                return self.listing(rows, f"/wiki/api/v2/spaces/{SPACE_ID}/pages", query)
            segments = path.split("/")
            if path.startswith("/wiki/api/v2/pages/") and segments[5] in site.pages:
                page_id = segments[5]
                page = site.pages[page_id]
                if len(segments) == 7 and segments[6] == "attachments":
                    rows = [
                        {
                            "id": att_id,
                            "title": att["title"],
                            "version": {"number": att["version"]},
                            "downloadLink": f"/download/attachments/{page_id}/{att['title']}?api=v2",
                        }
                        for att_id, att in page["attachments"].items()
                    ]
                    return self.listing(rows, f"/wiki/api/v2/pages/{page_id}/attachments", query)
                assert query.get("body-format") == ["storage"]
                return self.send(
                    200,
                    {
                        "id": page_id,
                        "title": page["title"],
                        "version": {"number": page["version"]},
                        "body": {"storage": {"value": page["body"], "representation": "storage"}},
                        "_links": {"webui": f"/spaces/DOCS/pages/{page_id}"},
                    },
                )
            if path.startswith("/wiki/download/attachments/"):
                page_id, name = segments[4], segments[5]
                for att_id, att in site.pages[page_id]["attachments"].items():
                    if att["title"] == name:
                        site.media[att_id] = att["data"]
                        # Atlassian answers a download with a signed link on its media host
                        return self.send(302, b"", {"Location": f"/media/{att_id}"})
            return self.send(404, {"message": "Not found"})

    return Handler


@pytest.fixture
def site() -> Iterator[tuple[Site, str]]:
    state = Site()
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler_for(state))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def wiki_source(project, base_url, **settings):
    return source_create(
        project=project,
        name="wiki",
        kind="confluence",
        settings={
            "base_url": base_url,
            "space_key": "DOCS",
            "email": EMAIL,
            "api_token": TOKEN,
            **settings,
        },
    )


def live(project):
    return {
        doc.source_path: doc
        for doc in Document.objects.filter(project=project, deleted_at__isnull=True)
    }


def text_of(document):
    return "".join(chunk.text for chunk in Chunk.objects.filter(document=document))


def test_confluence_full_cycle(project, site):
    state, base_url = site
    state.page("101", "Onboarding", "<p>New hires get a laptop on day one.</p>")
    state.page("102", "Expenses", "<p>Submit receipts within <strong>30 days</strong>.</p>")
    state.page("103", "Travel", "<p>Book economy class.</p>")
    state.pages["102"]["attachments"]["att9"] = {
        "title": "expense-policy.pdf",
        "version": 1,
        "data": raw_pdf(text_operators(b"Meals are refunded up to 40 euros a day.")),
    }
    state.pages["102"]["attachments"]["att10"] = {"title": "logo.png", "version": 1, "data": b"x"}
    source = wiki_source(project, base_url)
    assert TOKEN not in json.dumps(source.secrets)

    report = source_sync(source_id=source.pk)
    prefix = source.path_prefix
    assert (report.state, report.added, report.failed) == ("ok", 4, 0), report.error
    docs = live(project)
    assert sorted(docs) == [
        f"{prefix}Expenses.html",
        f"{prefix}Expenses/expense-policy.pdf",
        f"{prefix}Onboarding.html",
        f"{prefix}Travel.html",
    ]
    assert "30 days" in text_of(docs[f"{prefix}Expenses.html"])
    assert docs[f"{prefix}Expenses.html"].title == "Expenses"
    assert docs[f"{prefix}Expenses.html"].metadata["source"]["url"] == (
        f"{base_url}/wiki/spaces/DOCS/pages/102"
    )
    assert "40 euros" in text_of(docs[f"{prefix}Expenses/expense-policy.pdf"])
    assert state.media_auth == [None]  # the signed download link never got the credentials

    # an edit (a new version), a retitle, a deletion
    state.page("101", "Onboarding", "<p>New hires get a laptop and a phone.</p>", version=2)
    state.page("103", "Business travel", "<p>Book economy class.</p>", version=2)
    travel = docs[f"{prefix}Travel.html"]
    del state.pages["102"]
    report = source_sync(source_id=source.pk)
    assert (report.added, report.changed, report.removed) == (0, 2, 2)
    docs = live(project)
    assert sorted(docs) == [f"{prefix}Business travel.html", f"{prefix}Onboarding.html"]
    assert docs[f"{prefix}Business travel.html"].pk == travel.pk  # the same document
    assert "and a phone" in text_of(docs[f"{prefix}Onboarding.html"])

    # nothing changed: nothing fetched
    report = source_sync(source_id=source.pk)
    assert (report.added, report.changed, report.removed, report.state) == (0, 0, 0, "ok")


def test_bad_credentials_and_a_missing_space_are_clear_errors(project, site):
    state, base_url = site
    state.page("101", "Onboarding", "<p>Laptops.</p>")
    source = wiki_source(project, base_url, api_token="wrong")
    source_sync(source_id=source.pk)
    source.refresh_from_db()
    assert (source.state, source.last_error) == (
        "failed",
        "Confluence refused the credentials: check the email and API token.",
    )
    missing = source_create(
        project=project,
        name="missing",
        kind="confluence",
        settings={"base_url": base_url, "space_key": "NOPE", "email": EMAIL, "api_token": TOKEN},
    )
    source_sync(source_id=missing.pk)
    missing.refresh_from_db()
    assert missing.last_error == "No space with the key 'NOPE' (or the account cannot see it)."
    assert live(project) == {}
