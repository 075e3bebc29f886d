"""The /search/ page: hybrid search with filters and snippets, through kb.retrieval.search."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kb.views import snippet
from portal.access.models import Project
from tests.chat.conftest import committed_handbook
from tests.conftest import make_user

pytestmark = pytest.mark.django_db

QUERY = "redis cluster failover"
HANDBOOK_KEY = "search-page-handbook"


@pytest.fixture(scope="module")
def handbook(tenants, django_db_blocker) -> Iterator[Project]:
    """The demo handbook committed for this module (hash embedder: the page, not the ranking)."""
    from kb.embeddings import build_embedder

    with committed_handbook(
        tenants["alpha"], HANDBOOK_KEY, build_embedder("hash"), django_db_blocker
    ) as project:
        yield project


@pytest.fixture(autouse=True)
def _any_similarity(settings):
    """Hash-embedder cosines are noise; the page and its filters are under test here."""
    settings.KB = {**settings.KB, "MIN_SIMILARITY": 0.0}


@pytest.fixture
def reader(alpha, handbook):
    return make_user(alpha, "search-page-reader", projects={HANDBOOK_KEY: "reader"})


def _client(info, user):
    client = info.client()
    client.force_login(user)
    return client


def test_the_page_offers_every_filter(alpha, reader):
    response = _client(alpha, reader).get("/search/")
    html = response.content.decode()
    assert response.status_code == 200 and html.count("<h1") == 1
    for name in (
        "q",
        "project_keys",
        "canonical_types",
        "canonical_statuses",
        "tags",
        "date_from",
        "date_to",
    ):
        assert f'name="{name}"' in html
    assert f'<option value="{HANDBOOK_KEY}">' in html
    assert 'href="/search/"' in html  # in the navigation


def test_results_are_documents_with_marked_snippets(alpha, reader):
    html = _client(alpha, reader).get("/search/", {"q": QUERY}).content.decode()
    assert "rb-redis-failover" in html or "Redis" in html
    assert "<mark>" in html.lower()
    assert 'class="search-results"' in html


def test_a_status_filter_keeps_only_that_status(alpha, reader):
    client = _client(alpha, reader)
    everything = client.get("/search/", {"q": "cache"}).content.decode()
    superseded = client.get("/search/", {"q": "cache", "status": "superseded"}).content.decode()
    assert superseded.count('<span class="badge">superseded</span>') >= 1
    assert superseded.count("<li>") < everything.count("<li>")
    assert '<span class="badge">accepted</span>' not in superseded


def test_a_type_and_tag_filter_narrow_the_results(alpha, reader):
    html = (
        _client(alpha, reader)
        .get("/search/", {"q": "redis", "type": "runbook", "tag": "Failover"})
        .content.decode()
    )
    assert '<span class="badge">runbook</span>' in html
    assert '<span class="badge">decision</span>' not in html


def test_htmx_gets_the_results_fragment(alpha, reader):
    response = _client(alpha, reader).get(
        "/search/", {"q": QUERY}, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="search-results"
    )
    html = response.content.decode()
    assert html.lstrip().startswith('<section id="search-results"')
    assert "<html" not in html


def test_bad_filters_are_field_errors_not_500s(alpha, reader):
    client = _client(alpha, reader)
    bad = client.get(
        "/search/", {"q": "x", "date_from": "2025-02-01", "date_to": "2025-01-01"}
    ).content.decode()
    assert "The end date must not be before the start date." in bad
    assert client.get("/search/", {"q": "x", "status": "nonsense"}).status_code == 200
    foreign = client.get("/search/", {"q": QUERY, "project": "not-mine"}).content.decode()
    assert "Select a valid choice" in foreign and "<mark>" not in foreign


INVERTED = {"q": "redis", "date_from": "2025-02-01", "date_to": "2025-01-01"}


def test_an_inverted_date_range_is_said_in_the_results_htmx_swaps(alpha, reader):
    """htmx replaces only the results: the refusal must be there, not only beside the field."""
    response = _client(alpha, reader).get(
        "/search/", INVERTED, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="search-results"
    )
    html = response.content.decode()
    assert response.status_code == 200 and "<html" not in html
    assert 'role="alert"' in html and "Nothing was searched" in html
    assert "The end date must not be before the start date." in html
    assert 'href="#id_date_to"' in html  # the message leads to the field
    assert 'class="search-results"' not in html and "<mark>" not in html
    # without a query the same range is refused too, not passed over
    empty = (
        _client(alpha, reader)
        .get(
            "/search/",
            {**INVERTED, "q": ""},
            HTTP_HX_REQUEST="true",
            HTTP_HX_TARGET="search-results",
        )
        .content.decode()
    )
    assert "The end date must not be before the start date." in empty


def test_an_inverted_date_range_is_a_400_on_the_search_api(alpha, reader):
    import json

    from kb.filters import DATE_RANGE_ERROR
    from tests.conftest import token_for

    client = alpha.client(HTTP_AUTHORIZATION=f"Token {token_for(alpha, reader)}")
    response = client.post(
        "/api/kb/search",
        json.dumps(
            {"query": "redis", "filters": {"date_from": "2025-02-01", "date_to": "2025-01-01"}}
        ),
        content_type="application/json",
    )
    assert response.status_code == 400
    assert response.json() == {"filters": {"date_to": [DATE_RANGE_ERROR]}}


def test_the_filters_are_one_disclosure_open_unless_a_phone_folds_it(alpha, reader):
    client = _client(alpha, reader)
    plain = client.get("/search/").content.decode()
    assert '<details class="search-filters" id="search-filters" open data-filters-set="0">' in plain
    assert "<summary>Filters</summary>" in plain
    set_ = client.get("/search/", {"q": "x", "status": "accepted", "tag": "ops"}).content.decode()
    assert 'data-filters-set="2"' in set_ and "Filters (2 set)" in set_
    assert 'src="/static/kb/search.js"' in plain


def test_other_projects_and_tenants_see_nothing(alpha, beta, reader):
    outsider = make_user(alpha, "search-page-outsider", projects={"search-empty": "reader"})
    html = _client(alpha, outsider).get("/search/", {"q": QUERY}).content.decode()
    assert "0 documents" in html and "rb-redis-failover" not in html
    assert beta.client().get("/search/").status_code == 302  # no session at the other tenant


def test_anonymous_is_sent_to_login(alpha):
    response = alpha.client().get("/search/", {"q": QUERY})
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_snippet_escapes_text_and_marks_query_words():
    html = str(snippet("<b>Redis</b> cluster " + "filler " * 100 + "end", "redis"))
    assert "&lt;b&gt;<mark>Redis</mark>&lt;/b&gt;" in html
    assert html.endswith("…")
