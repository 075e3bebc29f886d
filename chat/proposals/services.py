"""Proposals: a thumbs-down turned into proposed changes (chat.proposals.rules), and the
editors' one-click decisions. Accepting one goes through the curation services (status,
priority and successor changes are audited as RecordChange rows, as any curation) or
chat.services' content gaps; rejecting one keeps the editor's reason."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from canonical.services import (
    record_deprecate,
    record_set_priority,
    record_supersede,
)
from canonical.transitions import CurationError
from chat.models import Feedback, FeedbackRating, Proposal, ProposalKind, ProposalState
from chat.proposals.rules import Doc, proposed_changes
from chat.selectors import message_question
from chat.services import content_gap_record
from kb.curation import AuditContext
from kb.models import ChangeSource, Document
from portal.access.models import AnyUser, Project

# One accepted proposal moves a document most of the way to an end of the priority range
# (0-100, default 50): the ranking's priority weight makes that a nudge of 0.04 either way,
# enough to decide between two sources that match alike, never against a better match. An
# editor sets an exact value on the record's page.
PRIORITY_RAISED = 90
PRIORITY_LOWERED = 10
REASON_MAX_CHARS = 2000


class ProposalError(ValueError):
    """A decision that cannot be carried out; the message says why."""


def _doc(document: Document) -> Doc:
    return Doc(
        id=document.pk,
        project_id=document.project_id,
        canonical_type=document.canonical_type,
        canonical_status=document.canonical_status,
    )


def proposals_from_feedback(*, feedback: Feedback) -> list[Proposal]:
    """The open proposals of a feedback row as its reasons say now (in the rater's
    transaction): open ones no longer proposed are withdrawn; decided ones stay as decided."""
    changes = []
    if feedback.rating == FeedbackRating.DOWN:
        citations = feedback.message.citations or []
        lead_id = citations[0].get("document_id") if citations else None
        lead = Document.objects.alive().filter(pk=lead_id).first() if lead_id else None
        project_ids = list(
            Project.objects.filter(key__in=feedback.project_keys).values_list("pk", flat=True)
        )
        changes = proposed_changes(
            reasons=list(feedback.reasons or []),
            lead=_doc(lead) if lead else None,
            suggested=_doc(feedback.suggested) if feedback.suggested else None,
            project_ids=project_ids,
        )
    kept: list[Proposal] = []
    question = message_question(feedback.message) if changes else ""
    for change in changes:
        same = Proposal.objects.filter(
            feedback=feedback, kind=change.kind, project_id=change.project_id
        )
        if change.document_id is None:
            row = same.filter(document__isnull=True).first()
        else:
            row = same.filter(document_id=change.document_id).first()
        if row is None or row.state == ProposalState.OPEN:
            row = row or Proposal(
                feedback=feedback,
                kind=change.kind,
                project_id=change.project_id,
                document_id=change.document_id,
            )
            row.successor_id = change.successor_id
            row.question = question
            row.answer = feedback.message.content
            row.cited_document_ids = list(feedback.document_ids)
            row.suggested = feedback.suggested
            row.comment = feedback.comment
            row.save()
        kept.append(row)
    Proposal.objects.filter(feedback=feedback, state=ProposalState.OPEN).exclude(
        pk__in=[row.pk for row in kept]
    ).delete()
    return [row for row in kept if row.state == ProposalState.OPEN]


def _open(proposal: Proposal) -> Proposal:
    locked = Proposal.objects.select_for_update().get(pk=proposal.pk)
    if locked.state != ProposalState.OPEN:
        raise ProposalError(f"This proposal was already {locked.state}.")
    return locked


def _reason(reason: str) -> str:
    reason = " ".join(reason.split())
    if len(reason) > REASON_MAX_CHARS:
        raise ProposalError(f"Keep the reason under {REASON_MAX_CHARS} characters.")
    return reason


def _decide(proposal: Proposal, state: str, *, by: AnyUser, reason: str) -> Proposal:
    proposal.state = state
    proposal.reason = reason
    proposal.decided_by = by if isinstance(by, get_user_model()) and by.pk else None
    proposal.decided_at = timezone.now()
    proposal.save(update_fields=["state", "reason", "decided_by", "decided_at"])
    return proposal


def _carry_out(proposal: Proposal, by: AuditContext) -> None:
    """The change itself, through the service that owns it."""
    kind = proposal.kind
    if kind == ProposalKind.CONTENT_GAP:
        content_gap_record(question=proposal.question, project_keys=[proposal.project.key])
        return
    document = Document.objects.alive().filter(pk=proposal.document_id or 0).first()
    if document is None:
        raise ProposalError("The document is gone.")
    if kind == ProposalKind.RAISE_PRIORITY:
        priority = max(document.retrieval_priority, PRIORITY_RAISED)
        record_set_priority(document=document, priority=priority, by=by)
    elif kind == ProposalKind.LOWER_PRIORITY:
        priority = min(document.retrieval_priority, PRIORITY_LOWERED)
        record_set_priority(document=document, priority=priority, by=by)
    elif kind == ProposalKind.DEPRECATE:
        record_deprecate(document=document, by=by)
    elif kind == ProposalKind.SUPERSEDE:
        successor = Document.objects.alive().filter(pk=proposal.successor_id or 0).first()
        if successor is None:
            raise ProposalError("The successor is gone.")
        record_supersede(old=document, new=successor, by=by)
    else:  # pragma: no cover - the choices are closed
        raise ProposalError(f"Unknown proposal {kind!r}.")


def _why(proposal: Proposal) -> str:
    question = " ".join(proposal.question.split())[:200]
    return (
        f"Accepted a reader's proposal ({proposal.get_kind_display()}) from feedback on: {question}"
    )


@transaction.atomic
def proposal_accept(
    *, proposal: Proposal, by: AnyUser, source: str = ChangeSource.ADMIN
) -> Proposal:
    """Carry out the proposed change as the editor `by` (the curation services check they may,
    and audit it), then close it; its feedback is resolved once nothing of it is open."""
    row = _open(proposal)
    try:
        _carry_out(row, AuditContext(actor=by, source=source, reason=_why(row)))
    except CurationError as exc:
        raise ProposalError(str(exc)) from exc
    _decide(row, ProposalState.ACCEPTED, by=by, reason="")
    _feedback_done(row, by=by)
    return row


@transaction.atomic
def proposal_reject(*, proposal: Proposal, by: AnyUser, reason: str = "") -> Proposal:
    """Close the proposal without a change, with the editor's reason (kept)."""
    row = _open(proposal)
    _decide(row, ProposalState.REJECTED, by=by, reason=_reason(reason))
    _feedback_done(row, by=by)
    return row


def _feedback_done(proposal: Proposal, *, by: AnyUser) -> None:
    from chat.feedback import feedback_resolve

    if proposal.feedback_id is None:
        return
    if Proposal.objects.filter(feedback_id=proposal.feedback_id, state=ProposalState.OPEN).exists():
        return
    decided = Proposal.objects.filter(feedback_id=proposal.feedback_id).order_by("pk")
    note = "; ".join(f"{p.get_kind_display()}: {p.state}" for p in decided)
    feedback_resolve(
        feedback=Feedback.objects.filter(pk=proposal.feedback_id), by=by, note=note[:2000]
    )
