"""Hybrid retrieval with the canonical trust gradient. One entry point: `search(...)`."""

from kb.retrieval.exceptions import InvalidSearchRequest, KeywordArmError, RetrievalError
from kb.retrieval.pipeline import (
    document_hits,
    known_words,
    neighbour_hits,
    opening_hits,
    search,
    short_document_hits,
    worded_chunk_hits,
)
from kb.retrieval.types import (
    FILTER_KEYS,
    MODES,
    SearchFilters,
    SearchHit,
    SearchResult,
)

__all__ = [
    "FILTER_KEYS",
    "MODES",
    "InvalidSearchRequest",
    "KeywordArmError",
    "RetrievalError",
    "SearchFilters",
    "SearchHit",
    "SearchResult",
    "document_hits",
    "known_words",
    "short_document_hits",
    "worded_chunk_hits",
    "neighbour_hits",
    "opening_hits",
    "search",
]
