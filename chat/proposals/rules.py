"""Which changes a thumbs-down proposes (pure): its reasons, the document the answer led with
and the one the reader suggested become proposed changes for the editors.

The reasons are about the source the answer states its value from: its first citation (the
lead). Later citations are often the answer naming a disagreement, i.e. the current source.

- outdated: the lead, a curated record, is superseded by the suggested document when there is
  one, else deprecated (marked stale) when the transitions rule allows it; a plain document
  (no canonical type: it has no status to change) is ranked down instead.
- wrong source: the lead is ranked down; the suggested document, if any, up.
- should have cited: the suggested document is ranked up.
- missing: a content gap is opened for the question in each project it searched.
- unclear: nothing to change in the knowledge base (the editors read it in the queue).
"""

from __future__ import annotations

from dataclasses import dataclass

from canonical.transitions import SUCCESSOR_STATUSES, allows
from chat.models import FeedbackReason, ProposalKind
from kb.models import CanonicalStatus


@dataclass(frozen=True, kw_only=True)
class Doc:
    """What the rules read of a document."""

    id: int
    project_id: int
    canonical_type: str | None
    canonical_status: str | None


@dataclass(frozen=True, kw_only=True)
class Change:
    """One proposed change: its kind, the project whose editors decide it, its document and
    (to supersede) the successor."""

    kind: str
    project_id: int
    document_id: int | None = None
    successor_id: int | None = None


def _may_become(doc: Doc, status: str) -> bool:
    return allows(
        canonical_type=doc.canonical_type, from_status=doc.canonical_status, to_status=status
    )


def _outdated(doc: Doc, suggested: Doc | None) -> Change:
    successor_ok = (
        suggested is not None
        and suggested.id != doc.id
        and suggested.project_id == doc.project_id
        and (not suggested.canonical_status or suggested.canonical_status in SUCCESSOR_STATUSES)
    )
    if suggested is not None and successor_ok and _may_become(doc, CanonicalStatus.SUPERSEDED):
        return Change(
            kind=ProposalKind.SUPERSEDE,
            project_id=doc.project_id,
            document_id=doc.id,
            successor_id=suggested.id,
        )
    if _may_become(doc, CanonicalStatus.DEPRECATED):
        return Change(kind=ProposalKind.DEPRECATE, project_id=doc.project_id, document_id=doc.id)
    return Change(kind=ProposalKind.LOWER_PRIORITY, project_id=doc.project_id, document_id=doc.id)


def proposed_changes(
    *,
    reasons: list[str],
    lead: Doc | None,
    suggested: Doc | None,
    project_ids: list[int],
) -> list[Change]:
    """The changes a thumbs-down with these reasons proposes, each once, in a stable order.
    `lead` is the document of the answer's first citation (None for a refusal);
    `project_ids` are the projects the answer searched (where a content gap opens)."""
    changes: list[Change] = []
    if lead is not None and suggested is not None and lead.id == suggested.id:
        lead = None  # the reader says the lead was the right one after all
    if lead is not None and FeedbackReason.OUTDATED in reasons:
        changes.append(_outdated(lead, suggested))
    if lead is not None and FeedbackReason.WRONG_SOURCE in reasons:
        changes.append(
            Change(
                kind=ProposalKind.LOWER_PRIORITY, project_id=lead.project_id, document_id=lead.id
            )
        )
    ranked_up = {FeedbackReason.WRONG_SOURCE, FeedbackReason.SHOULD_HAVE_CITED}
    if suggested is not None and ranked_up & set(reasons):
        changes.append(
            Change(
                kind=ProposalKind.RAISE_PRIORITY,
                project_id=suggested.project_id,
                document_id=suggested.id,
            )
        )
    if FeedbackReason.MISSING in reasons:
        changes.extend(
            Change(kind=ProposalKind.CONTENT_GAP, project_id=pk) for pk in sorted(project_ids)
        )
    unique: list[Change] = []
    touched: set[int] = set()
    for change in changes:
        # one change per document: the first reason's (stale before ranked down)
        if change.document_id is not None:
            if change.document_id in touched:
                continue
            touched.add(change.document_id)
        if change not in unique:
            unique.append(change)
    return unique
