"""The one normaliser: score label -> quality_score in [0, 1] (reference 003, D1/D3)."""

from __future__ import annotations

from kb.retrieval.types import RelevanceLevel, ScoreLabel


def score_label_for(mode: str) -> ScoreLabel:
    """Hits of dense mode are labelled dense; hybrid and keyword-only are fused ranks (hybrid)."""
    return "dense" if mode == "dense" else "hybrid"


def quality_score(*, label: ScoreLabel, cosine: float | None, rank: int, batch_size: int) -> float:
    """dense: the cosine clamped to [0, 1]; hybrid: linear rank map, rank 1 -> 1.0, rank n -> 1/n."""
    if label == "dense":
        return min(1.0, max(0.0, cosine or 0.0))
    if batch_size <= 0 or rank < 1:
        return 0.0
    rank = min(rank, batch_size)
    return round(1.0 - (rank - 1) / batch_size, 6)


def relevance_level(top_quality: float | None, *, high: float, medium: float) -> RelevanceLevel:
    """Bucket the best quality_score of a result: high / medium / low, or none without hits."""
    if top_quality is None:
        return "none"
    if top_quality >= high:
        return "high"
    if top_quality >= medium:
        return "medium"
    return "low"
