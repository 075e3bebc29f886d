"""Reads on the knowledge base; every one goes through Document.objects.visible_to(user)."""

from __future__ import annotations

from collections.abc import Iterable

from django.core.exceptions import PermissionDenied
from django.db.models import (
    Case,
    CharField,
    Count,
    F,
    OrderBy,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.db.models.functions import Coalesce, Lower
from django.http import Http404

from kb.filters import SearchFilters
from kb.models import Document, Edge, EdgeType, IngestJob, SourceType
from portal.access.models import AnyUser
from portal.access.selectors import user_can_edit


def _with_counts(queryset: QuerySet[Document]) -> QuerySet[Document]:
    return queryset.select_related("project").annotate(chunk_count=Count("chunks"))


def document_list(*, user: AnyUser, filters: SearchFilters | None = None) -> QuerySet[Document]:
    """Visible documents, filtered, with `chunk_count`, by project then slug."""
    documents = Document.objects.visible_filtered(user, filters)
    return _with_counts(documents).order_by("project__key", "slug", "id")


# The documents table's sorts: column -> what it orders by (annotations of
# document_list_sorted). "-column" is the reverse; ties go newest first.
DOCUMENT_SORTS: dict[str, F | Lower] = {
    "title": Lower("title"),
    "type": F("source_type_label"),
    "status": F("status_label"),
    "chunks": F("chunk_count"),
    "size": F("upload_size"),
    "updated": F("updated_at"),
    "uploaded_by": Lower("uploaded_by_name"),
}
DEFAULT_DOCUMENT_SORT = "-updated"
# what the table says for a document without a canonical status (sorted by that word too)
UNCURATED_STATUS_LABEL = "indexed"


def document_sort(value: str | None) -> str:
    """`value` when it is a sort the documents table offers ("title", "-title", ...), the
    default (newest first) for anything else."""
    column = (value or "").removeprefix("-")
    return value if value and column in DOCUMENT_SORTS else DEFAULT_DOCUMENT_SORT


def document_list_sorted(*, user: AnyUser, project_key: str, sort: str) -> QuerySet[Document]:
    """A project's visible documents for the documents table, sorted by `sort`
    (document_sort), with `chunk_count`, their last upload's `upload_size`,
    `uploaded_by_name` and `has_upload`, and the type and status as the table shows them."""
    sort = document_sort(sort)
    column = DOCUMENT_SORTS[sort.removeprefix("-")]
    last_job = IngestJob.objects.filter(document=OuterRef("pk")).order_by("-created_at", "-id")
    documents = document_list(user=user, filters=SearchFilters(project_keys=(project_key,)))
    ordering: OrderBy = (
        column.desc(nulls_last=True) if sort.startswith("-") else column.asc(nulls_last=True)
    )
    return documents.annotate(
        upload_size=Subquery(last_job.values("size")[:1]),
        uploaded_by_name=Subquery(last_job.values("uploaded_by__username")[:1]),
        has_upload=Subquery(last_job.filter(state="done").values("pk")[:1]),
        source_type_label=Case(
            *[When(source_type=value, then=Value(label)) for value, label in SourceType.choices],
            default=F("source_type"),
            output_field=CharField(),
        ),
        status_label=Coalesce("canonical_status", Value(UNCURATED_STATUS_LABEL)),
    ).order_by(ordering, "-updated_at", "-id")


def document_get_visible(user: AnyUser, document_id: int) -> Document:
    """The document if the user may read it (with `chunk_count`); Http404 otherwise."""
    document = _with_counts(Document.objects.visible_to(user)).filter(pk=document_id).first()
    if document is None:
        raise Http404
    return document


def document_get_editable(user: AnyUser, document_id: int) -> Document:
    """The document for a write: Http404 when not visible, PermissionDenied for readers."""
    document = document_get_visible(user, document_id)
    if not user_can_edit(user=user, project=document.project):
        raise PermissionDenied("Only editors and admins of this project may change its documents.")
    return document


def document_counts_by_project(*, user: AnyUser) -> dict[str, int]:
    """How many documents the user can see in each project, by project key."""
    rows = (
        Document.objects.visible_to(user)
        .values("project__key")
        .annotate(n=Count("id"))
        .values_list("project__key", "n")
    )
    return {key: n for key, n in rows}


def document_supersede_chain(
    *, user: AnyUser, document: Document
) -> tuple[list[Document], list[Document]]:
    """(older, newer): the visible documents `document` supersedes and those superseding it.

    Either side may have recorded the link (`supersedes` on the newer, `superseded_by`,
    stored as `invalidated_by`, on the older), so both edge directions count.
    """
    visible = Document.objects.visible_to(user)
    older = visible.filter(
        edges_in__from_document=document, edges_in__edge_type=EdgeType.SUPERSEDES
    ) | visible.filter(
        edges_out__to_document=document, edges_out__edge_type=EdgeType.INVALIDATED_BY
    )
    newer = visible.filter(
        edges_out__to_document=document, edges_out__edge_type=EdgeType.SUPERSEDES
    ) | visible.filter(
        edges_in__from_document=document, edges_in__edge_type=EdgeType.INVALIDATED_BY
    )
    return list(older.distinct().order_by("slug")), list(newer.distinct().order_by("slug"))


def supersede_pairs(
    *, user: AnyUser, document_ids: Iterable[int], hops: int = 3
) -> list[tuple[Document, Document]]:
    """(older, newer) pairs of visible documents linked by a supersede edge, reached from
    `document_ids` in up to `hops` steps in either direction (a chain of records).

    Either side may have recorded the link (`supersedes` on the newer, `superseded_by`,
    stored as `invalidated_by`, on the older), so both edge types count.
    """
    visible = Document.objects.visible_to(user)
    frontier = set(document_ids)
    seen_docs = set(frontier)
    pairs: dict[tuple[int, int], None] = {}
    for _ in range(max(0, hops)):
        if not frontier:
            break
        edges = Edge.objects.filter(
            Q(from_document_id__in=frontier) | Q(to_document_id__in=frontier),
            edge_type__in=(EdgeType.SUPERSEDES, EdgeType.INVALIDATED_BY),
            to_document__isnull=False,
            from_document__in=visible,
            to_document__in=visible,
        ).values_list("from_document_id", "to_document_id", "edge_type")
        found: set[int] = set()
        for source, target, edge_type in edges:
            assert target is not None
            older, newer = (
                (target, source) if edge_type == EdgeType.SUPERSEDES else (source, target)
            )
            pairs.setdefault((older, newer), None)
            found.update((older, newer))
        frontier = found - seen_docs
        seen_docs |= found
    documents = visible.in_bulk({i for pair in pairs for i in pair})
    return [
        (documents[older], documents[newer])
        for older, newer in pairs
        if older in documents and newer in documents
    ]


def documents_by_slug(*, user: AnyUser, slugs: list[str]) -> dict[str, tuple[int, str]]:
    """{slug: (id, title)} of the visible documents with these slugs (to render
    [[wikilinks]]); when two projects share a slug, the most recently updated one."""
    if not slugs:
        return {}
    rows = (
        Document.objects.visible_to(user)
        .filter(slug__in=slugs)
        .order_by("slug", "-updated_at")
        .values_list("slug", "pk", "title")
    )
    found: dict[str, tuple[int, str]] = {}
    for slug, pk, title in rows:
        found.setdefault(slug, (pk, title))
    return found


def document_titles_by_slug(*, user: AnyUser, slugs: list[str]) -> dict[str, str]:
    """Titles of the visible documents with these slugs (to render [[wikilinks]] as titles)."""
    return {slug: title for slug, (_, title) in documents_by_slug(user=user, slugs=slugs).items()}
