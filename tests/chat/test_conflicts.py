"""Conflicts end to end (issue 29 part 1): an accepted record and a meeting note of one project
state different PITR windows; the check on the queue raises the conflict for the project's
editors (not another project's); each resolution goes through the curation services and is
audited; a dismissed pair is not raised again."""

from __future__ import annotations

import pytest

from canonical.models import RecordChange
from chat.conflicts.selectors import conflict_resolutions, conflicts_for
from chat.conflicts.services import (
    ConflictError,
    conflict_archive_other,
    conflict_deprecate_other,
    conflict_dismiss,
    conflicts_check,
)
from chat.models import Conflict, ConflictState
from kb.models import Document
from kb.services import document_ingest
from kb.worker import run_queued_tasks
from portal.access.services import project_ensure
from tests.conftest import make_user

pytestmark = pytest.mark.django_db

KEY = "conflicts"
RUNBOOK = """---
type: runbook
status: accepted
slug: portal-db-recovery
---

# Portal database recovery

## Backups

- PITR window: 35 days of WAL on the backup bucket.
- Restores are tested every quarter by the platform team.
"""
NOTES = """# Ops sync 11 June

Someone asked about restores. We agreed the PITR window of WAL on the backup bucket is 14
days, said Tom, and nobody objected.
"""
DRAFT_RUNBOOK = """---
type: runbook
status: review
slug: portal-db-recovery-v2
---

# Portal database recovery (rewrite)

## Backups

- PITR window: 14 days of WAL on the backup bucket.
"""
LIST = "/admin/chat/conflict/"


@pytest.fixture
def world(alpha, settings):
    settings.CHAT = {**settings.CHAT, "CONFLICTS_ON_INGEST": True}
    project = project_ensure(key=KEY)
    elsewhere = project_ensure(key="conflicts-elsewhere")
    runbook = document_ingest(project=project, source_path="runbook.md", content=RUNBOOK).document
    notes = document_ingest(project=project, source_path="notes.md", content=NOTES).document
    # the same note in another project: no accepted record there, nothing to conflict with
    document_ingest(project=elsewhere, source_path="notes.md", content=NOTES)
    assert runbook is not None and notes is not None
    return {
        "project": project,
        "runbook": runbook,
        "notes": notes,
        "editor": make_user(alpha, "conflict-editor", projects={KEY: "editor"}),
        "outsider": make_user(
            alpha, "conflict-outsider", projects={"conflicts-elsewhere": "editor"}
        ),
        "reader": make_user(alpha, "conflict-reader", projects={KEY: "reader"}),
    }


def _client(info, user):
    client = info.client()
    client.force_login(user)
    return client


def test_the_check_on_the_queue_raises_the_conflict_for_the_projects_editors(alpha, world):
    assert not Conflict.objects.exists()  # queued with the ingest, not done in it
    run_queued_tasks()
    [conflict] = conflicts_for(user=world["editor"])
    assert (conflict.record, conflict.other) == (world["runbook"], world["notes"])
    assert (conflict.record_value, conflict.other_value) == ("35 days", "14 days")
    assert conflict.state == ConflictState.OPEN
    assert "PITR window: 35 days" in conflict.record_passage
    assert "said Tom" in conflict.other_passage
    assert list(conflicts_for(user=world["outsider"])) == []

    html = _client(alpha, world["editor"]).get(LIST, follow=True).content.decode()
    assert "35 days vs 14 days" in html and "Ops sync 11 June" in html
    page = _client(alpha, world["editor"]).get(f"{LIST}{conflict.pk}/change/")
    assert page.status_code == 200
    text = page.content.decode()
    assert "PITR window: 35 days" in text and "said Tom" in text
    assert "Open Portal database recovery to edit" in text
    assert "Dismiss" in text
    outsider = _client(alpha, world["outsider"])
    assert "35 days" not in outsider.get(LIST, follow=True).content.decode()
    assert outsider.get(f"{LIST}{conflict.pk}/change/").status_code == 404


def test_a_dismissed_pair_is_remembered_and_not_raised_again(alpha, world):
    run_queued_tasks()
    [conflict] = conflicts_for(user=world["editor"])
    response = _client(alpha, world["editor"]).post(
        f"{LIST}{conflict.pk}/resolve/",
        {"action": "dismiss", "reason": "Tom meant the staging database"},
        follow=True,
    )
    assert "will not be raised again" in response.content.decode()
    conflict.refresh_from_db()
    assert conflict.state == ConflictState.DISMISSED
    assert conflict.resolved_by == world["editor"]
    assert conflict.reason == "Tom meant the staging database"

    # a re-ingest with a change elsewhere in the note queues the check again
    document_ingest(
        project=world["project"], source_path="notes.md", content=NOTES + "\nAlso: lunch.\n"
    )
    run_queued_tasks()
    assert conflicts_check(document_id=world["runbook"].pk)["raised"] == 0
    assert Conflict.objects.filter(record=world["runbook"]).count() == 1
    assert not conflicts_for(user=world["editor"]).filter(state=ConflictState.OPEN).exists()


def test_dismissing_needs_a_reason(world):
    run_queued_tasks()
    conflict = Conflict.objects.get(record=world["runbook"])
    with pytest.raises(ConflictError, match="reason"):
        conflict_dismiss(conflict=conflict, by=world["editor"], reason="  ")
    conflict.refresh_from_db()
    assert conflict.state == ConflictState.OPEN


def test_an_uncurated_note_cannot_be_deprecated_the_transitions_rule_says_why(world):
    run_queued_tasks()
    conflict = Conflict.objects.get(record=world["runbook"])
    assert conflict_resolutions(conflict=conflict).deprecate is False
    with pytest.raises(ConflictError, match="Cannot change status"):
        conflict_deprecate_other(conflict=conflict, by=world["editor"])
    conflict.refresh_from_db()
    assert conflict.state == ConflictState.OPEN
    assert Document.objects.get(pk=world["notes"].pk).canonical_status is None


def test_deprecating_the_other_record_goes_through_curation_and_is_audited(alpha, world):
    draft = document_ingest(
        project=world["project"], source_path="rewrite.md", content=DRAFT_RUNBOOK
    ).document
    run_queued_tasks()
    conflict = Conflict.objects.get(record=world["runbook"], other=draft)
    assert conflict_resolutions(conflict=conflict).deprecate is True
    response = _client(alpha, world["editor"]).post(
        f"{LIST}{conflict.pk}/resolve/", {"action": "deprecate"}, follow=True
    )
    assert "The other document is deprecated." in response.content.decode()
    draft.refresh_from_db()
    assert draft.canonical_status == "deprecated"
    change = RecordChange.objects.get(document=draft, field="canonical_status")
    assert (change.from_value, change.to_value) == ("review", "deprecated")
    assert change.actor == world["editor"] and change.source == "admin"
    assert "35 days" in change.reason
    conflict.refresh_from_db()
    assert conflict.state == ConflictState.DEPRECATED and conflict.resolved_by == world["editor"]
    # the deprecation's own check leaves the resolution as it is, and raises nothing new
    run_queued_tasks()
    conflict.refresh_from_db()
    assert conflict.state == ConflictState.DEPRECATED
    assert not Conflict.objects.filter(other=draft, state=ConflictState.OPEN).exists()


def test_archiving_the_other_record_is_audited(world):
    draft = document_ingest(
        project=world["project"], source_path="rewrite.md", content=DRAFT_RUNBOOK
    ).document
    run_queued_tasks()
    conflict = Conflict.objects.get(record=world["runbook"], other=draft)
    conflict_archive_other(conflict=conflict, by=world["editor"], reason="rewrite abandoned")
    draft.refresh_from_db()
    assert draft.canonical_status == "archived"
    change = RecordChange.objects.get(document=draft, field="canonical_status")
    assert change.to_value == "archived" and change.reason == "rewrite abandoned"
    conflict.refresh_from_db()
    assert conflict.state == ConflictState.ARCHIVED


def test_editing_the_record_to_agree_closes_the_conflict_on_the_next_check(world):
    run_queued_tasks()
    conflict = Conflict.objects.get(record=world["runbook"])
    document_ingest(
        project=world["project"],
        source_path="runbook.md",
        content=RUNBOOK.replace("35 days", "14 days"),
    )
    run_queued_tasks()
    conflict.refresh_from_db()
    assert conflict.state == ConflictState.GONE


def test_a_resolution_of_another_projects_conflict_is_refused(alpha, world):
    run_queued_tasks()
    conflict = Conflict.objects.get(record=world["runbook"])
    response = _client(alpha, world["outsider"]).post(
        f"{LIST}{conflict.pk}/resolve/", {"action": "dismiss", "reason": "not mine"}
    )
    assert response.status_code in (403, 404)
    conflict.refresh_from_db()
    assert conflict.state == ConflictState.OPEN
    # a reader of the project is no editor: the console is closed to them
    reader = _client(alpha, world["reader"]).get(f"{LIST}{conflict.pk}/change/")
    assert reader.status_code in (302, 403, 404)


def test_a_check_that_does_not_meet_an_open_pair_keeps_it_open(world, monkeypatch):
    from chat.conflicts import services

    run_queued_tasks()
    conflict = Conflict.objects.get(record=world["runbook"])
    monkeypatch.setattr(services, "MAX_NEIGHBOURS", 0)  # this run compares no chunks
    assert conflicts_check(document_id=world["notes"].pk) == {"raised": 0, "seen": 1, "gone": 0}
    conflict.refresh_from_db()
    assert conflict.state == ConflictState.OPEN


def test_a_deactivated_superuser_sees_none_of_the_editor_queues(alpha, world):
    """One rule for who edits a project (Project.objects.editable_by): a superuser whose
    account was switched off reads no conflict, chat log or content gap, not even the
    unscoped ones only superusers read."""
    from chat.models import ChatLog, ContentGap
    from chat.selectors import chat_logs_for, content_gaps_for

    asked = "what is the deactivation probe?"
    run_queued_tasks()
    for keys in ([KEY], []):
        ChatLog.objects.create(question=asked, refusal_reason="no_context", project_keys=keys)
        ContentGap.objects.create(
            project_key=keys[0] if keys else "",
            normalised_question=f"{asked} {keys}",
            example_question=asked,
        )
    root = make_user(alpha, "conflict-root", superuser=True)

    def seen() -> list[int]:
        return [
            conflicts_for(user=root).count(),
            chat_logs_for(user=root).filter(question=asked).count(),
            content_gaps_for(user=root).filter(example_question=asked).count(),
        ]

    assert seen() == [1, 2, 2]
    root.is_active = False
    root.save(update_fields=["is_active"])
    assert seen() == [0, 0, 0]
