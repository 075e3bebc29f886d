"""Citation preview: rebuilt from chunks, sanitised, and one 404 for everything not visible."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.utils import timezone

from kb.rendering import rebuild_content, render_markdown, sanitise_html
from tests.chat.helpers import make_document
from tests.conftest import make_user, token_for

HOSTILE = """# Hostile doc

<script>window.__pwned = 1</script>

<img src="x" onerror="window.__pwned = 1">

[click me](javascript:window.__pwned=1) and [data](data:text/html;base64,PHNjcmlwdD4=)

![pixel](data:image/png;base64,iVBORw0KGgo=)

<iframe src="https://evil.example"></iframe>

<style>body { display: none }</style>

Plain **bold** text and a [safe link](https://example.com/page).
"""


# --- the sanitiser (no database) ------------------------------------------------------------


class _Elements(HTMLParser):
    """Every element and attribute a browser would build from the HTML."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attributes: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes.extend((name, value or "") for name, value in attrs)


def assert_inert(html: str) -> None:
    """No element or attribute in `html` can run script or load a foreign document."""
    parsed = _Elements()
    parsed.feed(html)
    assert not {"script", "iframe", "style", "object", "embed", "svg", "form"} & set(parsed.tags)
    for name, value in parsed.attributes:
        assert not name.startswith("on"), name
        assert name != "style", name
        if name in {"href", "src"}:
            assert not value.strip().lower().startswith(("javascript:", "data:", "vbscript:"))


def test_raw_html_in_markdown_is_shown_as_text_never_parsed():
    html = render_markdown(HOSTILE)
    assert_inert(html)
    assert "&lt;script&gt;" in html  # the author's text is still visible, as text
    assert '<a href="https://example.com/page">safe link</a>' in html
    assert "<strong>bold</strong>" in html


def test_data_urls_never_survive_in_links_or_images():
    html = render_markdown(HOSTILE)
    assert_inert(html)
    assert '<img alt="pixel">' in html  # the image stays, its data: source does not


@pytest.mark.parametrize(
    ("dirty", "forbidden"),
    [
        ("<p>hi<script>alert(1)</script></p>", "<script"),
        ('<img src="x" onerror="alert(1)">', "onerror"),
        ('<a href="javascript:alert(1)">x</a>', "javascript:"),
        ('<a href="JaVaScRiPt:alert(1)">x</a>', "javascript"),
        ('<iframe src="https://evil.example"></iframe>', "<iframe"),
        ('<a href="data:text/html,<script>alert(1)</script>">x</a>', "data:"),
        ('<p style="position:fixed" onclick="alert(1)">x</p>', "onclick"),
        ("<svg><script>alert(1)</script></svg>", "<svg"),
    ],
)
def test_the_allow_list_strips_everything_that_can_run(dirty, forbidden):
    assert forbidden.lower() not in sanitise_html(dirty).lower()


def test_rebuild_drops_each_chunks_overlap():
    chunks = [("# Title\n\nAlpha beta.", 0), ("beta.\n\nGamma delta.", 5), ("## Next\n\nEnd.", 0)]
    assert rebuild_content(chunks) == "# Title\n\nAlpha beta.\n\nGamma delta.## Next\n\nEnd."


def test_empty_content_renders_nothing():
    assert render_markdown("") == ""


# --- the endpoints ------------------------------------------------------------------------

pytestmark_db = pytest.mark.django_db


@pytest.fixture
def docs(alpha):
    reader = make_user(alpha, "pv-reader", projects={"pv-team": "reader"})
    visible = make_document(
        "pv-team",
        "runbook",
        [("# Runbook\n\nStep one. ", 0), ("one. Step two.", 5)],
        canonical_type="runbook",
        canonical_status="accepted",
        retrieval_priority=80,
    )
    hostile = make_document("pv-team", "hostile", [(HOSTILE, 0)])
    empty = make_document("pv-team", "empty", [])
    deleted = make_document("pv-team", "gone", [("Deleted text.", 0)], deleted_at=timezone.now())
    other_project = make_document("pv-other", "secret", [("Other team's secret.", 0)])
    return {
        "reader": reader,
        "token": token_for(alpha, reader),
        "visible": visible,
        "hostile": hostile,
        "empty": empty,
        "deleted": deleted,
        "other_project": other_project,
    }


def _api(info, token, pk):
    client = info.client(HTTP_AUTHORIZATION=f"Token {token}")
    return client.get(f"/api/kb/documents/{pk}/preview")


@pytestmark_db
def test_preview_api_returns_the_document_rebuilt_from_its_chunks(alpha, docs):
    response = _api(alpha, docs["token"], docs["visible"].pk)
    assert response.status_code == 200
    assert response.json() == {
        "document_id": docs["visible"].pk,
        "slug": "runbook",
        "title": "Runbook",
        "project_key": "pv-team",
        "source_type": "markdown",
        "canonical_type": "runbook",
        "canonical_status": "accepted",
        "retrieval_priority": 80,
        "content": "# Runbook\n\nStep one. Step two.",
        "content_html": "<h1>Runbook</h1>\n<p>Step one. Step two.</p>\n",
        "version": 0,  # a row made by hand: no version kept
        "current_version": 0,
    }


@pytestmark_db
def test_preview_api_sanitises_a_hostilemake_document(alpha, docs):
    body = _api(alpha, docs["token"], docs["hostile"].pk).json()
    assert "<script>" in body["content"]  # the raw text is data for the client to escape
    assert_inert(body["content_html"])


@pytestmark_db
def test_a_visible_document_without_chunks_is_200_with_empty_content(alpha, docs):
    response = _api(alpha, docs["token"], docs["empty"].pk)
    assert response.status_code == 200
    assert (response.json()["content"], response.json()["content_html"]) == ("", "")


@pytestmark_db
def test_not_visible_is_one_identical_404_whatever_the_reason(alpha, beta, docs):
    beta_user = make_user(beta, "pv-beta", projects={"pv-team": "reader"})
    responses = {
        "other project": _api(alpha, docs["token"], docs["other_project"].pk),
        "soft-deleted": _api(alpha, docs["token"], docs["deleted"].pk),
        "missing": _api(alpha, docs["token"], 98765432),
        # beta's token means nothing at alpha; at beta's host alpha's ids do not exist
        "other tenant": _api(beta, token_for(beta, beta_user), docs["visible"].pk),
    }
    for reason, response in responses.items():
        assert response.status_code == 404, reason
        assert response.json() == {"detail": "Not found."}, reason
    assert len({r.content for r in responses.values()}) == 1


@pytestmark_db
def test_preview_requires_authentication(alpha, docs):
    assert alpha.client().get(f"/api/kb/documents/{docs['visible'].pk}/preview").status_code in (
        401,
        403,
    )


# --- the page endpoint behind the modal ------------------------------------------------------


def _page_client(info, user):
    client = info.client()
    client.force_login(user)
    return client


@pytestmark_db
def test_modal_endpoint_returns_only_the_fragment_to_htmx(alpha, docs):
    client = _page_client(alpha, docs["reader"])
    response = client.get(
        f"/chat/preview/{docs['visible'].pk}/",
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="preview-body",
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert "<html" not in html and "<body" not in html
    assert 'data-state="ready"' in html
    assert "<h1>Runbook</h1>" in html and "accepted" in html


@pytestmark_db
def test_modal_endpoint_without_htmx_is_a_full_page(alpha, docs):
    response = _page_client(alpha, docs["reader"]).get(f"/chat/preview/{docs['visible'].pk}/")
    html = response.content.decode()
    assert response.status_code == 200
    assert "<html" in html and "Step one. Step two." in html


@pytestmark_db
def test_modal_shows_the_empty_state_for_a_document_without_text(alpha, docs):
    html = (
        _page_client(alpha, docs["reader"])
        .get(f"/chat/preview/{docs['empty'].pk}/", HTTP_HX_REQUEST="true")
        .content.decode()
    )
    assert 'data-state="empty"' in html
    assert "no indexed text yet" in html


@pytestmark_db
def test_modal_never_renders_document_markup(alpha, docs):
    html = (
        _page_client(alpha, docs["reader"])
        .get(f"/chat/preview/{docs['hostile'].pk}/", HTTP_HX_REQUEST="true")
        .content.decode()
    )
    assert "&lt;script&gt;window.__pwned" in html  # shown as text
    start = html.index('<div class="preview-content">')
    assert_inert(html[start:])


@pytestmark_db
def test_modal_endpoint_has_the_same_404_for_everything_not_visible(alpha, docs):
    client = _page_client(alpha, docs["reader"])
    bodies = set()
    for pk in [docs["other_project"].pk, docs["deleted"].pk, 98765432]:
        response = client.get(f"/chat/preview/{pk}/", HTTP_HX_REQUEST="true")
        assert response.status_code == 404
        bodies.add(response.content)
    assert len(bodies) == 1


@pytestmark_db
def test_modal_endpoint_requires_login(alpha, docs):
    response = alpha.client().get(f"/chat/preview/{docs['visible'].pk}/")
    assert response.status_code == 302 and "/login/" in response["Location"]
