"""Fusion of the two arms: rerank_weighted_sum (default), rrf, or semantic_only (pure)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence

from kb.retrieval.rerank import min_max, rank, trust_adjustment, weighted_sum
from kb.retrieval.types import Candidate, Scored
from kb.retrieval.weights import Weights

FUSION_METHODS: tuple[str, ...] = ("rerank_weighted_sum", "rrf", "semantic_only")
# Internal: what keyword mode (or a failed embedding) ranks by; not a configurable method.
KEYWORD_ONLY = "keyword_only"


def merge_arms(semantic: Sequence[Candidate], keyword: Sequence[Candidate]) -> list[Candidate]:
    """Union of both arms by chunk id; a chunk found by both keeps both ranks and scores."""
    merged: dict[int, Candidate] = {}
    for candidate in [*semantic, *keyword]:
        seen = merged.get(candidate.chunk_id)
        if seen is None:
            merged[candidate.chunk_id] = candidate
            continue
        merged[candidate.chunk_id] = Candidate(
            **{
                **seen.__dict__,
                "cosine": seen.cosine if seen.cosine is not None else candidate.cosine,
                "keyword_score": (
                    seen.keyword_score
                    if seen.keyword_score is not None
                    else candidate.keyword_score
                ),
                "semantic_rank": seen.semantic_rank or candidate.semantic_rank,
                "keyword_rank": seen.keyword_rank or candidate.keyword_rank,
            }
        )
    return list(merged.values())


def rrf_scores(
    candidates: Sequence[Candidate], *, k: int, semantic_weight: float, keyword_weight: float
) -> list[float]:
    """Weighted reciprocal rank fusion, scaled so rank 1 in both arms scores 1.0."""
    best = semantic_weight / (k + 1) + keyword_weight / (k + 1)
    out = []
    for c in candidates:
        raw = 0.0
        if c.semantic_rank:
            raw += semantic_weight / (k + c.semantic_rank)
        if c.keyword_rank:
            raw += keyword_weight / (k + c.keyword_rank)
        out.append(raw / best if best > 0 else 0.0)
    return out


def _with_trust(
    candidates: Sequence[Candidate],
    base_scores: Sequence[float],
    base_name: str,
    *,
    weights: Weights,
    mentions: Iterable[str],
) -> list[Scored]:
    mentioned = {slug.lower() for slug in mentions}
    scored = []
    for candidate, base in zip(candidates, base_scores, strict=True):
        trust = trust_adjustment(candidate, weights, mentioned=candidate.slug in mentioned)
        scored.append(
            Scored(
                candidate=candidate,
                score=base + sum(trust.values()),
                signals={base_name: base, **trust},
            )
        )
    return rank(scored)


def fuse(
    candidates: Sequence[Candidate],
    *,
    method: str,
    query: str,
    weights: Weights,
    now: dt.datetime,
    rrf_k: int = 60,
    semantic_weight: float = 0.70,
    keyword_weight: float = 0.30,
    mentions: Iterable[str] = (),
) -> list[Scored]:
    """Score and order the candidates with `method`; the trust gradient applies to every method.

    rrf and semantic_only put their base score on a 0..1 scale (RRF divided by its maximum,
    cosine as is) so the same status penalties and boosts mean the same thing in each method.
    """
    mentions = tuple(mentions)
    if method == "rerank_weighted_sum":
        return weighted_sum(candidates, query=query, weights=weights, now=now, mentions=mentions)
    if method == "rrf":
        base = rrf_scores(
            candidates, k=rrf_k, semantic_weight=semantic_weight, keyword_weight=keyword_weight
        )
        return _with_trust(candidates, base, "rrf", weights=weights, mentions=mentions)
    if method == "semantic_only":
        base = [c.cosine if c.cosine is not None else 0.0 for c in candidates]
        return _with_trust(candidates, base, "vector", weights=weights, mentions=mentions)
    if method == KEYWORD_ONLY:
        base = min_max([c.keyword_score for c in candidates])
        return _with_trust(candidates, base, "keyword", weights=weights, mentions=mentions)
    raise ValueError(f"unknown fusion method {method!r}; expected one of {FUSION_METHODS}")
