"""Ingestion pipeline: extract -> frontmatter -> chunk -> embed -> write (kb.services)."""

from kb.ingestion.budget import IngestBudget, IngestRejected
from kb.ingestion.chunk import ChunkDraft, chunk_text, estimate_tokens
from kb.ingestion.extract import SOURCE_TYPES, UnsupportedSource, detect_source_type, extract
from kb.ingestion.frontmatter import Frontmatter, parse_frontmatter
from kb.ingestion.prepare import (
    ChunkParams,
    PreparedDocument,
    SourceTooLarge,
    content_hash,
    prepare_document,
)
from kb.markup import slugify

__all__ = [
    "SOURCE_TYPES",
    "ChunkDraft",
    "ChunkParams",
    "Frontmatter",
    "IngestBudget",
    "IngestRejected",
    "PreparedDocument",
    "SourceTooLarge",
    "UnsupportedSource",
    "chunk_text",
    "content_hash",
    "detect_source_type",
    "estimate_tokens",
    "extract",
    "parse_frontmatter",
    "prepare_document",
    "slugify",
]
