"""Isolation matrix: every read path x (other tenant, other project, soft-deleted, missing).

One user, `iso-reader`, is a member of project `iso-mine` in tenant alpha. Around them:
documents of another project, a soft-deleted document of their own project, a document of
tenant beta (with an id that does not exist in alpha) and a missing id. Every forbidden
document carries a unique marker word; no response of any read path may contain one, and
every not-found must be byte-identical.
"""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from django.db import connection
from django.test import Client

from kb.models import Document
from kb.services import document_ingest, document_soft_delete
from portal.access.services import project_ensure
from tests.conftest import make_user, token_for

pytestmark = pytest.mark.django_db

QUERY = "quokkatrellis cache failover decision"

ALLOWED = {
    "iso-decision.md": """---
type: decision
status: accepted
slug: iso-decision
summary: quokkatrellis cache failover decision for the visible project.
related: [iso-foreign-linked]
tags: [quokkatrellis]
---

# Visible decision about quokkatrellis cache failover

The quokkatrellis cache failover decision is visible to members. VISIBLEMARKER.
""",
    "iso-runbook.md": """---
type: runbook
status: accepted
slug: iso-runbook
related: [iso-decision]
---

# Visible runbook for quokkatrellis failover

Steps for quokkatrellis cache failover. VISIBLEMARKER.
""",
}
OTHER_PROJECT = {
    "iso-foreign-linked.md": """---
type: decision
status: accepted
slug: iso-foreign-linked
summary: quokkatrellis cache failover decision of another project.
---

# Foreign decision on quokkatrellis cache failover

SECRETOTHERPROJECT quokkatrellis cache failover decision.
""",
    "iso-foreign-rejected.md": """---
type: rejected-approach
status: accepted
slug: iso-foreign-rejected
summary: quokkatrellis cache failover with memcached was rejected.
---

# Rejected: quokkatrellis cache failover via memcached

SECRETREJECTED quokkatrellis cache failover decision rejected.
""",
}
SOFT_DELETED = """---
type: decision
status: accepted
slug: iso-deleted
---

# Deleted quokkatrellis cache failover decision

SECRETDELETED quokkatrellis cache failover decision.
"""
OTHER_TENANT = """# Beta quokkatrellis cache failover decision

SECRETOTHERTENANT quokkatrellis cache failover decision.
"""
SECRETS = ("SECRETOTHERPROJECT", "SECRETREJECTED", "SECRETDELETED", "SECRETOTHERTENANT")


@pytest.fixture(scope="module")
def world(tenants, django_db_blocker):
    """Documents committed once for the module, in uniquely named projects."""
    alpha, beta = tenants["alpha"], tenants["beta"]
    with django_db_blocker.unblock():
        with alpha.scope():
            mine = project_ensure(key="iso-mine")
            other = project_ensure(key="iso-other")
            allowed_ids = []
            for name, text in ALLOWED.items():
                outcome = document_ingest(project=mine, source_path=name, content=text)
                allowed_ids.append(outcome.document.pk)
            forbidden = {}
            for name, text in OTHER_PROJECT.items():
                outcome = document_ingest(project=other, source_path=name, content=text)
                forbidden[name.removesuffix(".md")] = outcome.document.pk
            deleted = document_ingest(
                project=mine, source_path="iso-deleted.md", content=SOFT_DELETED
            )
            document_soft_delete(document=deleted.document)
            forbidden["soft-deleted"] = deleted.document.pk
            max_alpha_id = Document.objects.order_by("-pk").values_list("pk", flat=True).first()
            reader = make_user(alpha, "iso-reader", projects={"iso-mine": "reader"})
            editor = make_user(alpha, "iso-editor", projects={"iso-mine": "editor"})
        with beta.scope():
            # An id that exists in beta but not in alpha: "other tenant" is a real document.
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT setval(pg_get_serial_sequence('kb_document', 'id'), %s)",
                    [max_alpha_id + 10_000],
                )
            beta_doc = document_ingest(
                project=project_ensure(key="iso-mine"), source_path="beta.md", content=OTHER_TENANT
            )
            forbidden["other-tenant"] = beta_doc.document.pk
        forbidden["missing"] = max_alpha_id + 50_000
        reader_token = token_for(alpha, reader)
        connection.set_schema_to_public()
    return {
        "allowed": set(allowed_ids),
        "forbidden": forbidden,
        "reader": reader,
        "editor": editor,
        "reader_token": reader_token,
    }


def _api(alpha, world) -> Client:
    return Client(HTTP_HOST=alpha.host, HTTP_AUTHORIZATION=f"Token {world['reader_token']}")


def _assert_no_secret(payload: bytes | str) -> None:
    text = payload.decode() if isinstance(payload, bytes) else payload
    for secret in SECRETS:
        assert secret not in text


def _hit_doc_ids(result: dict) -> set[int]:
    return {
        hit["document_id"]
        for key in ("primary", "expanded", "rejected", "runner_up")
        for hit in result[key]
    }


@pytest.mark.parametrize("mode", ["hybrid", "dense", "keyword"])
def test_search_api_returns_only_visible_documents_in_every_list(alpha, world, mode):
    response = _api(alpha, world).post(
        "/api/kb/search",
        {"query": QUERY, "top": 50, "min_similarity": 0.0, "mode": mode},
        content_type="application/json",
    )
    assert response.status_code == 200
    found = _hit_doc_ids(response.json())
    assert found, "positive control: the visible documents must be found"
    assert found <= world["allowed"]
    _assert_no_secret(response.content)


def test_search_filter_naming_a_foreign_project_matches_nothing(alpha, world):
    response = _api(alpha, world).post(
        "/api/kb/search",
        {"query": QUERY, "filters": {"project_keys": ["iso-other"]}, "min_similarity": 0.0},
        content_type="application/json",
    )
    assert response.status_code == 200
    assert _hit_doc_ids(response.json()) == set()
    forbidden_ids = list(world["forbidden"].values())
    by_id = _api(alpha, world).post(
        "/api/kb/search",
        {"query": QUERY, "filters": {"doc_ids": forbidden_ids}, "min_similarity": 0.0},
        content_type="application/json",
    )
    assert by_id.status_code == 200
    assert _hit_doc_ids(by_id.json()) == set()


def test_search_cli_as_user_obeys_visibility(alpha, world):
    out = io.StringIO()
    call_command(
        "kb_search",
        QUERY,
        "--tenant",
        "alpha",
        "--as-user",
        "iso-reader",
        "--json",
        "--min-similarity",
        "0",
        "--top",
        "50",
        stdout=out,
    )
    result = json.loads(out.getvalue())
    found = _hit_doc_ids(result)
    assert found and found <= world["allowed"]
    _assert_no_secret(out.getvalue())


def test_chat_answers_and_citations_use_only_visible_documents(alpha, world):
    response = _api(alpha, world).post(
        "/api/kb/chat",
        {"question": "What is the quokkatrellis cache failover decision?"},
        content_type="application/json",
    )
    assert response.status_code == 200
    body = response.json()
    assert {c["document_id"] for c in body["citations"]} <= world["allowed"]
    _assert_no_secret(response.content)


@pytest.mark.parametrize("case", ["iso-foreign-linked", "soft-deleted", "other-tenant", "missing"])
def test_preview_api_404_is_identical_whatever_the_reason(alpha, world, case):
    client = _api(alpha, world)
    doc_id = world["forbidden"][case]
    response = client.get(f"/api/kb/documents/{doc_id}/preview")
    reference = client.get(f"/api/kb/documents/{world['forbidden']['missing']}/preview")
    assert response.status_code == 404
    assert response.content == reference.content == b'{"detail":"Not found."}'


@pytest.mark.parametrize("case", ["iso-foreign-linked", "soft-deleted", "other-tenant", "missing"])
def test_document_detail_history_and_page_preview_404_identically(alpha, world, case):
    api = _api(alpha, world)
    doc_id = world["forbidden"][case]
    missing = world["forbidden"]["missing"]
    for path in ("/api/kb/documents/{}", "/api/kb/documents/{}/history"):
        response = api.get(path.format(doc_id))
        assert response.status_code == 404
        assert response.content == api.get(path.format(missing)).content
    page = Client(HTTP_HOST=alpha.host)
    page.force_login(world["reader"])
    preview = page.get(f"/chat/preview/{doc_id}/")
    assert preview.status_code == 404
    assert preview.content == page.get(f"/chat/preview/{missing}/").content
    _assert_no_secret(preview.content)


def test_document_list_shows_only_visible_documents(alpha, world):
    response = _api(alpha, world).get("/api/kb/documents?page_size=100")
    assert response.status_code == 200
    ids = {item["id"] for item in response.json()["results"]}
    assert ids == world["allowed"]
    foreign = _api(alpha, world).get("/api/kb/documents?project_key=iso-other")
    assert foreign.status_code == 200
    assert foreign.json()["results"] == []


@pytest.mark.parametrize("case", ["iso-foreign-linked", "soft-deleted", "missing"])
def test_writes_to_invisible_documents_are_404(alpha, world, case):
    editor_token = token_for(alpha, world["editor"])
    client = Client(HTTP_HOST=alpha.host, HTTP_AUTHORIZATION=f"Token {editor_token}")
    doc_id = world["forbidden"][case]
    patch = client.patch(
        f"/api/kb/documents/{doc_id}",
        {"retrieval_priority": 99},
        content_type="application/json",
    )
    delete = client.delete(f"/api/kb/documents/{doc_id}")
    assert patch.status_code == delete.status_code == 404
    assert patch.content == delete.content == b'{"detail":"Not found."}'


@pytest.mark.parametrize("case", ["iso-foreign-linked", "soft-deleted", "missing"])
def test_admin_never_shows_out_of_scope_records(alpha, world, case):
    client = Client(HTTP_HOST=alpha.host)
    client.force_login(world["editor"])
    changelist = client.get("/admin/canonical/canonicalrecord/?q=quokkatrellis")
    assert changelist.status_code == 200
    _assert_no_secret(changelist.content)
    assert b"Visible decision" in changelist.content
    doc_id = world["forbidden"][case]
    change = client.get(f"/admin/canonical/canonicalrecord/{doc_id}/change/")
    assert change.status_code in (302, 404)
    if change.status_code == 302:  # Django admin redirects a missing object to the index
        assert "canonicalrecord" not in change["Location"] or str(doc_id) not in change["Location"]
    _assert_no_secret(change.content)
