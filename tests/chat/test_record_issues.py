"""A record's open conflicts and proposals (issue 29 part 4): GET
/api/kb/records/{id}/issues and the MCP tool `record_status` show them to the project's
editors, in one shape; a reader is refused, another project's editor finds nothing."""

from __future__ import annotations

import pytest

from chat.conflicts.services import conflict_dismiss, conflicts_check
from chat.models import Conflict, Proposal, ProposalKind
from integrations.tools import NOT_FOUND, ToolFailure, record_status_tool
from kb.services import document_ingest
from portal.access.services import project_ensure
from tests.chat.test_conflicts import NOTES, RUNBOOK
from tests.conftest import make_user, token_for

pytestmark = pytest.mark.django_db

KEY = "record-issues"


@pytest.fixture
def world(alpha):
    project = project_ensure(key=KEY)
    project_ensure(key="record-issues-elsewhere")
    runbook = document_ingest(project=project, source_path="runbook.md", content=RUNBOOK).document
    notes = document_ingest(project=project, source_path="notes.md", content=NOTES).document
    assert runbook is not None and notes is not None
    conflicts_check(document_id=runbook.pk)
    proposal = Proposal.objects.create(
        project=project,
        kind=ProposalKind.DEPRECATE,
        document=runbook,
        question="How long is the PITR window?",
        answer="35 days [1].",
        cited_document_ids=[runbook.pk],
    )
    return {
        "runbook": runbook,
        "notes": notes,
        "proposal": proposal,
        "editor": make_user(alpha, "issues-editor", projects={KEY: "editor"}),
        "reader": make_user(alpha, "issues-reader", projects={KEY: "reader"}),
        "outsider": make_user(
            alpha, "issues-outsider", projects={"record-issues-elsewhere": "editor"}
        ),
    }


def _get(alpha, user, document_id: int):
    client = alpha.client(HTTP_AUTHORIZATION=f"Token {token_for(alpha, user)}")
    return client.get(f"/api/kb/records/{document_id}/issues")


def test_an_editor_reads_a_records_open_conflicts_and_proposals(alpha, world):
    [conflict] = Conflict.objects.all()
    body = _get(alpha, world["editor"], world["runbook"].pk).json()
    [row] = body["open_conflicts"]
    assert (row["id"], row["record_slug"], row["other_slug"]) == (
        conflict.pk,
        "portal-db-recovery",
        world["notes"].slug,
    )
    assert (row["record_value"], row["other_value"]) == ("35 days", "14 days")
    [proposal] = body["open_proposals"]
    assert (proposal["id"], proposal["kind"], proposal["answer"]) == (
        world["proposal"].pk,
        "deprecate",
        "35 days [1].",
    )
    # the other side of the conflict shows it too; it has no proposal
    other = _get(alpha, world["editor"], world["notes"].pk).json()
    assert [c["id"] for c in other["open_conflicts"]] == [conflict.pk]
    assert other["open_proposals"] == []

    # the MCP tool: the same rows beside the curation state
    status = record_status_tool(world["editor"], document_id=world["runbook"].pk)
    assert status["open_conflicts"] == body["open_conflicts"]
    assert status["open_proposals"] == body["open_proposals"]
    assert status["canonical_status"] == "accepted"

    # closed ones are not open any more
    conflict_dismiss(conflict=conflict, by=world["editor"], reason="staging")
    assert (
        record_status_tool(world["editor"], document_id=world["runbook"].pk)["open_conflicts"] == []
    )


def test_readers_and_other_projects_editors_do_not_read_them(alpha, world):
    doc = world["runbook"].pk
    assert _get(alpha, world["reader"], doc).status_code == 403
    assert _get(alpha, world["outsider"], doc).status_code == 404
    with pytest.raises(ToolFailure) as caught:
        record_status_tool(world["outsider"], document_id=doc)
    assert str(caught.value) == NOT_FOUND
