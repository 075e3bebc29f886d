"""Documents API over HTTP on a tenant host: reads, ingest, curation, delete, access rules."""

from __future__ import annotations

import json

import pytest

from kb.models import Document
from kb.services import document_ingest
from portal.access.services import project_ensure
from tests.conftest import make_user, token_for

URL = "/api/kb/documents"

RUNBOOK = """---
type: runbook
status: accepted
slug: rb-failover
tags: [redis, ops]
---

# Redis failover

Promote the replica.
"""


@pytest.fixture
def corpus(alpha):
    """Two projects in alpha: ops (runbook + note + html page) and secret (one note)."""
    ops = project_ensure(key="ops")
    secret = project_ensure(key="secret")
    docs = {
        "runbook": document_ingest(project=ops, source_path="rb/rb-failover.md", content=RUNBOOK),
        "note": document_ingest(
            project=ops, source_path="notes/team-lunch.txt", content="Lunch is at noon.\n"
        ),
        "page": document_ingest(
            project=ops,
            source_path="web/status.html",
            content="<h1>Status page</h1><p>All green.</p>",
        ),
        "secret": document_ingest(
            project=secret, source_path="s/plan.md", content="# Plan\n\nSecret plan.\n"
        ),
    }
    return {name: outcome.document for name, outcome in docs.items()}


def api(info, user):
    return info.client(HTTP_AUTHORIZATION=f"Token {token_for(info, user)}")


def post(client, data, **extra):
    return client.post(URL, json.dumps(data), content_type="application/json", **extra)


def patch(client, doc_id, data):
    return client.patch(f"{URL}/{doc_id}", json.dumps(data), content_type="application/json")


def test_list_shows_only_visible_documents_with_all_fields(alpha, corpus):
    reader = make_user(alpha, "ops-reader", projects={"ops": "reader"})
    response = api(alpha, reader).get(URL)
    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 3
    slugs = [item["slug"] for item in body["results"]]
    assert slugs == ["rb-failover", "status", "team-lunch"]
    runbook = body["results"][0]
    assert runbook["project_key"] == "ops" and runbook["canonical_type"] == "runbook"
    assert runbook["chunk_count"] == 1 and runbook["evidence_tier"] == "canonical"
    assert set(runbook) >= {
        "id", "slug", "title", "project_key", "source_path", "source_type", "tags",
        "canonical_type", "canonical_status", "retrieval_priority", "evidence_tier",
        "generation_source", "summary", "chunk_count", "created_at", "updated_at",
    }  # fmt: skip


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("tags=ops,unknown", ["rb-failover"]),
        ("source_type=html", ["status"]),
        ("canonical_type=runbook&canonical_status=accepted", ["rb-failover"]),
        ("canonical_status=draft", []),
        ("q=LUNCH", ["team-lunch"]),
        ("project_key=secret", ["plan"]),
        ("project_key=nope", []),
    ],
)
def test_list_filters(alpha, corpus, query, expected):
    admin = make_user(alpha, "root", superuser=True)
    response = api(alpha, admin).get(f"{URL}?{query}")
    assert response.status_code == 200
    assert [item["slug"] for item in response.json()["results"]] == expected


def test_filters_never_widen_visibility(alpha, corpus):
    reader = make_user(alpha, "ops-only", projects={"ops": "reader"})
    response = api(alpha, reader).get(f"{URL}?project_key=secret")
    assert response.json()["count"] == 0


def test_list_pagination(alpha, corpus):
    admin = make_user(alpha, "root", superuser=True)
    client = api(alpha, admin)
    first = client.get(f"{URL}?page_size=3").json()
    assert first["count"] == 4 and len(first["results"]) == 3 and first["next"]
    second = client.get(f"{URL}?page_size=3&page=2").json()
    assert len(second["results"]) == 1 and second["next"] is None
    seen = {item["id"] for item in first["results"] + second["results"]}
    assert len(seen) == 4


@pytest.mark.parametrize(
    ("query", "field"),
    [("source_type=xlsx", "source_type"), ("canonical_status=bogus", "canonical_status"),
     ("page_size=0", "page_size"), ("page=abc", "page")],
)  # fmt: skip
def test_list_rejects_bad_filters_with_field_errors(alpha, corpus, query, field):
    admin = make_user(alpha, "root", superuser=True)
    response = api(alpha, admin).get(f"{URL}?{query}")
    assert response.status_code == 400
    assert field in response.json()


def test_anonymous_and_cross_tenant_tokens_are_401(alpha, beta, corpus):
    assert alpha.client().get(URL).status_code == 401
    beta_user = make_user(beta, "beta-admin", superuser=True)
    response = beta.client().get(URL)  # sanity: beta host works
    assert response.status_code == 401
    foreign = alpha.client(HTTP_AUTHORIZATION=f"Token {token_for(beta, beta_user)}")
    assert foreign.get(URL).status_code == 401
    assert foreign.get(f"{URL}/{corpus['runbook'].pk}").status_code == 401


def test_detail_get_and_404s_look_the_same(alpha, corpus):
    reader = make_user(alpha, "ops-reader", projects={"ops": "reader"})
    client = api(alpha, reader)
    response = client.get(f"{URL}/{corpus['runbook'].pk}")
    assert response.status_code == 200 and response.json()["title"] == "Redis failover"
    other_project = client.get(f"{URL}/{corpus['secret'].pk}")
    missing = client.get(f"{URL}/999999")
    Document.objects.filter(pk=corpus["note"].pk).update(deleted_at="2024-01-01T00:00Z")
    deleted = client.get(f"{URL}/{corpus['note'].pk}")
    for response in (other_project, missing, deleted):
        assert response.status_code == 404
        assert response.json() == {"detail": "Not found."}


def test_editor_creates_then_updates_then_skips(alpha, corpus):
    editor = make_user(alpha, "ops-editor", projects={"ops": "editor"})
    client = api(alpha, editor)
    data = {"project_key": "ops", "source_path": "rb/new.md", "content": "# New\n\nBody one.\n"}
    created = post(client, data)
    assert created.status_code == 201
    body = created.json()
    assert body["status"] == "created" and body["created"] == 1 and body["chunks"] == 1
    assert body["failed"] == [] and body["document_id"]
    doc = client.get(f"{URL}/{body['document_id']}").json()
    assert doc["slug"] == "new" and doc["title"] == "New"

    updated = post(client, {**data, "content": "# New\n\nBody two.\n", "title": "Renamed"})
    assert updated.status_code == 200 and updated.json()["status"] == "updated"
    assert updated.json()["document_id"] == body["document_id"]
    assert client.get(f"{URL}/{body['document_id']}").json()["title"] == "Renamed"

    again = post(client, {**data, "content": "# New\n\nBody two.\n", "title": "Renamed"})
    assert again.status_code == 200 and again.json()["skipped"] == 1


def test_create_reports_warnings(alpha, corpus):
    editor = make_user(alpha, "ops-editor", projects={"ops": "editor"})
    content = "---\ntype: [broken\n---\n# Doc\n"
    response = post(
        api(alpha, editor), {"project_key": "ops", "source_path": "x.md", "content": content}
    )
    assert response.status_code == 201
    assert any("invalid frontmatter" in w for w in response.json()["warnings"])


def test_create_403_for_reader_and_404_for_other_project(alpha, corpus):
    reader = make_user(alpha, "mixed", projects={"ops": "reader"})
    client = api(alpha, reader)
    data = {"source_path": "a.md", "content": "# A\n"}
    forbidden = post(client, {**data, "project_key": "ops"})
    assert forbidden.status_code == 403
    for key in ("secret", "does-not-exist"):
        response = post(client, {**data, "project_key": key})
        assert response.status_code == 404 and response.json() == {"detail": "Not found."}
    assert not Document.objects.filter(source_path="a.md").exists()


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"source_path": "a.md", "content": "x"}, "project_key"),
        ({"project_key": "ops", "content": "x"}, "source_path"),
        ({"project_key": "ops", "source_path": "a.md"}, "content"),
        ({"project_key": "ops", "source_path": "a.pdf", "content": "x"}, "source_path"),
        (
            {"project_key": "ops", "source_path": "a", "content": "x", "source_type": "docx"},
            "source_type",
        ),
        ({"project_key": "Bad Key!", "source_path": "a.md", "content": "x"}, "project_key"),
        ({"project_key": "ops", "source_path": "a.md", "content": 12}, None),
    ],
)
def test_create_field_errors(alpha, corpus, data, field):
    editor = make_user(alpha, "ops-editor", projects={"ops": "editor"})
    response = post(api(alpha, editor), data)
    if field is None:
        # DRF coerces numbers to strings; what matters is no 500
        assert response.status_code in (200, 201, 400)
    else:
        assert response.status_code == 400
        assert field in response.json()


def test_create_content_size_limit_and_malformed_json(alpha, corpus, settings):
    settings.KB = {**settings.KB, "INGEST_MAX_FILE_BYTES": 50}
    editor = make_user(alpha, "ops-editor", projects={"ops": "editor"})
    client = api(alpha, editor)
    response = post(client, {"project_key": "ops", "source_path": "a.md", "content": "x" * 51})
    assert response.status_code == 400 and "limit is 50 bytes" in response.json()["content"][0]
    broken = client.post(URL, "{not json", content_type="application/json")
    assert broken.status_code == 400
    listed = client.post(URL, "[1, 2]", content_type="application/json")
    assert listed.status_code == 400


def test_create_with_explicit_source_type_without_extension(alpha, corpus):
    editor = make_user(alpha, "ops-editor", projects={"ops": "editor"})
    data = {
        "project_key": "ops",
        "source_path": "wiki/Page",
        "content": "plain",
        "source_type": "text",
    }
    response = post(api(alpha, editor), data)
    assert response.status_code == 201


def test_patch_metadata_by_editor(alpha, corpus):
    editor = make_user(alpha, "ops-editor", projects={"ops": "editor"})
    client = api(alpha, editor)
    doc_id = corpus["runbook"].pk
    response = patch(
        client, doc_id, {"title": "Failover", "tags": ["Redis", "oncall"], "owners": ["SRE"]}
    )
    assert response.status_code == 200
    body = response.json()
    assert body["title"] == "Failover" and body["tags"] == ["redis", "oncall"]
    assert body["owners"] == ["SRE"] and body["summary"] == ""
    assert client.get(f"{URL}/{doc_id}").json()["title"] == "Failover"


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"title": ""}, "title"),
        ({"tags": "not-a-list"}, "tags"),
        ({"content_hash": "x"}, "content_hash"),
        ({}, "non_field_errors"),
    ],
)
def test_patch_field_errors(alpha, corpus, data, field):
    editor = make_user(alpha, "ops-editor", projects={"ops": "editor"})
    response = patch(api(alpha, editor), corpus["runbook"].pk, data)
    assert response.status_code == 400 and field in response.json()


def test_patch_and_delete_403_for_reader_404_elsewhere(alpha, corpus):
    reader = make_user(alpha, "ops-reader", projects={"ops": "reader"})
    client = api(alpha, reader)
    assert patch(client, corpus["runbook"].pk, {"title": "x"}).status_code == 403
    assert client.delete(f"{URL}/{corpus['runbook'].pk}").status_code == 403
    assert patch(client, corpus["secret"].pk, {"title": "x"}).status_code == 404
    assert client.delete(f"{URL}/{corpus['secret'].pk}").status_code == 404
    assert Document.objects.get(pk=corpus["runbook"].pk).title == "Redis failover"


def test_delete_soft_deletes(alpha, corpus):
    editor = make_user(alpha, "ops-editor", projects={"ops": "editor"})
    client = api(alpha, editor)
    doc_id = corpus["runbook"].pk
    assert client.delete(f"{URL}/{doc_id}").status_code == 204
    assert client.get(f"{URL}/{doc_id}").status_code == 404
    assert client.delete(f"{URL}/{doc_id}").status_code == 404
    assert Document.objects.filter(pk=doc_id, deleted_at__isnull=False).exists()
    assert doc_id not in [d["id"] for d in client.get(URL).json()["results"]]


def test_session_auth_works_for_reads(alpha, corpus):
    make_user(alpha, "ops-reader", projects={"ops": "reader"})
    client = alpha.client()
    assert client.login(username="ops-reader", password="pw-secret-123")
    assert client.get(URL).json()["count"] == 3


def test_schema_documents_the_endpoints(alpha, corpus):
    admin = make_user(alpha, "root", superuser=True)
    response = api(alpha, admin).get("/api/schema/", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    text = response.content.decode()
    assert "/api/kb/documents/{document_id}" in text and "KbDocumentIngestInput" in text


def test_patch_without_a_curation_layer_changes_metadata_only(alpha, corpus, monkeypatch):
    """kb's own PATCH path (kb.curation has no editor): metadata yes, workflow fields no."""
    monkeypatch.setattr("kb.curation._editor", None)
    editor = make_user(alpha, "ops-editor", projects={"ops": "editor"})
    client = api(alpha, editor)
    doc_id = corpus["runbook"].pk
    response = patch(client, doc_id, {"title": "Failover", "tags": ["Ops"]})
    assert response.status_code == 200
    assert response.json()["title"] == "Failover" and response.json()["tags"] == ["ops"]
    response = patch(client, doc_id, {"canonical_status": "archived"})
    assert response.status_code == 400 and "canonical_status" in response.json()
    assert Document.objects.get(pk=doc_id).canonical_status == "accepted"


def test_patch_goes_through_the_curation_layer(alpha, corpus):
    """With canonical installed, the one document route applies the workflow and audits it."""
    editor = make_user(alpha, "ops-editor", projects={"ops": "editor"})
    client = api(alpha, editor)
    doc_id = corpus["runbook"].pk
    response = patch(client, doc_id, {"canonical_status": "deprecated", "reason": "old"})
    assert response.status_code == 200 and response.json()["canonical_status"] == "deprecated"
    history = client.get(f"{URL}/{doc_id}/history").json()["results"]
    assert [(row["field"], row["source"], row["reason"]) for row in history] == [
        ("canonical_status", "api", "old")
    ]
