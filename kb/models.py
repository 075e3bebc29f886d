"""Knowledge base: project-scoped documents, their chunks (vectors + full text) and edges."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVectorField
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from pgvector.django import HnswIndex, VectorField

from portal.access.models import AnyUser, Project

if TYPE_CHECKING:
    from kb.filters import SearchFilters

EMBEDDING_DIMENSIONS = 384
# Build parameters of the chunk embeddings' HNSW graph. ef_construction is 200, not
# pgvector's 64: a build about 2.5 times longer gives a graph with better recall at every
# ef_search and a shorter walk at equal recall (benchmarks/RESULTS.md, "HNSW build
# parameters"). Changing them needs a migration that rebuilds the index (kb 0004).
HNSW_M = 16
HNSW_EF_CONSTRUCTION = 200
TAG_MAX_CHARS = 100  # the width of Document.tags' items


class SourceType(models.TextChoices):
    MARKDOWN = "markdown", "Markdown"
    TEXT = "text", "Plain text"
    HTML = "html", "HTML"
    PDF = "pdf", "PDF"
    DOCX = "docx", "Word"


class CanonicalType(models.TextChoices):
    PROJECT_INDEX = "project-index"
    MODULE_KB = "module-kb"
    DECISION = "decision"
    RUNBOOK = "runbook"
    STANDARD = "standard"
    INCIDENT = "incident"
    INTEGRATION = "integration"
    DOMAIN_CONCEPT = "domain-concept"
    REJECTED_APPROACH = "rejected-approach"


class CanonicalStatus(models.TextChoices):
    DRAFT = "draft"
    REVIEW = "review"
    ACCEPTED = "accepted"
    SUPERSEDED = "superseded"
    DEPRECATED = "deprecated"
    ARCHIVED = "archived"


# Statuses whose content is history: never stated as current, labelled wherever shown.
STALE_STATUSES: frozenset[str] = frozenset(
    {CanonicalStatus.SUPERSEDED, CanonicalStatus.DEPRECATED, CanonicalStatus.ARCHIVED}
)


class GenerationSource(models.TextChoices):
    HUMAN = "human"
    AUTO = "auto"


class EvidenceTier(models.TextChoices):
    CANONICAL = "canonical", "Canonical (curated record)"
    DOCUMENT = "document", "Document (uncurated)"
    AUTO = "auto", "Auto-generated"


def is_canonical(canonical_type: str | None, canonical_status: str | None) -> bool:
    """A canonical record has both a type and a status (the one definition)."""
    return bool(canonical_type and canonical_status)


def evidence_tier_for(
    *, canonical_type: str | None, canonical_status: str | None, generation_source: str
) -> str:
    """The tier a document earns: auto-generated, curated canonical record, or plain document."""
    if generation_source == GenerationSource.AUTO:
        return EvidenceTier.AUTO
    if is_canonical(canonical_type, canonical_status):
        return EvidenceTier.CANONICAL
    return EvidenceTier.DOCUMENT


class ChangeSource(models.TextChoices):
    """Through which door a change reached a document (audit rows and versions name it)."""

    ADMIN = "admin", "Admin console"
    API = "api", "API"
    SERVICE = "service", "Service"
    CLI = "cli", "Command line"
    SYNC = "sync", "Source sync"


class EdgeType(models.TextChoices):
    RELATED_TO = "related_to"
    SUPERSEDES = "supersedes"
    INVALIDATED_BY = "invalidated_by"
    DEPENDS_ON = "depends_on"
    IMPLEMENTS = "implements"
    DECISION_FOR = "decision_for"
    USES = "uses"
    AFFECTS = "affects"
    DOCUMENTED_BY = "documented_by"
    OWNED_BY = "owned_by"


class DocumentQuerySet(models.QuerySet["Document"]):
    def alive(self) -> DocumentQuerySet:
        return self.filter(deleted_at__isnull=True)

    def visible_to(self, user: AnyUser, *, project_keys: Sequence[str] = ()) -> DocumentQuerySet:
        """The one visibility rule: not soft-deleted and in a project the user belongs to.

        The visible project ids are resolved first and inlined as constants: the planner then
        estimates the visible share of the chunks from column statistics instead of guessing
        through two project joins, and picks the HNSW / GIN index scans in retrieval.
        `project_keys` narrows to those of the visible projects in the same lookup.
        """
        projects = Project.objects.visible_to(user)
        if project_keys:
            projects = projects.filter(key__in=project_keys)
        project_ids = sorted(set(projects.values_list("id", flat=True)))
        return self.alive().filter(project_id__in=project_ids)

    def visible_filtered(self, user: AnyUser, filters: SearchFilters | None) -> DocumentQuerySet:
        """`visible_to(user).filtered(filters)`, the project filter resolved in the visibility
        lookup: one query instead of two on every search."""
        if filters is None or not filters.project_keys:
            return self.visible_to(user).filtered(filters)
        narrowed = self.visible_to(user, project_keys=filters.project_keys)
        return narrowed.filtered(dataclasses.replace(filters, project_keys=()))

    def filtered(self, filters: SearchFilters | None) -> DocumentQuerySet:
        """Narrowed by the request filters (never widened); tags match case-insensitively."""
        if filters is None:
            return self
        qs = self
        if filters.project_keys:
            keys = Project.objects.filter(key__in=filters.project_keys)
            qs = qs.filter(project_id__in=sorted(keys.values_list("id", flat=True)))
        if filters.tags:
            # tags are stored lower-case (kb normalises them on every write)
            qs = qs.filter(tags__overlap=[tag.strip().lower() for tag in filters.tags])
        if filters.source_types:
            qs = qs.filter(source_type__in=filters.source_types)
        if filters.canonical_types:
            qs = qs.filter(canonical_type__in=filters.canonical_types)
        if filters.canonical_statuses:
            qs = qs.filter(canonical_status__in=filters.canonical_statuses)
        if filters.doc_ids:
            qs = qs.filter(id__in=filters.doc_ids)
        if filters.date_from:
            qs = qs.filter(updated_at__date__gte=filters.date_from)
        if filters.date_to:
            qs = qs.filter(updated_at__date__lte=filters.date_to)
        if filters.title_contains:
            qs = qs.filter(title__icontains=filters.title_contains)
        return qs

    def editable_by(self, user: AnyUser) -> DocumentQuerySet:
        """Visible documents the user may curate (editor/admin of the project)."""
        return self.alive().filter(project__in=Project.objects.editable_by(user))


class Document(models.Model):
    project = models.ForeignKey(Project, on_delete=models.PROTECT, related_name="documents")
    title = models.CharField(max_length=500)
    slug = models.SlugField(max_length=200, allow_unicode=False)
    doc_id = models.CharField(max_length=100, blank=True, default="")
    source_path = models.CharField(max_length=1000)
    source_type = models.CharField(max_length=20, choices=SourceType.choices)
    content_hash = models.CharField(max_length=64)
    tags = ArrayField(models.CharField(max_length=TAG_MAX_CHARS), default=list, blank=True)
    owners = ArrayField(models.CharField(max_length=200), default=list, blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    summary = models.TextField(blank=True, default="")
    evidence_tier = models.CharField(
        max_length=20, choices=EvidenceTier.choices, default=EvidenceTier.DOCUMENT
    )
    canonical_type = models.CharField(
        max_length=30, choices=CanonicalType.choices, null=True, blank=True
    )
    canonical_status = models.CharField(
        max_length=20, choices=CanonicalStatus.choices, null=True, blank=True
    )
    retrieval_priority = models.PositiveSmallIntegerField(
        default=50, validators=[MinValueValidator(0), MaxValueValidator(100)]
    )
    generation_source = models.CharField(
        max_length=10, choices=GenerationSource.choices, default=GenerationSource.HUMAN
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    deleted_at = models.DateTimeField(null=True, blank=True)
    # The number of its newest DocumentVersion (kb.versions keeps it with every version).
    current_version = models.PositiveIntegerField(default=0)
    # Near-duplicates (kb.duplicates): the MinHash signature of its text and its LSH band
    # hashes (a GIN index finds the documents sharing a band); [] for a text without words.
    minhash = ArrayField(models.BigIntegerField(), default=list, blank=True)
    minhash_bands = ArrayField(models.BigIntegerField(), default=list, blank=True)

    objects = DocumentQuerySet.as_manager()

    class Meta:
        ordering = ["project_id", "slug"]
        constraints = [
            models.UniqueConstraint(fields=["project", "slug"], name="kb_document_unique_slug"),
            models.CheckConstraint(
                condition=models.Q(retrieval_priority__gte=0, retrieval_priority__lte=100),
                name="kb_document_priority_range",
            ),
        ]
        indexes = [
            models.Index(fields=["project", "source_path"], name="kb_doc_project_path"),
            models.Index(fields=["canonical_type", "canonical_status"], name="kb_doc_canonical"),
            GinIndex(fields=["minhash_bands"], name="kb_doc_minhash_bands_gin"),
        ]

    def __str__(self) -> str:
        return f"{self.project_id}/{self.slug}"

    @property
    def is_canonical(self) -> bool:
        return is_canonical(self.canonical_type, self.canonical_status)

    @property
    def project_key(self) -> str:
        return self.project.key


class Chunk(models.Model):
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="chunks")
    chunk_order = models.PositiveIntegerField()
    heading_path = models.CharField(max_length=1000, blank=True, default="")
    text = models.TextField()
    # Leading characters of `text` repeated from the previous chunk (context overlap);
    # the preview strips them to rebuild the document faithfully.
    overlap_chars = models.PositiveIntegerField(default=0)
    token_count = models.PositiveIntegerField(default=0)
    embedding = VectorField(dimensions=EMBEDDING_DIMENSIONS, null=True, blank=True)
    search_vector = SearchVectorField(null=True, blank=True)

    class Meta:
        ordering = ["document_id", "chunk_order"]
        constraints = [
            models.UniqueConstraint(
                fields=["document", "chunk_order"], name="kb_chunk_unique_order"
            )
        ]
        indexes = [
            HnswIndex(
                name="kb_chunk_embedding_hnsw",
                fields=["embedding"],
                m=HNSW_M,
                ef_construction=HNSW_EF_CONSTRUCTION,
                opclasses=["vector_cosine_ops"],
            ),
            GinIndex(fields=["search_vector"], name="kb_chunk_search_gin"),
        ]

    def __str__(self) -> str:
        return f"{self.document_id}#{self.chunk_order}"


class VersionText(models.Model):
    """A document's chunked text as one or more of its versions had it. Versions that only
    changed curated fields share their predecessor's row, so a status change costs no text.

    `chunks` is the text in chunk order, each chunk as {"hash": sha256 of its text,
    "heading_path", "text", "overlap_chars", "token_count"}: enough to show any passage as it
    was, rebuild the whole text (kb.rendering.rebuild_content) and index it again.
    """

    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="texts")
    digest = models.CharField(max_length=64)  # kb.versions.text_digest of `chunks`
    chunks = models.JSONField(default=list)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["document", "digest"], name="kb_versiontext_unique")
        ]

    def __str__(self) -> str:
        return f"{self.document_id}:{self.digest[:12]}"


class DocumentVersion(models.Model):
    """A document as one change left it: its text, its fields, who changed it and when.

    Numbered 1..n per document; the newest is the document's `current_version`. Written by
    kb.versions inside the transaction of the change itself (kb's ingest, metadata and
    restore paths, canonical's curation services), never on its own.
    """

    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    # RESTRICT: a text goes only with its document (or the retention purge of its versions)
    text = models.ForeignKey(VersionText, on_delete=models.RESTRICT, related_name="versions")
    # The chunk rows' ids while this version was current, in chunk order: a citation names
    # a chunk id, and this finds its passage in the version after the chunks are replaced.
    chunk_ids = ArrayField(models.BigIntegerField(), default=list, blank=True)
    slug = models.SlugField(max_length=200, allow_unicode=False)
    source_path = models.CharField(max_length=1000)
    title = models.CharField(max_length=500)
    doc_id = models.CharField(max_length=100, blank=True, default="")
    source_type = models.CharField(max_length=20, choices=SourceType.choices)
    content_hash = models.CharField(max_length=64)
    tags = ArrayField(models.CharField(max_length=TAG_MAX_CHARS), default=list, blank=True)
    owners = ArrayField(models.CharField(max_length=200), default=list, blank=True)
    summary = models.TextField(blank=True, default="")
    metadata = models.JSONField(default=dict, blank=True)
    canonical_type = models.CharField(
        max_length=30, choices=CanonicalType.choices, null=True, blank=True
    )
    canonical_status = models.CharField(
        max_length=20, choices=CanonicalStatus.choices, null=True, blank=True
    )
    retrieval_priority = models.PositiveSmallIntegerField(default=50)
    generation_source = models.CharField(
        max_length=10, choices=GenerationSource.choices, default=GenerationSource.HUMAN
    )
    evidence_tier = models.CharField(
        max_length=20, choices=EvidenceTier.choices, default=EvidenceTier.DOCUMENT
    )
    # [[edge type, target slug], ...]: the relations its source declared (frontmatter)
    edges = models.JSONField(default=list, blank=True)
    # the slug of the record a superseded document pointed at as its successor ("" unless
    # superseded): superseding it again by another record is a change, kept as a version
    superseded_by = models.CharField(max_length=200, blank=True, default="")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="document_versions",
    )
    actor_name = models.CharField(max_length=150, blank=True, default="")
    source = models.CharField(max_length=10, choices=ChangeSource.choices)
    reason = models.TextField(blank=True, default="")
    restored_from = models.PositiveIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["document_id", "-number"]
        constraints = [
            models.UniqueConstraint(
                fields=["document", "number"], name="kb_documentversion_unique_number"
            ),
            models.CheckConstraint(
                condition=models.Q(number__gte=1), name="kb_documentversion_number_from_1"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.document_id} v{self.number}"


class RealField(models.FloatField):
    """A 4-byte float column: what ts_rank returns, so stored weights equal recomputed ones."""

    def db_type(self, connection) -> str:
        return "real"


class ChunkTerm(models.Model):
    """One posting of the keyword arm's inverted index: a lexeme of a chunk's search_vector
    with its ts_rank weight (normalisation 1) computed once, at write time.

    The keyword arm reads a query term's postings from the primary key alone (an index-only
    scan: its INCLUDE columns carry the document and the weight) instead of visiting every
    matching chunk row to rank its tsvector (benchmarks/RESULTS.md, "The keyword arm's
    postings"). Triggers on the chunk table keep it in step with search_vector in the same
    statement (migration kb 0005): nothing in Python writes it. Plain ids, no foreign keys:
    a foreign key would make Django delete postings by chunk_id, which has no index.
    """

    pk = models.CompositePrimaryKey("lexeme", "chunk_id")
    chunk_id = models.BigIntegerField()
    document_id = models.BigIntegerField()
    weight = RealField()
    lexeme = models.TextField()

    def __str__(self) -> str:
        return f"{self.lexeme}@{self.chunk_id}"


class TermBound(models.Model):
    """The highest weight any posting of a lexeme has had: the keyword arm's per-term upper
    bound for top-k pruning (MaxScore: a chunk holding only terms whose bounds sum below the
    k-th best score found so far cannot reach the top k, so those terms' postings are never
    read). Raised by the same triggers that write the postings (migration kb 0011), never
    lowered: a bound above the true maximum only prunes less, one below would lose results
    (kb.postings checks and repairs that).
    """

    lexeme = models.TextField(primary_key=True)
    max_weight = RealField()

    def __str__(self) -> str:
        return f"{self.lexeme} <= {self.max_weight}"


def chunk_hnsw_index() -> HnswIndex:
    """The chunk table's HNSW index as the model declares it: its name and build parameters."""
    return next(index for index in Chunk._meta.indexes if isinstance(index, HnswIndex))


def chunk_hnsw_sql(*, name: str = "", column: str = "embedding", concurrently: bool = False) -> str:
    """CREATE INDEX for an HNSW index on a chunk vector column with the model's build
    parameters: for kb_reembed's next column and for bulk loads that rebuild the index."""
    index = chunk_hnsw_index()
    return (
        f"CREATE INDEX {'CONCURRENTLY ' if concurrently else ''}{name or index.name} "
        f"ON {Chunk._meta.db_table} USING hnsw ({column} vector_cosine_ops) "
        f"WITH ({', '.join(index.get_with_params())})"
    )


class EdgeQuerySet(models.QuerySet["Edge"]):
    def successors(self, document_ids: Collection[int]) -> dict[int, tuple[int, str]]:
        """{document id: (id, slug) of the record it now points at as its successor}: its
        newest resolved `invalidated_by` edge (a record superseded again by another record
        keeps both edges; the newest names the successor)."""
        rows = (
            self.filter(
                from_document_id__in=list(document_ids),
                edge_type=EdgeType.INVALIDATED_BY,
                to_document__isnull=False,
            )
            .order_by("from_document_id", "-id")
            .distinct("from_document_id")
            .values_list("from_document_id", "to_document_id", "to_slug")
        )
        return {source: (target, slug) for source, target, slug in rows if target is not None}


class Edge(models.Model):
    from_document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="edges_out")
    # Null until a document with `to_slug` arrives in the same project.
    to_document = models.ForeignKey(
        Document, on_delete=models.CASCADE, related_name="edges_in", null=True, blank=True
    )
    to_slug = models.CharField(max_length=200)
    edge_type = models.CharField(max_length=30, choices=EdgeType.choices)
    weight = models.FloatField(default=1.0)
    provenance = models.CharField(max_length=30, default="frontmatter")
    created_at = models.DateTimeField(auto_now_add=True)

    objects = EdgeQuerySet.as_manager()

    class Meta:
        db_table = "kb_edges"
        constraints = [
            models.UniqueConstraint(
                fields=["from_document", "to_slug", "edge_type"], name="kb_edge_unique"
            )
        ]
        indexes = [models.Index(fields=["to_slug"], name="kb_edge_to_slug")]

    def __str__(self) -> str:
        return f"{self.from_document_id} -{self.edge_type}-> {self.to_slug}"


class JobState(models.TextChoices):
    QUEUED = "queued", "Queued"
    EXTRACTING = "extracting", "Extracting"
    EMBEDDING = "embedding", "Embedding"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"


FINISHED_JOB_STATES = (JobState.DONE, JobState.FAILED)


class IngestJobQuerySet(models.QuerySet["IngestJob"]):
    def visible_to(self, user: AnyUser) -> IngestJobQuerySet:
        """Jobs are an editor's tool: visible to editors/admins of the job's project."""
        return self.filter(project__in=Project.objects.editable_by(user))


class IngestJob(models.Model):
    """One file queued for background ingestion; its bytes stay for re-indexing."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="ingest_jobs")
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )
    source_path = models.CharField(max_length=1000)
    source_type = models.CharField(max_length=20, choices=SourceType.choices)
    content = models.BinaryField()
    size = models.PositiveBigIntegerField(default=0)
    # re-index: ingest even when the bytes are unchanged (e.g. after a model change)
    force = models.BooleanField(default=False)
    state = models.CharField(max_length=20, choices=JobState.choices, default=JobState.QUEUED)
    progress_done = models.PositiveIntegerField(default=0)
    progress_total = models.PositiveIntegerField(default=0)
    outcome = models.CharField(max_length=20, blank=True, default="")
    error = models.TextField(blank=True, default="")
    warnings = models.JSONField(default=list, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    task_id = models.CharField(max_length=64, blank=True, default="")
    document = models.ForeignKey(
        Document, on_delete=models.SET_NULL, null=True, blank=True, related_name="ingest_jobs"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = IngestJobQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["project", "-created_at"], name="kb_job_project_recent")]

    def __str__(self) -> str:
        return f"job {self.pk} {self.source_path} ({self.state})"

    @property
    def is_finished(self) -> bool:
        return self.state in FINISHED_JOB_STATES


class SpaceState(models.TextChoices):
    ACTIVE = "active", "Active (search and ingestion use it)"
    BUILDING = "building", "Building (kb_reembed is filling its vectors)"
    RETIRED = "retired", "Retired (replaced by a re-embed)"


class EmbeddingSpace(models.Model):
    """The model a tenant's stored chunk vectors come from (kb_reembed records it).

    At most one row is active and one building. A tenant without an active row is in the
    space the settings configure (KB_EMBEDDING_PROVIDER, KB_EMBEDDING_MODEL_PATH, ...).
    """

    provider = models.CharField(max_length=20)
    # local: the model folder ("" = the packaged model); openai: the model name
    model = models.CharField(max_length=1000, blank=True, default="")
    base_url = models.CharField(max_length=1000, blank=True, default="")  # openai only
    dimensions = models.PositiveIntegerField()
    state = models.CharField(max_length=20, choices=SpaceState.choices)
    created_at = models.DateTimeField(auto_now_add=True)
    switched_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["state"],
                condition=models.Q(state__in=["active", "building"]),
                name="kb_embeddingspace_one_per_state",
            )
        ]

    def __str__(self) -> str:
        return f"{self.provider}:{self.model or '-'} ({self.dimensions}-d, {self.state})"
