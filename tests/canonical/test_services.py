"""Curation services on real PostgreSQL: workflow, supersede edges, audit rows, scope."""

from __future__ import annotations

import pytest

from canonical import services
from canonical.models import AuditTrailError, RecordChange
from canonical.transitions import InvalidSuccessor, InvalidTransition, InvalidValue, NotEditable
from kb.curation import AuditContext
from kb.models import Document, Edge
from tests.canonical.conftest import make_doc
from tests.conftest import make_user

WHY = "curated in a test"  # status changes and supersedes need a reason

pytestmark = pytest.mark.django_db


@pytest.fixture
def editor(alpha):
    return make_user(alpha, "cur-editor", projects={"proj-a": "editor", "proj-b": "reader"})


def history(doc: Document) -> list[tuple[str, str, str, str]]:
    return list(
        RecordChange.objects.filter(document=doc)
        .order_by("id")
        .values_list("field", "from_value", "to_value", "source")
    )


def test_deprecate_changes_status_and_writes_one_audit_row(alpha, editor):
    doc = make_doc("proj-a", "use-postgres")
    services.record_deprecate(document=doc, by=AuditContext(actor=editor, reason="replaced soon"))
    doc.refresh_from_db()
    assert doc.canonical_status == "deprecated"
    change = RecordChange.objects.get(document=doc)
    assert (change.field, change.from_value, change.to_value) == (
        "canonical_status",
        "accepted",
        "deprecated",
    )
    assert change.actor == editor and change.actor_name == "cur-editor"
    assert change.reason == "replaced soon" and change.source == "service"


def test_invalid_transition_changes_nothing(alpha, editor):
    doc = make_doc("proj-a", "draft-one", status="draft")
    with pytest.raises(InvalidTransition, match="from draft to deprecated"):
        services.record_deprecate(document=doc, by=AuditContext(actor=editor, reason=WHY))
    doc.refresh_from_db()
    assert doc.canonical_status == "draft"
    assert not RecordChange.objects.filter(document=doc).exists()


def test_plain_document_needs_a_type_before_a_status(alpha, editor):
    doc = make_doc("proj-a", "plain-notes", canonical_type=None)
    with pytest.raises(InvalidTransition, match="canonical type first"):
        services.record_accept(document=doc, by=AuditContext(actor=editor, reason=WHY))
    services.record_set_type(
        document=doc, canonical_type="runbook", by=AuditContext(actor=editor, reason=WHY)
    )
    doc.refresh_from_db()
    assert (doc.canonical_type, doc.canonical_status, doc.evidence_tier) == (
        "runbook",
        "draft",
        "canonical",
    )
    fields = [row[0] for row in history(doc)]
    assert fields == ["canonical_type", "canonical_status", "evidence_tier"]


def test_superseded_is_only_reachable_with_a_successor(alpha, editor):
    doc = make_doc("proj-a", "old-way")
    with pytest.raises(InvalidTransition, match="naming its successor"):
        services.record_set_status(
            document=doc, status="superseded", by=AuditContext(actor=editor, reason=WHY)
        )


def test_supersede_writes_status_edges_and_audit(alpha, editor):
    old = make_doc("proj-a", "queue-redis")
    new = make_doc("proj-a", "queue-postgres")
    services.record_supersede(
        old=old, new=new, by=AuditContext(actor=editor, reason="fewer moving parts")
    )
    assert old.canonical_status == "superseded"
    assert Edge.objects.filter(
        from_document=new, to_document=old, to_slug="queue-redis", edge_type="supersedes"
    ).exists()
    assert Edge.objects.filter(
        from_document=old, to_document=new, to_slug="queue-postgres", edge_type="invalidated_by"
    ).exists()
    assert ("canonical_status", "accepted", "superseded", "service") in history(old)
    assert ("superseded_by", "", "queue-postgres", "service") in history(old)
    assert ("edge", "", "supersedes -> queue-redis", "service") in history(new)

    with pytest.raises(InvalidSuccessor, match="already superseded by queue-postgres"):
        services.record_supersede(old=old, new=new, by=AuditContext(actor=editor, reason=WHY))
    with pytest.raises(InvalidSuccessor, match="cycle|superseded"):
        services.record_supersede(old=new, new=old, by=AuditContext(actor=editor, reason=WHY))


def test_supersede_rejects_self_other_project_and_invisible_successors(alpha, editor):
    old = make_doc("proj-a", "sso-v1")
    with pytest.raises(InvalidSuccessor, match="itself"):
        services.record_supersede(old=old, new=old, by=AuditContext(actor=editor, reason=WHY))
    elsewhere = make_doc("proj-b", "sso-v2")
    with pytest.raises(InvalidSuccessor, match="same project"):
        services.record_supersede(old=old, new=elsewhere, by=AuditContext(actor=editor, reason=WHY))
    hidden = make_doc("proj-c", "sso-v3")
    with pytest.raises(InvalidSuccessor, match="not visible"):
        services.record_supersede(old=old, new=hidden, by=AuditContext(actor=editor, reason=WHY))
    old.refresh_from_db()
    assert old.canonical_status == "accepted"
    assert not Edge.objects.filter(from_document=old).exists()


def test_restore_returns_to_the_previous_status_and_drops_supersede_edges(alpha, editor):
    old = make_doc("proj-a", "cache-v1", status="review")
    new = make_doc("proj-a", "cache-v2")
    services.record_supersede(old=old, new=new, by=AuditContext(actor=editor, reason=WHY))
    services.record_restore(document=old, by=AuditContext(actor=editor, reason="v2 rolled back"))
    assert old.canonical_status == "review"
    assert (
        not Edge.objects.filter(edge_type__in=["supersedes", "invalidated_by"])
        .filter(from_document__in=[old, new])
        .exists()
    )
    with pytest.raises(InvalidTransition, match="Only deprecated, superseded or archived"):
        services.record_restore(document=old, by=AuditContext(actor=editor, reason=WHY))


def test_priority_bounds_and_audit(alpha, editor):
    doc = make_doc("proj-a", "prio")
    services.record_set_priority(
        document=doc, priority=90, by=AuditContext(actor=editor, reason=WHY)
    )
    assert Document.objects.get(pk=doc.pk).retrieval_priority == 90
    with pytest.raises(InvalidValue, match="between 0 and 100"):
        services.record_set_priority(
            document=doc, priority=101, by=AuditContext(actor=editor, reason=WHY)
        )
    services.record_set_priority(
        document=doc, priority=90, by=AuditContext(actor=editor, reason=WHY)
    )  # no-op, no row
    assert history(doc) == [("retrieval_priority", "50", "90", "service")]


def test_tags_are_cleaned_and_audited(alpha, editor):
    doc = make_doc("proj-a", "tagged")
    services.record_set_tags(
        document=doc, tags=[" db ", "ops", "db", ""], by=AuditContext(actor=editor, reason=WHY)
    )
    assert Document.objects.get(pk=doc.pk).tags == ["db", "ops"]
    assert history(doc) == [("tags", "", "db, ops", "service")]


def test_promote_auto_record_recomputes_the_tier(alpha, editor):
    doc = make_doc("proj-a", "auto-summary", generation_source="auto")
    assert doc.evidence_tier == "auto"
    services.record_promote(document=doc, by=AuditContext(actor=editor, reason=WHY))
    doc.refresh_from_db()
    assert (doc.generation_source, doc.evidence_tier) == ("human", "canonical")
    with pytest.raises(InvalidValue, match="Only auto-generated"):
        services.record_promote(document=doc, by=AuditContext(actor=editor, reason=WHY))


def test_reader_and_outsider_cannot_curate(alpha, editor):
    doc_b = make_doc("proj-b", "b-decision")
    with pytest.raises(NotEditable):
        services.record_deprecate(document=doc_b, by=AuditContext(actor=editor, reason=WHY))
    assert Document.objects.get(pk=doc_b.pk).canonical_status == "accepted"


def test_cli_actor_is_named_without_a_user(alpha):
    doc = make_doc("proj-a", "cli-doc")
    services.record_archive(
        document=doc, by=AuditContext(actor=None, source="cli", actor_name="ops-bot", reason=WHY)
    )
    change = RecordChange.objects.get(document=doc)
    assert (change.actor, change.actor_name, change.source) == (None, "ops-bot", "cli")


def test_audit_trail_is_append_only(alpha, editor):
    doc = make_doc("proj-a", "audited")
    services.record_deprecate(document=doc, by=AuditContext(actor=editor, reason=WHY))
    change = RecordChange.objects.get(document=doc)
    change.reason = "rewritten"
    with pytest.raises(AuditTrailError):
        change.save()
    with pytest.raises(AuditTrailError):
        change.delete()
    with pytest.raises(AuditTrailError):
        RecordChange.objects.filter(document=doc).update(reason="x")
    with pytest.raises(AuditTrailError):
        RecordChange.objects.filter(document=doc).delete()
    assert RecordChange.objects.get(pk=change.pk).reason == WHY


def test_edges_can_be_added_and_removed_with_audit(alpha, editor):
    doc = make_doc("proj-a", "api-gateway")
    other = make_doc("proj-a", "rate-limits", canonical_type="standard")
    edge = services.record_edge_add(
        document=doc,
        target=other,
        edge_type="depends_on",
        by=AuditContext(actor=editor, reason=WHY),
    )
    assert (edge.to_document, edge.provenance) == (other, "curation")
    with pytest.raises(InvalidValue, match="already"):
        services.record_edge_add(
            document=doc,
            target=other,
            edge_type="depends_on",
            by=AuditContext(actor=editor, reason=WHY),
        )
    with pytest.raises(InvalidValue, match="supersede"):
        services.record_edge_add(
            document=doc,
            target=other,
            edge_type="supersedes",
            by=AuditContext(actor=editor, reason=WHY),
        )
    services.record_edge_remove(edge=edge, by=AuditContext(actor=editor, reason=WHY))
    assert not Edge.objects.filter(from_document=doc).exists()
    assert [row[:3] for row in history(doc)] == [
        ("edge", "", "depends_on -> rate-limits"),
        ("edge", "depends_on -> rate-limits", ""),
    ]


def test_status_changes_and_supersedes_need_a_reason_and_change_nothing_without(alpha, editor):
    doc = make_doc("proj-a", "why-not")
    successor = make_doc("proj-a", "why-not-v2")
    for attempt in (
        lambda by: services.record_deprecate(document=doc, by=by),
        lambda by: services.record_set_status(document=doc, status="archived", by=by),
        lambda by: services.record_supersede(old=doc, new=successor, by=by),
        lambda by: services.record_apply_changes(
            document=doc, changes={"canonical_status": "review"}, by=by
        ),
    ):
        with pytest.raises(InvalidValue, match="Give a reason") as err:
            attempt(AuditContext(actor=editor, reason="  "))
        assert err.value.field == "reason"
    doc.refresh_from_db()
    assert doc.canonical_status == "accepted"
    assert not RecordChange.objects.filter(document=doc).exists()
    assert not Edge.objects.filter(from_document__in=[doc, successor]).exists()
    # the priority is not a status: no reason needed
    services.record_set_priority(document=doc, priority=70, by=AuditContext(actor=editor))
    assert Document.objects.get(pk=doc.pk).retrieval_priority == 70
