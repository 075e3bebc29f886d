"""Reads for curation. Every selector filters through the one visibility/editing rule."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Max, Q, QuerySet
from django.db.models.functions import Coalesce
from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import SafeString, mark_safe

from canonical.models import RecordChange
from canonical.rendering import (
    GraphEdge,
    GraphNode,
    render_neighbourhood_svg,
)
from canonical.transitions import SUCCESSOR_STATUSES
from kb.models import CanonicalStatus, Document, Edge
from kb.rendering import rebuild_content, render_markdown
from portal.access.models import AnyUser, Membership, Role


def record_history(*, user: AnyUser, document: Document) -> QuerySet[RecordChange]:
    """The audit trail of a record visible to the user, newest first."""
    if not Document.objects.visible_to(user).filter(pk=document.pk).exists():
        return RecordChange.objects.none()
    return RecordChange.objects.filter(document=document).order_by("-at", "-id")


@dataclass(frozen=True, kw_only=True)
class StatusStep:
    """One status change of a record, as readers see it in its timeline."""

    at: Any
    from_status: str
    to_status: str
    reason: str


def status_timeline(*, document_id: int, limit: int = 20) -> list[StatusStep]:
    """The record's status changes, oldest first (at most the last `limit`): when it was
    accepted, superseded, deprecated, restored, and why."""
    rows = list(
        RecordChange.objects.filter(document_id=document_id, field="canonical_status")
        .order_by("-at", "-id")
        .values_list("at", "from_value", "to_value", "reason")[:limit]
    )
    return [
        StatusStep(at=at, from_status=old, to_status=new, reason=reason)
        for at, old, new, reason in reversed(rows)
    ]


# The audited fields of a status change: a record superseded again by another record keeps
# its status and changes only its successor.
STATUS_FIELDS = ("canonical_status", "superseded_by")


def change_reasons(
    *, document_ids: list[int], fields: tuple[str, ...] = STATUS_FIELDS
) -> dict[int, str]:
    """{document id: the reason given for its latest change of these fields} for those with
    one (by default the reason an editor typed when deprecating or superseding the record)."""
    rows = (
        RecordChange.objects.filter(document_id__in=document_ids, field__in=fields)
        .exclude(reason="")
        .order_by("document_id", "-at", "-id")
        .distinct("document_id")
        .values_list("document_id", "reason")
    )
    return dict(rows)


def successor_candidates(*, user: AnyUser, documents: list[Document]) -> QuerySet[Document]:
    """Live records of the same project the user can see, excluding the records themselves."""
    projects = {doc.project_id for doc in documents}
    if len(projects) != 1:
        return Document.objects.none()
    return (
        Document.objects.visible_to(user)
        .filter(project_id=projects.pop())
        .filter(Q(canonical_status__in=SUCCESSOR_STATUSES) | Q(canonical_status__isnull=True))
        .exclude(pk__in=[doc.pk for doc in documents])
        .order_by("title")
    )


def record_content_html(*, document: Document) -> tuple[str, SafeString]:
    """The document text rebuilt from its chunks, and its sanitised HTML rendering."""
    chunks = document.chunks.order_by("chunk_order").values_list("text", "overlap_chars")
    content = rebuild_content(chunks)
    return content, mark_safe(render_markdown(content))  # noqa: S308 - sanitised by kb.rendering


@dataclass(frozen=True, kw_only=True)
class EdgeRow:
    edge: Edge
    direction: str  # "out" | "in"
    other_title: str
    other_slug: str
    other_status: str
    other_url: str
    removable: bool


def _record_url(document: Document, editable_ids: set[int]) -> str:
    if document.pk not in editable_ids:
        return ""
    return reverse("admin:canonical_canonicalrecord_change", args=[document.pk])


def record_edges(*, user: AnyUser, document: Document) -> list[EdgeRow]:
    """Edges out of and into the record; edges to records the user cannot see are left out."""
    visible = Document.objects.visible_to(user)
    edges_out = list(
        Edge.objects.filter(from_document=document)
        .filter(Q(to_document__isnull=True) | Q(to_document__in=visible))
        .select_related("to_document")
        .order_by("edge_type", "to_slug")
    )
    edges_in = list(
        Edge.objects.filter(to_document=document, from_document__in=visible)
        .select_related("from_document")
        .order_by("edge_type", "from_document__slug")
    )
    involved = {document.pk, *(e.to_document_id for e in edges_out if e.to_document_id)}
    involved |= {e.from_document_id for e in edges_in}
    editable_ids = set(
        Document.objects.editable_by(user).filter(pk__in=involved).values_list("pk", flat=True)
    )
    rows: list[EdgeRow] = []
    for edge in edges_out:
        target = edge.to_document
        rows.append(
            EdgeRow(
                edge=edge,
                direction="out",
                other_title=target.title if target else edge.to_slug,
                other_slug=edge.to_slug,
                other_status=(target.canonical_status or "") if target else "missing",
                other_url=_record_url(target, editable_ids) if target else "",
                removable=document.pk in editable_ids,
            )
        )
    for edge in edges_in:
        source = edge.from_document
        rows.append(
            EdgeRow(
                edge=edge,
                direction="in",
                other_title=source.title,
                other_slug=source.slug,
                other_status=source.canonical_status or "",
                other_url=_record_url(source, editable_ids),
                removable=source.pk in editable_ids,
            )
        )
    return rows


def record_neighbourhood_svg(*, document: Document, edges: list[EdgeRow]) -> SafeString:
    """The 1-hop neighbourhood (as already filtered by record_edges) as an SVG graph."""
    centre = GraphNode(
        key=f"doc:{document.pk}", label=document.title, status=document.canonical_status or ""
    )
    neighbours: dict[str, GraphNode] = {}
    graph_edges: list[GraphEdge] = []
    for row in edges:
        other_id = row.edge.to_document_id if row.direction == "out" else row.edge.from_document_id
        key = f"doc:{other_id}" if other_id else f"slug:{row.other_slug}"
        neighbours.setdefault(
            key,
            GraphNode(key=key, label=row.other_title, status=row.other_status, url=row.other_url),
        )
        source, target = (centre.key, key) if row.direction == "out" else (key, centre.key)
        graph_edges.append(GraphEdge(source=source, target=target, edge_type=row.edge.edge_type))
    return render_neighbourhood_svg(
        centre=centre, neighbours=list(neighbours.values()), edges=graph_edges
    )


@dataclass(frozen=True, kw_only=True)
class RecordReaders:
    """Who can read a record, grouped the way an auditor asks: by project role, then superusers."""

    project_key: str
    by_role: list[tuple[str, list[str]]]
    superusers: list[str]


def record_readers(*, document: Document) -> RecordReaders:
    """The people who can read `document`: its project's members by role and the tenant's
    superusers, each confirmed through Document.objects.visible_to (the one rule)."""
    User = get_user_model()

    def can_read(user: Any) -> bool:
        return Document.objects.visible_to(user).filter(pk=document.pk).exists()

    memberships = (
        Membership.objects.filter(project_id=document.project_id, user__is_active=True)
        .select_related("user")
        .order_by("user__username")
    )
    by_role: dict[str, list[str]] = {label: [] for _, label in Role.choices}
    for membership in memberships:
        if not membership.user.is_superuser and can_read(membership.user):
            by_role[Role(membership.role).label].append(membership.user.get_username())
    superusers = [
        user.get_username()
        for user in User.objects.filter(is_active=True, is_superuser=True).order_by("username")
        if can_read(user)
    ]
    return RecordReaders(
        project_key=document.project.key,
        by_role=[(role, names) for role, names in by_role.items()],
        superusers=superusers,
    )


def records_review_due(records: QuerySet[Document], *, months: int) -> QuerySet[Document]:
    """Accepted records whose last curation change (else their creation) is older than
    `months` 30-day months: knowledge that may have gone stale, oldest first."""
    cutoff = timezone.now() - timedelta(days=30 * months)
    return (
        records.filter(canonical_status=CanonicalStatus.ACCEPTED)
        .annotate(last_reviewed=Coalesce(Max("changes__at"), "created_at"))
        .filter(last_reviewed__lt=cutoff)
        .order_by("last_reviewed")
    )
