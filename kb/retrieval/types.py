"""Typed values flowing through the retrieval pipeline. The contract chat and the API rely on."""

from __future__ import annotations

import datetime as dt
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from kb.filters import FILTER_KEYS, SearchFilters  # noqa: F401 - kb.filters, part of this contract

Mode = Literal["hybrid", "dense", "keyword"]
FusionMethod = Literal["rerank_weighted_sum", "rrf", "semantic_only"]
ScoreLabel = Literal["dense", "hybrid"]
Origin = Literal["primary", "graph_expansion", "rejected_injection", "runner_up"]
RelevanceLevel = Literal["high", "medium", "low", "none"]

MODES: tuple[str, ...] = ("hybrid", "dense", "keyword")
# meta["degraded"] reasons: typed, never the provider's detail (URLs, errors go to the log)
DEGRADED_EMBEDDING = "embedding_unavailable"
DEGRADED_KEYWORD = "keyword_search_unavailable"


@dataclass(frozen=True, kw_only=True)
class SearchHit:
    chunk_id: int
    document_id: int
    slug: str
    title: str
    project_key: str
    heading_path: str
    text: str
    chunk_order: int
    source_type: str
    canonical_type: str | None
    canonical_status: str | None
    retrieval_priority: int
    score: float  # fused score (or cosine in dense mode)
    score_label: ScoreLabel
    quality_score: float  # in [0, 1], from the one normaliser
    cosine: float | None  # raw cosine similarity of the chunk to the query, when known
    signals: dict[str, float] = field(default_factory=dict)  # per-signal breakdown
    origin: Origin = "primary"
    summary: str = ""  # the document's summary (what it says it is about)
    tags: tuple[str, ...] = ()  # the document's tags
    owners: tuple[str, ...] = ()  # the document's owners (people or teams)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["tags"] = list(self.tags)
        out.pop("owners")  # not part of the search API's hit (the document page shows them)
        return out


@dataclass(frozen=True, kw_only=True)
class SearchResult:
    primary: tuple[SearchHit, ...]
    expanded: tuple[SearchHit, ...]
    rejected: tuple[SearchHit, ...]
    runner_up: tuple[SearchHit, ...]
    meta: dict[str, Any]
    # meta keys: primary_count, expanded_count, rejected_count, runner_up_count, retrieval_ms,
    # search_strategy {semantic_enabled, fts_enabled, fusion_method, graph_expansion_enabled,
    # rejected_injection_enabled, filters_applied}, retrieval_stats {candidates_pre_threshold,
    # candidates_post_threshold, min_score_used, max_score_used}, relevance_level, mode,
    # degraded (typed reasons: DEGRADED_EMBEDDING, DEGRADED_KEYWORD), embedding_available

    def to_dict(self) -> dict[str, Any]:
        return {
            "primary": [hit.to_dict() for hit in self.primary],
            "expanded": [hit.to_dict() for hit in self.expanded],
            "rejected": [hit.to_dict() for hit in self.rejected],
            "runner_up": [hit.to_dict() for hit in self.runner_up],
            "meta": self.meta,
        }


@dataclass(frozen=True, kw_only=True)
class Candidate:
    """One chunk proposed by an arm, with the document columns the ranker reads."""

    chunk_id: int
    document_id: int
    slug: str
    title: str
    project_key: str
    heading_path: str
    text: str
    chunk_order: int
    source_type: str
    canonical_type: str | None = None
    canonical_status: str | None = None
    retrieval_priority: int = 50
    evidence_tier: str = "document"
    generation_source: str = "human"
    tags: tuple[str, ...] = ()
    summary: str = ""
    owners: tuple[str, ...] = ()
    updated_at: dt.datetime | None = None
    cosine: float | None = None  # cosine similarity to the query, when the query was embedded
    keyword_score: float | None = None  # keyword-arm relevance (higher is better), when matched
    semantic_rank: int | None = None  # 1-based position in the semantic arm
    keyword_rank: int | None = None  # 1-based position in the keyword arm


@dataclass(frozen=True, kw_only=True)
class Scored:
    """A candidate with its fused score and the per-signal breakdown behind it."""

    candidate: Candidate
    score: float
    signals: dict[str, float] = field(default_factory=dict)

    @property
    def document_id(self) -> int:
        return self.candidate.document_id

    @property
    def cosine(self) -> float | None:
        return self.candidate.cosine
