"""Reads on the knowledge base; every one goes through Document.objects.visible_to(user)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

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
from django.db.models.expressions import RawSQL
from django.db.models.functions import Coalesce, Lower
from django.http import Http404

from kb import duplicates
from kb.filters import SearchFilters
from kb.models import (
    ChangeSource,
    Chunk,
    Document,
    DocumentVersion,
    Edge,
    EdgeType,
    IngestJob,
    SourceType,
)
from kb.versions import FIELD_LABELS, VersionDiff, changed_fields, diff_pair, version_diff
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


EDITORS_ONLY = "Only editors and admins of this project may change its documents."
VERSIONS_EDITORS_ONLY = (
    "Only editors and admins of this project may see its versions and restore them."
)


def document_get_editable(
    user: AnyUser, document_id: int, *, denied: str = EDITORS_ONLY
) -> Document:
    """The document for a write: Http404 when not visible, PermissionDenied (`denied`) for
    readers."""
    document = document_get_visible(user, document_id)
    if not user_can_edit(user=user, project=document.project):
        raise PermissionDenied(denied)
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


def document_openings(*, document_ids: Iterable[int], chunks: int) -> dict[int, str]:
    """{document: the text of its first `chunks` chunks}, for reading what a document states
    up front (the caller has checked the documents are visible)."""
    openings: dict[int, list[str]] = {}
    rows = (
        Chunk.objects.filter(document_id__in=list(document_ids), chunk_order__lt=chunks)
        .order_by("document_id", "chunk_order")
        .values_list("document_id", "text")
    )
    for document_id, text in rows:
        openings.setdefault(document_id, []).append(text)
    return {document_id: "\n".join(texts) for document_id, texts in openings.items()}


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


# --- versions (editors of the document's project; readers get PermissionDenied) -------------


@dataclass(frozen=True, kw_only=True)
class VersionSummary:
    """One row of a document's history of versions."""

    number: int
    created_at: datetime
    actor_name: str
    source: str  # its label ("Admin console", "API", ...)
    reason: str
    restored_from: int | None
    changed: tuple[str, ...]  # what changed since the version before ("Text", "Status", ...)
    is_current: bool


def document_version_list(*, user: AnyUser, document_id: int) -> list[VersionSummary]:
    """The versions of a document, newest first, each with what it changed.

    Http404 when the document is not visible, PermissionDenied for its readers."""
    document = document_get_editable(user, document_id, denied=VERSIONS_EDITORS_ONLY)
    versions = list(document.versions.order_by("number"))
    labels = dict(ChangeSource.choices)
    rows: list[VersionSummary] = []
    previous: DocumentVersion | None = None
    for version in versions:
        if previous is None:
            changed: tuple[str, ...] = ("First version",)
        else:
            text = ("Text",) if version.text_id != previous.text_id else ()
            fields = tuple(change.label for change in changed_fields(previous, version))
            changed = text + tuple(
                label for label in fields if label != FIELD_LABELS["content_hash"]
            )
        rows.append(
            VersionSummary(
                number=version.number,
                created_at=version.created_at,
                actor_name=version.actor_name,
                source=labels.get(version.source, version.source),
                reason=version.reason,
                restored_from=version.restored_from,
                changed=changed or ("Nothing shown (re-indexed)",),
                is_current=version.number == document.current_version,
            )
        )
        previous = version
    return rows[::-1]


def document_version_get(*, user: AnyUser, document_id: int, number: int) -> DocumentVersion:
    """Version `number` of a document with its text (rules of document_version_list; a
    number the document does not have, or no longer keeps, is Http404)."""
    document = document_get_editable(user, document_id, denied=VERSIONS_EDITORS_ONLY)
    version = document.versions.select_related("text").filter(number=number).first()
    if version is None:
        raise Http404
    version.document = document  # the visible row (with its chunk count), not a re-read
    return version


def document_version_diff(*, user: AnyUser, document_id: int, a: int, b: int) -> VersionDiff:
    """The changes from version `a` to version `b` of a document (rules as above)."""
    older = document_version_get(user=user, document_id=document_id, number=a)
    newer = document_version_get(user=user, document_id=document_id, number=b)
    return version_diff(older, newer)


@dataclass(frozen=True, kw_only=True)
class VersionsCompare:
    """What a versions page shows: the history, the diff of `a` to `b` (kb.versions.diff_pair
    picks them) or the error for a version the document does not have."""

    versions: list[VersionSummary]
    numbers: list[int]
    diff: VersionDiff | None
    error: str


def document_versions_compare(
    *, user: AnyUser, document: Document, a: str | None, b: str | None
) -> VersionsCompare:
    """The versions page of `document` (the console's and the reader-facing one alike)."""
    versions = document_version_list(user=user, document_id=document.pk)
    numbers = [row.number for row in versions]
    pair = diff_pair(numbers=numbers, current=document.current_version, a=a, b=b)
    diff = None
    if isinstance(pair, tuple):
        diff = document_version_diff(user=user, document_id=document.pk, a=pair[0], b=pair[1])
    return VersionsCompare(
        versions=versions, numbers=numbers, diff=diff, error=pair if isinstance(pair, str) else ""
    )


def chunk_versions(pairs: Iterable[tuple[int, int]]) -> dict[tuple[int, int], int]:
    """{(document id, chunk id): the newest version of the document whose text has that
    chunk} for the given pairs: the version a citation of the chunk reads."""
    wanted = set(pairs)
    if not wanted:
        return {}
    rows = DocumentVersion.objects.filter(
        document_id__in={document_id for document_id, _ in wanted},
        chunk_ids__overlap=sorted({chunk_id for _, chunk_id in wanted}),
    ).values_list("document_id", "number", "chunk_ids")
    found: dict[tuple[int, int], int] = {}
    for document_id, number, chunk_ids in rows:
        for chunk_id in chunk_ids:
            key = (document_id, chunk_id)
            if key in wanted and number > found.get(key, 0):
                found[key] = number
    return found


def document_version_of(*, document: Document, number: int) -> DocumentVersion | None:
    """Version `number` of a document the caller has already found visible (with its text),
    or None when it has no such version (or no longer keeps it). The caller decides who may
    read it (chat: editors, and the askers whose answers cite it)."""
    return document.versions.select_related("text").filter(number=number).first()


# --- near-duplicates (kb.duplicates) ----------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class DuplicateMember:
    document: Document
    similarity: float  # to the group's stand-in (1.0 for the stand-in itself)
    stands_in: bool  # the one an answer cites: a curated record, else the newest


@dataclass(frozen=True, kw_only=True)
class DuplicateGroup:
    members: list[DuplicateMember]  # the stand-in first, then by similarity


def _near_pairs(rows: list[tuple[int, int, list[int]]]) -> list[tuple[int, int]]:
    """Pairs of near-duplicates among (id, project id, bands) rows: those sharing an LSH band
    in the same project, kept when their signatures reach the threshold."""
    buckets: dict[tuple[int, int], list[int]] = {}
    for document_id, project_id, bands in rows:
        for band in bands:
            buckets.setdefault((project_id, band), []).append(document_id)
    candidates = {
        (first, second)
        for members in buckets.values()
        if len(members) > 1
        for index, first in enumerate(members)
        for second in members[index + 1 :]
    }
    if not candidates:
        return []
    involved = {document_id for pair in candidates for document_id in pair}
    signatures = dict(Document.objects.filter(pk__in=involved).values_list("pk", "minhash"))
    limit = duplicates.threshold()
    by_first: dict[int, list[int]] = {}
    for first, second in candidates:
        by_first.setdefault(first, []).append(second)
    near: list[tuple[int, int]] = []
    for first, seconds in by_first.items():
        shares = duplicates.similarities(signatures[first], [signatures[s] for s in seconds])
        near.extend(
            (first, second) for second, share in zip(seconds, shares, strict=True) if share >= limit
        )
    return sorted(near)


def _candidate(document: Document) -> duplicates.Candidate:
    return duplicates.Candidate(
        document_id=document.pk,
        curated=document.canonical_type is not None,
        updated_at=document.updated_at,
    )


def duplicate_groups(*, user: AnyUser, project_key: str) -> list[DuplicateGroup]:
    """The project's groups of near-duplicate documents the user sees, stand-in first."""
    visible = Document.objects.visible_to(user, project_keys=(project_key,))
    rows = list(visible.exclude(minhash_bands=[]).values_list("pk", "project_id", "minhash_bands"))
    pairs = _near_pairs(rows)
    if not pairs:
        return []
    members = {
        document.pk: document
        for document in visible.filter(pk__in={pk for pair in pairs for pk in pair})
    }
    groups = []
    for group in duplicates.groups(pairs):
        keep = duplicates.preferred(_candidate(members[pk]) for pk in group)
        stand_in = members[keep]
        listed = [
            DuplicateMember(
                document=members[pk],
                similarity=duplicates.similarity(stand_in.minhash, members[pk].minhash),
                stands_in=pk == keep,
            )
            for pk in group
        ]
        listed.sort(key=lambda m: (not m.stands_in, -m.similarity, m.document.title))
        groups.append(DuplicateGroup(members=listed))
    return groups


def duplicate_stand_ins(*, user: AnyUser, document_ids: Iterable[int]) -> dict[int, int]:
    """{document id: the document that stands for its near-duplicate group} among these
    documents (the user's visible ones); documents without a near-duplicate among them are
    left out."""
    documents = list(
        Document.objects.visible_to(user)
        .filter(pk__in=set(document_ids))
        .exclude(minhash_bands=[])
        .only("pk", "project_id", "minhash_bands", "canonical_type", "updated_at")
    )
    pairs = _near_pairs([(d.pk, d.project_id, d.minhash_bands) for d in documents])
    return duplicates.stand_ins([_candidate(d) for d in documents], pairs)


def document_near_duplicates(*, document: Document) -> list[tuple[Document, float]]:
    """The other live documents of the document's project that are near-duplicates of it,
    most similar first (for the ingest's warning; the caller wrote the document)."""
    if not document.minhash_bands:
        return []
    limit = duplicates.threshold()
    if len(document.minhash) != duplicates.NUM_PERM:
        return []
    # duplicates.similarity, computed where the signatures are (a project of look-alike
    # documents makes every one a candidate: their signatures need not travel)
    share = RawSQL(
        "(SELECT count(*) FROM unnest(kb_document.minhash, %s::bigint[]) AS pair(mine, theirs)"
        " WHERE mine = theirs)::float / %s",
        (list(document.minhash), duplicates.NUM_PERM),
    )
    near = dict(
        Document.objects.alive()
        .filter(project_id=document.project_id, minhash_bands__overlap=document.minhash_bands)
        .exclude(pk=document.pk)
        .annotate(share=share)
        .filter(share__gte=limit)
        .values_list("pk", "share")
    )
    others = Document.objects.in_bulk(list(near))
    return sorted(
        ((others[pk], share) for pk, share in near.items() if pk in others),
        key=lambda item: (-item[1], item[0].pk),
    )
