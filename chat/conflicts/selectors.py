"""Reads of conflicts: which ones an editor sees (the projects they edit), and what the
transitions rule lets them do about one."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Q, QuerySet

from canonical.transitions import allows
from chat.models import Conflict, ConflictState
from kb.models import CanonicalStatus, Document
from portal.access.models import AnyUser, Project


def conflicts_for(*, user: AnyUser) -> QuerySet[Conflict]:
    """Conflicts of the projects the user edits (Project.objects.editable_by)."""
    rows = Conflict.objects.select_related("project", "record", "other", "resolved_by")
    return rows.filter(project__in=Project.objects.editable_by(user))


def open_conflicts_for_document(*, user: AnyUser, document: Document) -> QuerySet[Conflict]:
    """The open conflicts an editor sees that `document` is a side of (record or other)."""
    return (
        conflicts_for(user=user)
        .filter(state=ConflictState.OPEN)
        .filter(Q(record=document) | Q(other=document))
        .order_by("created_at", "pk")
    )


def open_conflicts_count(*, user: AnyUser) -> int:
    return conflicts_for(user=user).filter(state=ConflictState.OPEN).count()


@dataclass(frozen=True, kw_only=True)
class Resolutions:
    """What an editor may do about a conflict: the other document's status changes the
    transitions rule allows (a plain document has none), and editing the record."""

    deprecate: bool
    archive: bool


def conflict_resolutions(*, conflict: Conflict) -> Resolutions:
    other: Document = conflict.other

    def may_become(status: str) -> bool:
        return allows(
            canonical_type=other.canonical_type,
            from_status=other.canonical_status,
            to_status=status,
        )

    return Resolutions(
        deprecate=may_become(CanonicalStatus.DEPRECATED),
        archive=may_become(CanonicalStatus.ARCHIVED),
    )
