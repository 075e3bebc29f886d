"""Rejected-approach injection: dismissed options close to the query, so nobody re-proposes them."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from kb.models import STALE_STATUSES, CanonicalType
from kb.retrieval.sql import Scope, best_chunk_per_document
from kb.retrieval.types import Candidate


def pick_rejected(
    candidates: Sequence[Candidate],
    *,
    min_similarity: float,
    max_docs: int,
    exclude: Collection[int] = (),
) -> list[Candidate]:
    """The closest rejected approaches at or above the cosine floor, best first, capped."""
    eligible = [
        c
        for c in candidates
        if c.cosine is not None and c.cosine >= min_similarity and c.document_id not in exclude
    ]
    eligible.sort(key=lambda c: (-(c.cosine or 0.0), c.document_id))
    return eligible[: max(0, max_docs)]


def inject(
    *,
    scope: Scope,
    vector: Sequence[float] | None,
    min_similarity: float,
    max_docs: int,
    exclude: Collection[int],
) -> list[Candidate]:
    """Visible rejected-approach documents whose best chunk has cosine >= the floor."""
    if vector is None or max_docs <= 0:
        return []
    # a rejection that was itself superseded or retired no longer speaks for the team
    candidates = best_chunk_per_document(
        scope=scope,
        vector=vector,
        where="d.canonical_type = %s AND coalesce(d.canonical_status, '') <> ALL(%s)",
        params=(CanonicalType.REJECTED_APPROACH.value, sorted(STALE_STATUSES)),
    )
    return pick_rejected(
        candidates, min_similarity=min_similarity, max_docs=max_docs, exclude=exclude
    )
