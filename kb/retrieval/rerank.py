"""The weighted-sum reranker and the canonical trust gradient (pure; no database)."""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kb import words
from kb.models import CanonicalStatus, EvidenceTier, GenerationSource
from kb.retrieval.types import Candidate, Scored


@dataclass(frozen=True, kw_only=True)
class Weights:
    """Reranker weights and trust-gradient numbers, read from settings.KB at call time."""

    vector: float = 0.55
    keyword: float = 0.25
    heading: float = 0.05
    tags: float = 0.05
    preamble: float = 0.05
    recency: float = 0.02
    recency_half_life_days: float = 180.0
    status: float = 0.02
    mention: float = 0.50
    priority: float = 0.001
    superseded_penalty: float = 0.40
    deprecated_penalty: float = 0.40
    archived_penalty: float = 0.60
    auto_tier_penalty: float = 0.02
    normalize: bool = True

    @classmethod
    def from_settings(cls, kb: Mapping[str, Any]) -> Weights:
        """Build from the KB settings dict (names as in portal/settings.py)."""
        return cls(
            vector=kb["RERANK_VECTOR_WEIGHT"],
            keyword=kb["RERANK_KEYWORD_WEIGHT"],
            heading=kb["RERANK_HEADING_WEIGHT"],
            tags=kb["RERANK_TAG_OVERLAP_WEIGHT"],
            preamble=kb["RERANK_PREAMBLE_WEIGHT"],
            recency=kb["RERANK_RECENCY_WEIGHT"],
            recency_half_life_days=kb["RERANK_RECENCY_HALF_LIFE_DAYS"],
            status=kb["RERANK_STATUS_WEIGHT"],
            mention=kb["RERANK_MENTION_BOOST_WEIGHT"],
            priority=kb["CANONICAL_PRIORITY_WEIGHT"],
            superseded_penalty=kb["CANONICAL_SUPERSEDED_PENALTY"],
            deprecated_penalty=kb["CANONICAL_DEPRECATED_PENALTY"],
            archived_penalty=kb["CANONICAL_ARCHIVED_PENALTY"],
            auto_tier_penalty=kb["CANONICAL_AUTO_TIER_PENALTY"],
            normalize=kb["RERANK_NORMALIZE_SCORES"],
        )


def min_max(values: Sequence[float | None]) -> list[float]:
    """Min-max normalise to [0, 1]; missing values score 0; a constant positive batch scores 1."""
    present = [v for v in values if v is not None]
    if not present:
        return [0.0 for _ in values]
    low, high = min(present), max(present)
    if high - low <= 1e-12:
        return [0.0 if v is None else (1.0 if high > 0 else 0.0) for v in values]
    return [0.0 if v is None else (v - low) / (high - low) for v in values]


def status_penalty(candidate: Candidate, weights: Weights) -> float:
    """The penalty for a non-current canonical status (superseded/deprecated/archived)."""
    penalties: dict[str, float] = {
        CanonicalStatus.SUPERSEDED: weights.superseded_penalty,
        CanonicalStatus.DEPRECATED: weights.deprecated_penalty,
        CanonicalStatus.ARCHIVED: weights.archived_penalty,
    }
    return penalties.get(candidate.canonical_status or "", 0.0)


def is_auto_tier(candidate: Candidate) -> bool:
    """Auto-generated knowledge sits below human-curated content."""
    return (
        candidate.generation_source == GenerationSource.AUTO
        or candidate.evidence_tier == EvidenceTier.AUTO
    )


def recency(updated_at: dt.datetime | None, *, now: dt.datetime, half_life_days: float) -> float:
    """Exponential decay of age: 1.0 now, 0.5 after one half-life; 0 when unknown."""
    if updated_at is None or half_life_days <= 0:
        return 0.0
    age_days = max(0.0, (now - updated_at).total_seconds() / 86400.0)
    return math.pow(0.5, age_days / half_life_days)


def tag_overlap(query_terms: frozenset[str], tags: Iterable[str]) -> float:
    """Fraction of query terms that name one of the document's tags (or a part of one)."""
    if not query_terms:
        return 0.0
    tag_terms: set[str] = set()
    for tag in tags:
        tag_terms |= words.terms(tag)
    return len(query_terms & tag_terms) / len(query_terms)


# How much of a document's first chunk counts as its preamble (the opening lines).
PREAMBLE_CHARS = 600


def preamble_match(query_terms: frozenset[str], candidate: Candidate) -> float:
    """Query-term overlap with the document summary and the opening of its first chunk."""
    preamble = candidate.summary
    if candidate.chunk_order == 0:
        preamble = f"{preamble}\n{candidate.text[:PREAMBLE_CHARS]}"
    return words.overlap(query_terms, preamble) if preamble.strip() else 0.0


def trust_adjustment(
    candidate: Candidate, weights: Weights, *, mentioned: bool
) -> dict[str, float]:
    """The canonical part of a score: priority boost, mention boost and penalties (signed)."""
    return {
        "mention": weights.mention if mentioned else 0.0,
        "priority": weights.priority * candidate.retrieval_priority,
        "status_penalty": -status_penalty(candidate, weights),
        "auto_tier_penalty": -weights.auto_tier_penalty if is_auto_tier(candidate) else 0.0,
    }


def weighted_sum(
    candidates: Sequence[Candidate],
    *,
    query: str,
    weights: Weights,
    now: dt.datetime,
    mentions: Iterable[str] = (),
) -> list[Scored]:
    """Score every candidate by the weighted sum of its signals; best first, stable on ties."""
    query_terms = words.terms(query)
    mentioned = {slug.lower() for slug in mentions}
    cosines = [c.cosine for c in candidates]
    keywords = [c.keyword_score for c in candidates]
    if weights.normalize:
        vector_signal, keyword_signal = min_max(cosines), min_max(keywords)
    else:
        vector_signal = [min(1.0, max(0.0, v or 0.0)) for v in cosines]
        keyword_signal = [min(1.0, max(0.0, v or 0.0)) for v in keywords]

    scored: list[Scored] = []
    for index, candidate in enumerate(candidates):
        signals = {
            "vector": vector_signal[index],
            "keyword": keyword_signal[index],
            "heading": words.overlap(query_terms, candidate.heading_path),
            "tags": tag_overlap(query_terms, candidate.tags),
            "preamble": preamble_match(query_terms, candidate),
            "recency": recency(
                candidate.updated_at, now=now, half_life_days=weights.recency_half_life_days
            ),
            "active": 1.0 if candidate.canonical_status == CanonicalStatus.ACCEPTED else 0.0,
        }
        base = (
            weights.vector * signals["vector"]
            + weights.keyword * signals["keyword"]
            + weights.heading * signals["heading"]
            + weights.tags * signals["tags"]
            + weights.preamble * signals["preamble"]
            + weights.recency * signals["recency"]
            + weights.status * signals["active"]
        )
        trust = trust_adjustment(candidate, weights, mentioned=candidate.slug in mentioned)
        signals.update(trust)
        scored.append(
            Scored(candidate=candidate, score=base + sum(trust.values()), signals=signals)
        )
    return rank(scored)


def rank(scored: Iterable[Scored]) -> list[Scored]:
    """Order best first; ties keep arm order (semantic rank, then keyword rank, then id)."""

    def key(item: Scored) -> tuple[float, int, int, int]:
        c = item.candidate
        return (-item.score, c.semantic_rank or 10**9, c.keyword_rank or 10**9, c.chunk_id)

    return sorted(scored, key=key)
