"""Pure preparation of one source: extract, frontmatter, title/slug, chunks (no database)."""

from __future__ import annotations

import dataclasses
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any, TypeVar

from kb.duplicates import bands, document_signature
from kb.ingestion.budget import Deadline, IngestBudget, IngestRejected
from kb.ingestion.chunk import ChunkDraft, chunk_text, heading
from kb.ingestion.extract import Extracted, extract, html_title
from kb.ingestion.frontmatter import Frontmatter, parse_frontmatter
from kb.ingestion.titles import usable_title
from kb.markup import slugify
from kb.models import evidence_tier_for


class SourceTooLarge(IngestRejected):
    """The source exceeds KB_INGEST_MAX_FILE_BYTES."""


def first_h1(body: str) -> str | None:
    """The text of the first level-1 ATX heading line of `body`."""
    pos = 0
    while pos < len(body):
        newline = body.find("\n", pos)
        end = len(body) if newline == -1 else newline
        if body.startswith("#", pos) or body.startswith(" ", pos):
            found = heading(body[pos:end])
            if found and found[0] == 1 and found[1]:
                return found[1]
        pos = end + 1
    return None


@dataclass(frozen=True, kw_only=True)
class ChunkParams:
    target_tokens: int = 512
    max_tokens: int = 768
    overlap_tokens: int = 64
    embed_window: int = 0  # word pieces the embedding model reads; 0 = unbounded


@dataclass(frozen=True, kw_only=True)
class PreparedDocument:
    source_path: str
    source_type: str
    content_hash: str
    slug: str
    title: str
    doc_id: str
    tags: list[str]
    owners: list[str]
    summary: str
    canonical_type: str | None
    canonical_status: str | None
    retrieval_priority: int
    generation_source: str
    evidence_tier: str
    metadata: dict[str, Any]
    edges: list[tuple[str, str]]
    chunks: list[ChunkDraft]
    # near-duplicate detection (kb.duplicates): the MinHash of the text and its LSH bands
    minhash: list[int] = field(default_factory=list)
    minhash_bands: list[int] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def content_hash(content: bytes | str) -> str:
    """sha256 hex of the source bytes (str is hashed as UTF-8; a lone surrogate as itself)."""
    data = content.encode("utf-8", "surrogatepass") if isinstance(content, str) else content
    return hashlib.sha256(data).hexdigest()


# What PostgreSQL refuses in text: NUL, and lone surrogates, which UTF-8 cannot encode. They
# come from PDF metadata ("/Title (Evil\000Title)"), UTF-16 strings, YAML escapes ("\0",
# "\ud800") and JSON bodies; any one of them failed the whole document's write.
NOT_FOR_POSTGRES_RE = re.compile("[\x00\ud800-\udfff]")
CLEANED_WARNING = "characters PostgreSQL cannot store (NUL, unpaired surrogates) were removed"
# the source's identity, not extracted from it
KEPT_FIELDS = frozenset({"source_path", "content_hash"})

T = TypeVar("T")


def text_for_postgres(value: T) -> T:
    """`value` with NUL and lone surrogates removed from every string in it (in dataclasses,
    lists, tuples and dicts): the one rule for every field a document brings to the database."""
    cleaned: Any = value
    if isinstance(value, str):
        cleaned = NOT_FOR_POSTGRES_RE.sub("", value) if NOT_FOR_POSTGRES_RE.search(value) else value
    elif isinstance(value, list):
        cleaned = [text_for_postgres(item) for item in value]
    elif isinstance(value, tuple):
        cleaned = tuple(text_for_postgres(item) for item in value)
    elif isinstance(value, dict):
        cleaned = {text_for_postgres(k): text_for_postgres(v) for k, v in value.items()}
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        cleaned = dataclasses.replace(
            value,
            **{
                f.name: text_for_postgres(getattr(value, f.name))
                for f in dataclasses.fields(value)
                if f.init and f.name not in KEPT_FIELDS
            },
        )
    return cleaned


def slug_from_path(source_path: str) -> str:
    """kebab-case slug of the file name without its extension."""
    stem = PurePosixPath(source_path.replace("\\", "/")).stem
    return slugify(stem) or "document"


def title_from_path(source_path: str) -> str:
    stem = PurePosixPath(source_path.replace("\\", "/")).stem
    words = re.sub(r"[-_]+", " ", stem).strip()
    return (words[:1].upper() + words[1:]) if words else "Untitled"


def prepare_document(
    *,
    source_path: str,
    content: bytes | str,
    title: str | None = None,
    source_type: str | None = None,
    params: ChunkParams | None = None,
    budget: IngestBudget | None = None,
) -> PreparedDocument:
    """Everything to store for one source; raises UnsupportedSource for binaries/unknown types
    and IngestRejected when the source is over `budget`."""
    params = params or ChunkParams()
    budget = budget or IngestBudget()
    deadline = Deadline(budget.max_seconds)
    as_read: Extracted = extract(source_path=source_path, content=content, source_type=source_type)
    deadline.extend(as_read.ocr_seconds)
    # cleaned before chunking, so the chunks still tile the stored text exactly
    extracted = text_for_postgres(as_read)
    warnings = list(extracted.warnings)
    if extracted != as_read:
        warnings.append(CLEANED_WARNING)
    if extracted.source_type == "markdown":
        front: Frontmatter = parse_frontmatter(
            extracted.text,
            max_bytes=budget.max_frontmatter_bytes,
            max_depth=budget.max_nesting,
        )
        warnings.extend(front.errors)
    else:
        front = Frontmatter(body=extracted.text)
    body = front.body

    # a caller's or the frontmatter's title, the file's metadata title when it names
    # something, its first heading, and only then the file name
    resolved_title = (
        (title or "").strip()
        or front.title
        or usable_title(extracted.title, source_path=source_path)
        or extracted.first_heading[:500]
    )
    if not resolved_title and extracted.source_type in ("markdown", "html"):
        h1 = first_h1(body)
        if h1:
            resolved_title = re.sub(r"[*_`]+", "", h1).strip()
    if not resolved_title and extracted.source_type == "html" and isinstance(content, str | bytes):
        raw = content.decode("utf-8", "replace") if isinstance(content, bytes) else content
        resolved_title = html_title(raw)
    resolved_title = (resolved_title or title_from_path(source_path))[:500]

    deadline.check()
    chunks: list[ChunkDraft] = []
    for chunk in chunk_text(
        body,
        title=resolved_title,
        target_tokens=params.target_tokens,
        max_tokens=params.max_tokens,
        overlap_tokens=params.overlap_tokens,
        embed_window=params.embed_window,
    ):
        chunks.append(chunk)
        if len(chunks) > budget.max_chunks:
            raise IngestRejected(
                f"the document makes more than {budget.max_chunks} chunks "
                "(KB_INGEST_MAX_CHUNKS); split it into smaller files"
            )
        deadline.check()
    metadata: dict[str, Any] = dict(extracted.metadata)
    if front.raw:
        metadata["frontmatter"] = front.raw
    if front.errors:
        metadata["frontmatter_errors"] = list(front.errors)
    prepared = PreparedDocument(
        source_path=source_path,
        source_type=extracted.source_type,
        content_hash=content_hash(content),
        slug=front.slug or slug_from_path(source_path),
        title=resolved_title,
        doc_id=front.doc_id,
        tags=front.tags,
        owners=front.owners,
        summary=front.summary,
        canonical_type=front.canonical_type if front.is_canonical else None,
        canonical_status=front.canonical_status if front.is_canonical else None,
        retrieval_priority=front.retrieval_priority,
        generation_source=front.generation_source,
        evidence_tier=evidence_tier_for(
            canonical_type=front.canonical_type if front.is_canonical else None,
            canonical_status=front.canonical_status if front.is_canonical else None,
            generation_source=front.generation_source,
        ),
        metadata=metadata,
        edges=front.edges,
        chunks=chunks,
        minhash=(minhash := document_signature(chunk.text for chunk in chunks)),
        minhash_bands=bands(minhash),
        warnings=warnings,
    )
    # frontmatter values (YAML escapes) and a caller's title are cleaned here too
    return text_for_postgres(prepared)
