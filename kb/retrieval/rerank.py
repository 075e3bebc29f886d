"""The weighted-sum reranker and the canonical trust gradient (pure; no database)."""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable, Sequence

from kb import words
from kb.models import CanonicalStatus, EvidenceTier, GenerationSource
from kb.retrieval.types import Candidate, Scored
from kb.retrieval.weights import Weights


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
    vector_signal, keyword_signal = min_max(cosines), min_max(keywords)

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
