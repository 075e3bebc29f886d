"""Writes on the knowledge base: ingest (single and bulk), metadata updates, soft delete."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import connection, transaction
from django.db.models import Count, Q
from django.utils import timezone

from kb.curation import SYSTEM, AuditContext, audited_values, report_changes
from kb.drift import documents_changed
from kb.duplicates import bands, document_signature
from kb.embeddings import Embedder, EmbeddingError, active_embedder
from kb.embeddings.exceptions import EmbeddingDimensionError
from kb.embeddings.spaces import ActiveSpace, active_space, check_space_dimensions
from kb.ingestion.budget import IngestBudget, IngestRejected
from kb.ingestion.chunk import ChunkDraft, chunk_text
from kb.ingestion.extract import UnsupportedSource
from kb.ingestion.prepare import (
    ChunkParams,
    PreparedDocument,
    SourceTooLarge,
    content_hash,
    prepare_document,
)
from kb.models import Chunk, Document, DocumentVersion, Edge, evidence_tier_for
from kb.selectors import document_near_duplicates
from kb.versions import (
    RESTORED_FIELDS,
    document_version_record,
    version_content,
    versions_ensure,
    versions_record_written,
)
from portal.access.models import Project

logger = logging.getLogger(__name__)

IngestStatus = Literal["created", "updated", "skipped", "failed"]
Content = bytes | str | Callable[[], bytes]
UNSET: Any = object()
LOOKUP_GROUP = 100


@dataclass(frozen=True, kw_only=True)
class IngestOutcome:
    """What happened to one source. `chunks` is the document's chunk count afterwards."""

    document: Document | None
    status: IngestStatus
    chunks: int = 0
    warnings: list[str] = field(default_factory=list)
    error: str | None = None
    source_path: str = ""
    # the source itself is refused (over the ingestion budget, hostile): retrying cannot help
    rejected: bool = False


@dataclass(frozen=True, kw_only=True)
class IngestItem:
    """One source for the bulk path; `content` may be a loader called lazily."""

    source_path: str
    content: Content
    title: str | None = None
    source_type: str | None = None
    # a synced source: the curated fields (type, status, priority) an editor set here stay
    # unless the source's own frontmatter names them
    keep_curated: bool = False
    # added to the document's metadata (a connector's link to the file at its revision)
    metadata: dict[str, Any] | None = None


@dataclass(kw_only=True)
class _Plan:
    project: Project
    prepared: PreparedDocument
    title_override: str | None
    keep_curated: bool = False
    vectors: list[list[float]] | None = None
    # the tenant's active embedding space the vectors are in (None: the caller's embedder)
    space: str | None = None
    # the version this write restores (kb.versions records it on the new version)
    restored_from: int | None = None


def chunk_params() -> ChunkParams:
    """Chunking knobs from settings.KB."""
    kb = settings.KB
    return ChunkParams(
        target_tokens=int(kb["CHUNK_TARGET_TOKENS"]),
        max_tokens=int(kb["CHUNK_MAX_TOKENS"]),
        overlap_tokens=int(kb["CHUNK_OVERLAP_TOKENS"]),
        embed_window=int(kb["EMBEDDING_MAX_TOKENS"]),
    )


def ingest_budget() -> IngestBudget:
    """Per-document ingestion limits from settings.KB."""
    kb = settings.KB
    return IngestBudget(
        max_frontmatter_bytes=int(kb["INGEST_MAX_FRONTMATTER_BYTES"]),
        max_nesting=int(kb["INGEST_MAX_NESTING"]),
        max_chunks=int(kb["INGEST_MAX_CHUNKS"]),
        max_seconds=float(kb["INGEST_MAX_SECONDS"]),
    )


def ingest_summary(outcomes: Iterable[IngestOutcome]) -> dict[str, Any]:
    """The summary shape shared by kb_ingest --json and the documents API."""
    summary: dict[str, Any] = {
        "documents": 0,
        "chunks": 0,
        "created": 0,
        "updated": 0,
        "skipped": 0,
        "failed": [],
        "warnings": [],
    }
    for outcome in outcomes:
        summary["documents"] += 1 if outcome.document is not None else 0
        summary["chunks"] += outcome.chunks
        if outcome.status == "failed":
            summary["failed"].append({"path": outcome.source_path, "error": outcome.error or ""})
        else:
            summary[outcome.status] += 1
        summary["warnings"].extend(f"{outcome.source_path}: {w}" for w in outcome.warnings)
    return summary


# --- planning (reads + pure work, no writes) ------------------------------------------------


def _load(content: Content) -> bytes | str:
    data = content() if callable(content) else content
    limit = int(settings.KB["INGEST_MAX_FILE_BYTES"])
    size = len(data.encode("utf-8", "surrogatepass")) if isinstance(data, str) else len(data)
    if size > limit:
        raise SourceTooLarge(
            f"source is {size} bytes; the limit is {limit} bytes (KB_INGEST_MAX_FILE_BYTES)"
        )
    return data


def _plan(
    *,
    project: Project,
    item: IngestItem,
    params: ChunkParams,
    existing: Document | None = UNSET,
    chunk_counts: dict[int, int] | None = None,
) -> _Plan | IngestOutcome:
    """Load and prepare one source, or the outcome when nothing needs writing."""
    path = item.source_path
    try:
        data = _load(item.content)
    except SourceTooLarge as exc:
        return _rejected(path, exc)
    except OSError as exc:
        return IngestOutcome(document=None, status="failed", error=str(exc), source_path=path)
    digest = content_hash(data)
    if existing is UNSET:
        existing = Document.objects.filter(project=project, source_path=path).first()
    if (
        existing is not None
        and existing.deleted_at is None
        and existing.content_hash == digest
        and (item.title is None or item.title == existing.title)
        and (item.source_type is None or item.source_type == existing.source_type)
    ):
        if chunk_counts is not None:
            count = chunk_counts.get(existing.pk, 0)
        else:
            count = existing.chunks.count()
        return IngestOutcome(document=existing, status="skipped", chunks=count, source_path=path)
    try:
        prepared = prepare_document(
            source_path=path,
            content=data,
            title=item.title,
            source_type=item.source_type,
            params=params,
            budget=ingest_budget(),
        )
    except IngestRejected as exc:
        return _rejected(path, exc)
    except UnsupportedSource as exc:
        return IngestOutcome(
            document=None, status="skipped", warnings=[f"skipped: {exc}"], source_path=path
        )
    if item.metadata:
        prepared = replace(prepared, metadata={**prepared.metadata, **item.metadata})
    return _Plan(
        project=project,
        prepared=prepared,
        title_override=item.title,
        keep_curated=item.keep_curated,
    )


def _rejected(path: str, exc: IngestRejected) -> IngestOutcome:
    return IngestOutcome(
        document=None, status="failed", error=str(exc), source_path=path, rejected=True
    )


# --- embedding ------------------------------------------------------------------------------


def _embed(plans: list[_Plan], embedder: Embedder) -> None:
    """One embedder call for every chunk of `plans`; vectors stored on each plan."""
    texts = [draft.embed_text for plan in plans for draft in plan.prepared.chunks]
    vectors = embedder.embed_documents(texts) if texts else []
    if len(vectors) != len(texts):
        raise EmbeddingError(f"embedder returned {len(vectors)} vectors for {len(texts)} chunks")
    for vector in vectors[:1]:
        check_space_dimensions(active_space(), len(vector))
    cursor = 0
    for plan in plans:
        count = len(plan.prepared.chunks)
        plan.vectors = list(vectors[cursor : cursor + count])
        cursor += count


def _embed_in_active_space(
    plans: list[_Plan], resolved: tuple[ActiveSpace, Embedder] | None = None
) -> None:
    """_embed in the tenant's active embedding space, remembered on each plan (`resolved`
    by the caller on the tenant's thread: a worker thread's connection is in no tenant)."""
    space, embedder = resolved or active_embedder()
    _embed(plans, embedder)
    for plan in plans:
        plan.space = space.key


def _hold_embedding_space(plans: list[_Plan]) -> None:
    """Inside the write transaction: keep a kb_reembed switch out until it commits, and
    embed again what was embedded in a space the tenant has left since."""
    with connection.cursor() as cursor:
        # conflicts only with the switch's lock (never with other writers or readers)
        cursor.execute(f"LOCK TABLE {Chunk._meta.db_table} IN ROW EXCLUSIVE MODE")
    space = active_space(fresh=True)
    stale = [plan for plan in plans if plan.space is not None and plan.space != space.key]
    if stale:
        _embed_in_active_space(stale)
    for plan in plans:
        for vector in (plan.vectors or [])[:1]:
            check_space_dimensions(space, len(vector))


# --- writing --------------------------------------------------------------------------------


def _free_slug(project: Project, slug: str, exclude_pk: int | None) -> str:
    rows = Document.objects.filter(project=project, slug__startswith=slug)
    if exclude_pk is not None:
        rows = rows.exclude(pk=exclude_pk)
    taken = set(rows.values_list("slug", flat=True))
    number = 2
    while f"{slug}-{number}"[:200] in taken:
        number += 1
    return f"{slug[:190]}-{number}"


def _claim_row(
    *, project: Project, prepared: PreparedDocument
) -> tuple[Document, bool, str, list[str]]:
    """(row to write, created?, slug, warnings): by path, else a soft-deleted row with the slug."""
    warnings: list[str] = []
    slug = prepared.slug
    document = (
        Document.objects.select_for_update()
        .filter(project=project, source_path=prepared.source_path)
        .first()
    )
    holder = Document.objects.select_for_update().filter(project=project, slug=slug).first()
    if document is None and holder is not None and holder.deleted_at is not None:
        document = holder  # a moved file whose old path was deleted: revive its record
    elif holder is not None and (document is None or holder.pk != document.pk):
        new_slug = _free_slug(project, slug, document.pk if document else None)
        warnings.append(
            f"slug {slug!r} already belongs to {holder.source_path!r}; stored as {new_slug!r}"
        )
        slug = new_slug
    created = document is None
    if document is None:
        document = Document(project=project)
    return document, created, slug, warnings


def _write(plan: _Plan, origin: AuditContext) -> IngestOutcome:
    """Document + chunks + edges in one transaction."""
    prepared, project = plan.prepared, plan.project
    with transaction.atomic():
        _hold_embedding_space([plan])
        document, created, slug, warnings = _claim_row(project=project, prepared=prepared)
        if not created:
            versions_ensure([document])
        old_slug = None if created else document.slug
        before = None if created else audited_values(document)
        _apply(document, prepared, slug, keep_curated=plan.keep_curated and not created)
        document.save()
        if before is not None:
            report_changes(document, before, origin)

        if not created:
            Chunk.objects.filter(document=document).delete()
        chunks = Chunk.objects.bulk_create(_chunk_rows(document, plan), batch_size=1000)
        if prepared.chunks:
            _write_search_vectors([document.pk])
        _write_edges(document=document, edges=prepared.edges, old_slug=old_slug)
        versions_record_written(
            [(document, chunks, prepared.edges)], origin, restored_from=plan.restored_from
        )
    return IngestOutcome(
        document=document,
        status="created" if created else "updated",
        chunks=len(prepared.chunks),
        warnings=prepared.warnings + warnings + _duplicate_warnings(document),
        source_path=prepared.source_path,
    )


NEAR_DUPLICATES_NAMED = 3  # a warning names this many; the Documents page lists them all


def _duplicate_warnings(document: Document) -> list[str]:
    """The ingest's word on the document's near-duplicates in its project (kb.duplicates)."""
    found = document_near_duplicates(document=document)
    return [
        f"near-duplicate of {other.title!r} ({other.source_path}, similarity {value:.2f}): "
        "an answer cites only one of them (a curated record, else the newest)"
        for other, value in found[:NEAR_DUPLICATES_NAMED]
    ]


# the columns a source determines, copied from its PreparedDocument on every write
PREPARED_FIELDS = [
    "title", "doc_id", "source_path", "source_type", "content_hash", "tags", "owners",
    "summary", "canonical_type", "canonical_status", "retrieval_priority", "generation_source",
    "evidence_tier", "metadata", "minhash", "minhash_bands",
]  # fmt: skip
DOCUMENT_FIELDS = ["slug", *PREPARED_FIELDS, "deleted_at"]


# frontmatter keys -> the curated columns they set (kept on a synced re-ingest without them)
CURATED_BY_FRONTMATTER = {
    "status": ("canonical_type", "canonical_status"),
    "retrieval_priority": ("retrieval_priority",),
}


def _apply(
    document: Document, prepared: PreparedDocument, slug: str, *, keep_curated: bool = False
) -> None:
    """Copy the prepared fields onto the row (revives a soft-deleted one); `keep_curated`
    keeps the curated columns the source's frontmatter does not name."""
    kept: dict[str, Any] = {}
    if keep_curated:
        named = prepared.metadata.get("frontmatter") or {}
        for key, columns in CURATED_BY_FRONTMATTER.items():
            if named.get(key) is None:
                kept.update({column: getattr(document, column) for column in columns})
    document.slug = slug
    for name in PREPARED_FIELDS:
        setattr(document, name, kept.get(name, getattr(prepared, name)))
    if kept:
        document.evidence_tier = evidence_tier_for(
            canonical_type=document.canonical_type,
            canonical_status=document.canonical_status,
            generation_source=document.generation_source,
        )
    document.deleted_at = None


def _chunk_rows(document: Document, plan: _Plan) -> list[Chunk]:
    return [
        Chunk(
            document=document,
            chunk_order=draft.chunk_order,
            heading_path=draft.heading_path,
            text=draft.text,
            overlap_chars=draft.overlap_chars,
            token_count=draft.token_count,
            embedding=vector,
        )
        for draft, vector in zip(plan.prepared.chunks, plan.vectors or [], strict=True)
    ]


def _write_search_vectors(document_ids: list[int]) -> None:
    """tsvector of heading path + text, in the configured text-search language."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {Chunk._meta.db_table} SET search_vector = "
            "to_tsvector(%s::regconfig, coalesce(heading_path, '') || ' ' || text) "
            "WHERE document_id = ANY(%s)",
            [settings.KB["FTS_LANGUAGE"], document_ids],
        )


def _resolve_incoming_edges(*, project_id: int, document_ids: list[int]) -> None:
    """Point dangling edges of the project at the given documents when their slug matches."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {Edge._meta.db_table} AS e SET to_document_id = d.id "
            f"FROM {Document._meta.db_table} AS d, {Document._meta.db_table} AS src "
            "WHERE e.to_document_id IS NULL AND e.to_slug = d.slug AND d.id = ANY(%s) "
            "AND d.project_id = %s AND src.id = e.from_document_id AND src.project_id = %s",
            [document_ids, project_id, project_id],
        )


class _NeedsPerDocumentWrite(Exception):
    """The batch has a slug or path conflict that the per-document path resolves."""


def _write_many(plans: list[_Plan], origin: AuditContext) -> list[IngestOutcome]:
    """Write a batch with set-based statements in one transaction; on any conflict or error,
    fall back to one transaction per document so one bad document never sinks the others."""
    if len(plans) > 1:
        try:
            with transaction.atomic():
                return _write_many_atomic(plans, origin)
        except _NeedsPerDocumentWrite:
            pass
        except Exception:  # noqa: BLE001 - retried below, per document, with the error kept
            logger.warning("batch write failed; retrying document by document", exc_info=True)
    return [_write_guarded(plan, origin) for plan in plans]


def _write_many_atomic(plans: list[_Plan], origin: AuditContext) -> list[IngestOutcome]:
    project = plans[0].project
    _hold_embedding_space(plans)
    paths = [plan.prepared.source_path for plan in plans]
    slugs = [plan.prepared.slug for plan in plans]
    if len(set(paths)) != len(paths) or len(set(slugs)) != len(slugs):
        raise _NeedsPerDocumentWrite
    rows = list(
        Document.objects.select_for_update().filter(
            Q(source_path__in=paths) | Q(slug__in=slugs), project=project
        )
    )
    by_path = {row.source_path: row for row in rows}
    by_slug = {row.slug: row for row in rows}
    if len(by_path) != len([row for row in rows if row.source_path in paths]):
        raise _NeedsPerDocumentWrite
    versions_ensure(row for row in rows if row.source_path in paths)
    now = timezone.now()
    created: list[Document] = []
    updated: list[Document] = []
    renamed: list[Document] = []
    order: list[tuple[_Plan, Document, bool]] = []
    before: dict[int, dict[str, Any]] = {}
    for plan in plans:
        document = by_path.get(plan.prepared.source_path)
        holder = by_slug.get(plan.prepared.slug)
        if holder is not None and (document is None or holder.pk != document.pk):
            raise _NeedsPerDocumentWrite
        is_new = document is None
        if document is None:
            document = Document(project=project)
            created.append(document)
        else:
            if document.slug != plan.prepared.slug:
                renamed.append(document)
            document.updated_at = now
            updated.append(document)
            before[document.pk] = audited_values(document)
        _apply(
            document,
            plan.prepared,
            plan.prepared.slug,
            keep_curated=plan.keep_curated and not is_new,
        )
        order.append((plan, document, is_new))
    Document.objects.bulk_create(created)
    if updated:
        Document.objects.bulk_update(updated, [*DOCUMENT_FIELDS, "updated_at"])
        Chunk.objects.filter(document__in=updated).delete()
        Edge.objects.filter(from_document__in=updated).delete()
    chunks = Chunk.objects.bulk_create(
        [row for plan, document, _ in order for row in _chunk_rows(document, plan)],
        batch_size=1000,
    )
    chunks_of: dict[int, list[Chunk]] = {}
    for chunk in chunks:
        chunks_of.setdefault(chunk.document_id, []).append(chunk)
    ids = [document.pk for _, document, _ in order]
    _write_search_vectors(ids)
    Edge.objects.bulk_create(
        _edge_rows(
            project_id=project.pk,
            edges_of=[(document, plan.prepared.edges) for plan, document, _ in order],
        ),
        batch_size=1000,
    )
    _unlink_renamed(renamed)
    _resolve_incoming_edges(project_id=project.pk, document_ids=ids)
    for document in updated:
        report_changes(document, before[document.pk], origin)
    versions_record_written(
        [
            (document, chunks_of.get(document.pk, []), plan.prepared.edges)
            for plan, document, _ in order
        ],
        origin,
    )
    return [
        IngestOutcome(
            document=document,
            status="created" if is_new else "updated",
            chunks=len(plan.prepared.chunks),
            warnings=list(plan.prepared.warnings) + _duplicate_warnings(document),
            source_path=plan.prepared.source_path,
        )
        for plan, document, is_new in order
    ]


def _edge_rows(
    *, project_id: int, edges_of: list[tuple[Document, list[tuple[str, str]]]]
) -> list[Edge]:
    """Outgoing edge rows of documents, targets resolved by slug within the project."""
    targets = {slug for _, edges in edges_of for _, slug in edges}
    resolved = dict(
        Document.objects.filter(project_id=project_id, slug__in=targets).values_list("slug", "id")
    )
    return [
        Edge(
            from_document=document,
            to_document_id=resolved.get(to_slug),
            to_slug=to_slug,
            edge_type=edge_type,
        )
        for document, edges in edges_of
        for edge_type, to_slug in edges
        if to_slug != document.slug
    ]


def _unlink_renamed(documents: Iterable[Document]) -> None:
    """Edges that named a document by its old slug no longer point at it."""
    for document in documents:
        Edge.objects.filter(to_document=document).exclude(to_slug=document.slug).update(
            to_document=None
        )


def _write_edges(*, document: Document, edges: list[tuple[str, str]], old_slug: str | None) -> None:
    """Replace outgoing edges; resolve both directions by slug within the project."""
    Edge.objects.filter(from_document=document).delete()
    Edge.objects.bulk_create(
        _edge_rows(project_id=document.project_id, edges_of=[(document, edges)])
    )
    if old_slug is not None and old_slug != document.slug:
        _unlink_renamed([document])
    _resolve_incoming_edges(project_id=document.project_id, document_ids=[document.pk])


# --- public entry points --------------------------------------------------------------------


def document_ingest(
    *,
    project: Project,
    source_path: str,
    content: bytes | str,
    title: str | None = None,
    source_type: str | None = None,
    embedder: Embedder | None = None,
    origin: AuditContext = SYSTEM,
    space: ActiveSpace | None = None,
) -> IngestOutcome:
    """Ingest one source: skip when unchanged, else embed then write everything atomically.

    `space`: the tenant's active space `embedder` embeds in (a wrapper around the active
    embedder): a kb_reembed switch before the write then embeds the chunks again.
    """
    item = IngestItem(
        source_path=source_path, content=content, title=title, source_type=source_type
    )
    planned = _plan(project=project, item=item, params=chunk_params())
    if isinstance(planned, IngestOutcome):
        return planned
    try:
        if embedder is None:
            _embed_in_active_space([planned])
        else:
            _embed([planned], embedder)
            planned.space = None if space is None else space.key
        return _write(planned, origin)
    except EmbeddingError as exc:
        return _failed(planned, exc)


def _failed(plan: _Plan, exc: Exception) -> IngestOutcome:
    # a provider's own words (its URL, its answer) are for the operator's log, not the caller;
    # a dimension mismatch is our configuration and says what to fix
    logger.warning("embedding %s failed: %s", plan.prepared.source_path, exc)
    if isinstance(exc, EmbeddingDimensionError):
        error = f"embedding failed: {exc}"
    else:
        error = "embedding failed: embedding provider unavailable (details in the server log)"
    return IngestOutcome(
        document=None,
        status="failed",
        error=error,
        warnings=list(plan.prepared.warnings),
        source_path=plan.prepared.source_path,
    )


def _batches(
    *,
    project: Project,
    items: Iterable[IngestItem],
    params: ChunkParams,
    batch_chunks: int,
    done: Callable[[IngestOutcome], None],
) -> Iterator[list[_Plan]]:
    batch: list[_Plan] = []
    chunk_count = 0
    for group in _grouped(items, LOOKUP_GROUP):
        # one query for the existing rows (and their chunk counts) of a group of sources
        rows = (
            Document.objects.filter(project=project, source_path__in=[i.source_path for i in group])
            .annotate(chunk_count=Count("chunks"))
            .order_by("id")
        )
        existing = {row.source_path: row for row in rows}
        counts = {row.pk: row.chunk_count for row in existing.values()}
        for item in group:
            planned = _plan(
                project=project,
                item=item,
                params=params,
                existing=existing.get(item.source_path),
                chunk_counts=counts,
            )
            if isinstance(planned, IngestOutcome):
                done(planned)
                continue
            batch.append(planned)
            chunk_count += len(planned.prepared.chunks)
            if chunk_count >= batch_chunks:
                yield batch
                batch, chunk_count = [], 0
    if batch:
        yield batch


def _grouped(items: Iterable[IngestItem], size: int) -> Iterator[list[IngestItem]]:
    group: list[IngestItem] = []
    for item in items:
        group.append(item)
        if len(group) >= size:
            yield group
            group = []
    if group:
        yield group


def documents_ingest_many(
    *,
    project: Project,
    items: Iterable[IngestItem],
    embedder: Embedder | None = None,
    on_outcome: Callable[[IngestOutcome], None] | None = None,
    batch_chunks: int | None = None,
    origin: AuditContext = SYSTEM,
) -> list[IngestOutcome]:
    """Bulk ingest: embeds chunks of many documents per call, in a worker thread, while the
    previous batch is written (one transaction per document), so the model never waits on
    the database."""

    def resolve() -> tuple[ActiveSpace, Embedder] | EmbeddingError | None:
        # On this thread (the tenant's connection), per batch: kb_reembed may switch the
        # space during a run. The model loads on the first batch that needs it: an
        # all-unchanged re-run never pays. A provider error fails the batch's documents.
        if embedder is not None:
            return None
        try:
            return active_embedder()
        except EmbeddingError as exc:
            return exc

    def embed(
        batch: list[_Plan], resolved: tuple[ActiveSpace, Embedder] | Exception | None
    ) -> None:
        if embedder is not None:
            _embed(batch, embedder)
        elif isinstance(resolved, Exception):
            raise resolved
        else:
            _embed_in_active_space(batch, resolved)

    params = chunk_params()
    batch_chunks = batch_chunks or max(1, int(settings.KB["EMBEDDING_BATCH_SIZE"])) * 4
    outcomes: list[IngestOutcome] = []

    def done(outcome: IngestOutcome) -> None:
        outcomes.append(outcome)
        if on_outcome is not None:
            on_outcome(outcome)

    def write_batch(batch: list[_Plan], future: Future[None]) -> None:
        try:
            future.result()
        except ImproperlyConfigured:
            raise  # a configuration error fails the run, not each document
        except Exception:  # noqa: BLE001 - isolate the failure: retry document by document
            for plan in batch:
                try:
                    embed([plan], resolve())
                except ImproperlyConfigured:
                    raise
                except Exception as exc:  # noqa: BLE001 - reported on this document
                    done(_failed(plan, exc))
                    continue
                done(_write_guarded(plan, origin))
            return
        for outcome in _write_many(batch, origin):
            done(outcome)

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="kb-embed") as pool:
        pending: tuple[list[_Plan], Future[None]] | None = None
        for batch in _batches(
            project=project, items=items, params=params, batch_chunks=batch_chunks, done=done
        ):
            future = pool.submit(embed, batch, resolve())
            if pending is not None:
                write_batch(*pending)
            pending = (batch, future)
        if pending is not None:
            write_batch(*pending)
    return outcomes


def _write_guarded(plan: _Plan, origin: AuditContext) -> IngestOutcome:
    """_write, with a database error reported on this document instead of stopping the run."""
    try:
        return _write(plan, origin)
    except Exception as exc:  # noqa: BLE001 - one bad document never stops the others
        logger.exception("writing %s failed", plan.prepared.source_path)
        return IngestOutcome(
            document=None,
            status="failed",
            error=f"could not store the document: {exc}",
            warnings=list(plan.prepared.warnings),
            source_path=plan.prepared.source_path,
        )


@transaction.atomic
def document_soft_delete(*, document: Document, origin: AuditContext = SYSTEM) -> Document:
    """Hide the document from every read path (revived by re-ingesting its path)."""
    if document.deleted_at is None:
        before = audited_values(document)
        document.deleted_at = timezone.now()
        document.save(update_fields=["deleted_at", "updated_at"])
        report_changes(document, before, origin)
        documents_changed([document.pk])
    return document


@transaction.atomic
def document_move(*, document: Document, source_path: str) -> Document:
    """Give the document a new source path (a file renamed where it lives); the next ingest
    of that path writes its content again (a new version), keeping the document's identity,
    its curated fields and the answers that cite it."""
    if document.source_path != source_path:
        document.source_path = source_path
        document.content_hash = ""  # the next ingest of the new path is never a no-op
        document.save(update_fields=["source_path", "content_hash", "updated_at"])
    return document


@transaction.atomic
def document_update_metadata(
    *,
    document: Document,
    title: str = UNSET,
    tags: list[str] = UNSET,
    summary: str = UNSET,
    owners: list[str] = UNSET,
    origin: AuditContext = SYSTEM,
) -> Document:
    """Change editor-curated metadata; only the given fields are written (a new version when
    any of them changed)."""
    versions_ensure([document])
    fields: list[str] = []
    if title is not UNSET:
        document.title = title.strip()[:500]
        fields.append("title")
    if tags is not UNSET:
        document.tags = _dedupe([tag.strip().lower() for tag in tags if tag.strip()])
        fields.append("tags")
    if summary is not UNSET:
        document.summary = summary.strip()
        fields.append("summary")
    if owners is not UNSET:
        document.owners = _dedupe([owner.strip() for owner in owners if owner.strip()])
        fields.append("owners")
    if fields:
        document.save(update_fields=[*fields, "updated_at"])
        document_version_record(document=document, origin=origin)
    return document


def document_version_restore(
    *, document: Document, version: DocumentVersion, origin: AuditContext
) -> IngestOutcome:
    """Write `version` of `document` again as its newest version, through the ingest write
    path: its text chunked and embedded as any ingest does, its fields (the source's and
    the curated ones) and declared relations as they were; the document keeps its path and
    slug. Call inside the transaction that audits the restore; raises EmbeddingError."""
    if version.document_id != document.pk:
        raise ValueError("The version belongs to another document.")
    content = version_content(version)
    chunks = _chunked(content, title=version.title)
    minhash = document_signature(chunk.text for chunk in chunks)  # as prepare_document does
    prepared = PreparedDocument(
        source_path=document.source_path,
        slug=document.slug,
        **{name: getattr(version, name) for name in RESTORED_FIELDS},
        edges=[(kind, slug) for kind, slug in version.edges],
        chunks=chunks,
        minhash=minhash,
        minhash_bands=bands(minhash),
    )
    plan = _Plan(
        project=document.project,
        prepared=prepared,
        title_override=None,
        restored_from=version.number,
    )
    _embed_in_active_space([plan])
    return _write(plan, origin)


def _chunked(content: str, *, title: str) -> list[ChunkDraft]:
    params = chunk_params()
    return list(
        chunk_text(
            content,
            title=title,
            target_tokens=params.target_tokens,
            max_tokens=params.max_tokens,
            overlap_tokens=params.overlap_tokens,
            embed_window=params.embed_window,
        )
    )


def _dedupe(values: list[str]) -> list[str]:
    return list(dict.fromkeys(values))
