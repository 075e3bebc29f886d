"""Similarity floor, per-document cap (over-cap to the tail) and runner-ups (pure)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kb.retrieval.types import Scored, SearchHit


def passes_floor(item: Scored | SearchHit, floor: float | None) -> bool:
    """A hit passes when its cosine reaches the floor; without a cosine (or a floor) it passes."""
    return floor is None or item.cosine is None or item.cosine >= floor


def cap_per_document(ordered: Sequence[Scored], max_per_doc: int) -> list[Scored]:
    """At most `max_per_doc` chunks of a document at the front; the rest keep order at the tail."""
    if max_per_doc <= 0:
        return list(ordered)
    front: list[Scored] = []
    tail: list[Scored] = []
    per_doc: dict[int, int] = {}
    for item in ordered:
        count = per_doc.get(item.document_id, 0)
        (front if count < max_per_doc else tail).append(item)
        per_doc[item.document_id] = count + 1
    return front + tail


@dataclass(frozen=True)
class Selection:
    primary: list[Scored]
    runner_up: list[Scored]
    candidates_post_threshold: int


def select(
    ordered: Sequence[Scored],
    *,
    limit: int,
    min_similarity: float | None,
    max_per_doc: int,
    runner_up_max: int,
    runner_up_floor: float | None,
    exempt_from_floor: frozenset[int] = frozenset(),
) -> Selection:
    """Primary = the first `limit` hits (above `min_similarity` when one is given) after the
    cap; then up to `runner_up_max` runner-ups.

    Runner-ups are what missed the primary list (beyond the limit, or under the floor) but
    still reach `runner_up_floor` (when given), in fused order with the same per-document
    cap (over-cap chunks last), so they widen the set of documents before repeating one.
    Without a floor the primary list is never shorter than `limit` while candidates remain.
    Chunks in `exempt_from_floor` (they contain an identifier the query names; embeddings do
    not read codes) skip the floors.
    """
    kept = [
        item
        for item in ordered
        if item.candidate.chunk_id in exempt_from_floor or passes_floor(item, min_similarity)
    ]
    capped = cap_per_document(kept, max_per_doc)
    primary = capped[:limit]
    primary_ids = {item.candidate.chunk_id for item in primary}
    per_doc: dict[int, int] = {}
    for item in primary:
        per_doc[item.document_id] = per_doc.get(item.document_id, 0) + 1
    front: list[Scored] = []
    tail: list[Scored] = []
    for item in ordered:
        if item.candidate.chunk_id in primary_ids or not passes_floor(item, runner_up_floor):
            continue
        count = per_doc.get(item.document_id, 0)
        (front if max_per_doc <= 0 or count < max_per_doc else tail).append(item)
        per_doc[item.document_id] = count + 1
    runner_up = (front + tail)[: max(0, runner_up_max)]
    return Selection(primary=primary, runner_up=runner_up, candidates_post_threshold=len(kept))
