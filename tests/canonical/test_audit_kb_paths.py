"""Every change of a curated field is audited, whatever path made it: a re-ingest through the
documents API that changes status or priority, and a soft delete (kb reports them through
kb.curation; canonical writes the audit rows)."""

from __future__ import annotations

import json

import pytest

from canonical.models import RecordChange
from kb.curation import AuditContext, ChangeSource
from kb.models import Document
from kb.services import IngestItem, documents_ingest_many
from portal.access.models import Project
from tests.conftest import make_user, token_for

pytestmark = [
    pytest.mark.django_db,
]

RECORD = """---
type: decision
status: {status}
slug: dec-audited
retrieval_priority: {priority}
---

# Audited decision

We decided.
"""


def _client(alpha):
    editor = make_user(alpha, "audit-gap-editor", projects={"audit-gap": "editor"})
    return alpha.client(HTTP_AUTHORIZATION=f"Token {token_for(alpha, editor)}")


def _ingest(client, status: str, priority: int):
    body = {
        "project_key": "audit-gap",
        "source_path": "dec-audited.md",
        "content": RECORD.format(status=status, priority=priority),
    }
    return client.post("/api/kb/documents", json.dumps(body), content_type="application/json")


def test_status_and_priority_changed_by_ingest_are_audited(alpha):
    client = _client(alpha)
    assert _ingest(client, "accepted", 50).status_code == 201
    assert _ingest(client, "deprecated", 90).status_code == 200
    document = Document.objects.get(slug="dec-audited")
    fields = set(RecordChange.objects.filter(document=document).values_list("field", flat=True))
    assert {"canonical_status", "retrieval_priority"} <= fields


def test_soft_delete_through_the_api_is_audited(alpha):
    client = _client(alpha)
    document_id = _ingest(client, "accepted", 50).json()["document_id"]
    before = RecordChange.objects.filter(document_id=document_id).count()
    assert client.delete(f"/api/kb/documents/{document_id}").status_code == 204
    assert RecordChange.objects.filter(document_id=document_id).count() > before


def test_ingest_audit_rows_name_the_editor_and_the_api(alpha):
    client = _client(alpha)
    _ingest(client, "accepted", 50)
    _ingest(client, "superseded", 50)
    change = RecordChange.objects.get(document__slug="dec-audited", field="canonical_status")
    assert (change.from_value, change.to_value) == ("accepted", "superseded")
    assert change.source == "api"
    assert change.actor_name == "audit-gap-editor"


def test_bulk_ingest_audits_a_status_change_once(alpha):
    project = Project.objects.get_or_create(key="audit-bulk", defaults={"name": "audit-bulk"})[0]

    def run(status: str) -> None:
        items = [
            IngestItem(
                source_path=f"dec-{n}.md",
                content=RECORD.format(status=status, priority=50).replace(
                    "dec-audited", f"dec-bulk-{n}"
                ),
            )
            for n in range(3)
        ]
        outcomes = documents_ingest_many(
            project=project, items=items, origin=AuditContext(actor=None, source=ChangeSource.CLI)
        )
        assert {outcome.status for outcome in outcomes} <= {"created", "updated"}

    run("accepted")
    run("deprecated")
    rows = RecordChange.objects.filter(document__project=project, field="canonical_status")
    assert rows.count() == 3
    assert set(rows.values_list("source", "to_value")) == {("cli", "deprecated")}
