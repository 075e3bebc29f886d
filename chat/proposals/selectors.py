"""Reads of proposals: which ones an editor decides (the projects they edit)."""

from __future__ import annotations

from django.db.models import Q, QuerySet

from chat.models import Proposal, ProposalState
from kb.models import Document
from portal.access.models import AnyUser, Project


def proposals_for(*, user: AnyUser) -> QuerySet[Proposal]:
    """Proposals of the projects the user edits (Project.objects.editable_by)."""
    rows = Proposal.objects.select_related(
        "project", "document", "successor", "suggested", "decided_by"
    )
    return rows.filter(project__in=Project.objects.editable_by(user))


def open_proposals_for_document(*, user: AnyUser, document: Document) -> QuerySet[Proposal]:
    """The open proposals an editor sees that would change `document` (or name it successor)."""
    return (
        proposals_for(user=user)
        .filter(state=ProposalState.OPEN)
        .filter(Q(document=document) | Q(successor=document))
        .order_by("created_at", "pk")
    )


WITHHELD = "(withheld: the answer cites documents you cannot read)"


def proposal_answer_for(*, user: AnyUser, proposal: Proposal) -> str:
    """The answer of a proposal's evidence as `user` may read it: withheld when it cites a
    document they cannot read (a question across projects cites other projects' documents)."""
    ids = set(proposal.cited_document_ids or [])
    visible = Document.objects.visible_to(user).filter(pk__in=ids).count()
    return proposal.answer if visible == len(ids) else WITHHELD
