"""The one filter grammar (kb.filters): the same names on every surface, old names for one
release, one date-range rule."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from django.http import QueryDict

from kb.filters import (
    DATE_RANGE_ERROR,
    SearchFiltersSerializer,
    canonical_names,
    filter_data_from_query,
    filters_from,
)
from kb.services import document_ingest
from portal.access.services import project_ensure
from tests.conftest import make_user, token_for


def _validated(data):
    serializer = SearchFiltersSerializer(data=data)
    assert serializer.is_valid(), serializer.errors
    return filters_from(serializer.validated_data)


def test_old_names_read_as_the_new_ones_and_merge():
    named, sent_as = canonical_names({"project_key": "ops", "project_keys": ["dev"], "status": "x"})
    assert named == {"project_keys": ["ops", "dev"], "canonical_statuses": "x"}
    assert sent_as == {"project_keys": "project_key", "canonical_statuses": "status"}
    filters = _validated({"project_key": "ops", "tag": "Redis", "canonical_status": "accepted"})
    assert filters.project_keys == ("ops",)
    assert filters.tags == ("Redis",)
    assert filters.canonical_statuses == ("accepted",)


def test_query_strings_repeat_or_separate_with_commas():
    query = QueryDict("project_keys=a,b&project_keys=c&canonical_statuses=accepted&q=x&tags=")
    data = filter_data_from_query(query)
    assert data == {"project_keys": ["a", "b", "c"], "canonical_statuses": ["accepted"]}
    assert filter_data_from_query(QueryDict("date_from=2025-01-01&page=2")) == {
        "date_from": "2025-01-01"
    }
    # an old name beside its new one is not read twice
    both = filter_data_from_query(QueryDict("project=a&project_keys=b"))
    assert _validated(both).project_keys == ("b",)


def test_errors_name_the_field_that_was_sent():
    serializer = SearchFiltersSerializer(data={"canonical_status": ["bogus"]})
    assert not serializer.is_valid() and "canonical_status" in serializer.errors
    unknown = SearchFiltersSerializer(data={"colour": ["red"]})
    assert not unknown.is_valid() and "Unknown filter" in str(unknown.errors["colour"])
    inverted = SearchFiltersSerializer(data={"date_from": "2025-02-01", "date_to": "2025-01-01"})
    assert not inverted.is_valid() and inverted.errors["date_to"] == [DATE_RANGE_ERROR]
    assert _validated({"date_from": "2025-01-01"}).date_from == dt.date(2025, 1, 1)


@pytest.fixture
def corpus(alpha):
    ops = project_ensure(key="filters-ops")
    notes = project_ensure(key="filters-notes")
    accepted = (
        "---\ntype: runbook\nstatus: accepted\nslug: f-runbook\n---\n# Runbook\n\nFailover steps.\n"
    )
    draft = "---\ntype: runbook\nstatus: draft\nslug: f-draft\n---\n# Draft runbook\n\nFailover draft.\n"
    document_ingest(project=ops, source_path="f-runbook.md", content=accepted)
    document_ingest(project=ops, source_path="f-draft.md", content=draft)
    document_ingest(project=notes, source_path="f-notes.md", content="# Notes\n\nFailover chat.\n")
    return make_user(
        alpha, "filters-reader", projects={"filters-ops": "reader", "filters-notes": "reader"}
    )


@pytest.mark.django_db
def test_every_surface_takes_the_same_names(alpha, corpus):
    client = alpha.client(HTTP_AUTHORIZATION=f"Token {token_for(alpha, corpus)}")

    def listed(query):
        response = client.get(f"/api/kb/documents?{query}")
        assert response.status_code == 200, response.content
        return sorted(item["slug"] for item in response.json()["results"])

    assert listed("canonical_statuses=accepted") == ["f-runbook"]
    assert listed("project_keys=filters-ops,filters-notes&canonical_types=runbook") == [
        "f-draft", "f-runbook"
    ]  # fmt: skip
    assert listed("canonical_status=draft") == ["f-draft"]  # the old name, one more release
    bad = client.get("/api/kb/documents?date_from=2025-02-01&date_to=2025-01-01")
    assert bad.status_code == 400 and bad.json()["date_to"] == [DATE_RANGE_ERROR]

    searched = client.post(
        "/api/kb/search",
        json.dumps({"query": "failover", "filters": {"canonical_statuses": ["draft"]}}),
        content_type="application/json",
    )
    assert searched.status_code == 200, searched.content
    assert {hit["slug"] for hit in searched.json()["primary"]} == {"f-draft"}
    assert searched.json()["meta"]["search_strategy"]["filters_applied"] == {
        "canonical_statuses": ["draft"]
    }

    page = alpha.client()
    page.force_login(corpus)
    html = page.get("/search/", {"q": "failover", "project_keys": "filters-notes"}).content.decode()
    assert "f-notes" in html or "Notes" in html
    assert "Draft runbook" not in html and "Runbook</a>" not in html
