"""Graph expansion: one hop over kb_edges from the canonical documents of the primary set.

Edges are walked in both directions. Frontmatter records a relation on whichever side the
author wrote it (`dec-cache-v2 supersedes dec-cache-v1`, `rb-redis-failover related
dec-cache-v2`), and the neighbour a reader needs is often on the other end: a superseded
decision in the primary set should bring in the accepted record that supersedes it.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from django.db import connection

from kb.models import CanonicalStatus, CanonicalType, Edge
from kb.retrieval.sql import Scope, best_chunk_per_document
from kb.retrieval.types import Candidate

EXPANDABLE_STATUSES: tuple[str, ...] = (CanonicalStatus.ACCEPTED, CanonicalStatus.REVIEW)


def neighbour_ids(
    edges: Sequence[tuple[int, int, str]],
    *,
    seeds: Sequence[int],
    allowed_types: Collection[str],
    exclude: Collection[int],
    max_nodes: int,
) -> list[int]:
    """Neighbours of the seeds, in seed order then edge order, allow-listed, deduplicated."""
    by_seed: dict[int, list[int]] = {seed: [] for seed in seeds}
    for from_id, to_id, edge_type in edges:
        if edge_type not in allowed_types:
            continue
        if from_id in by_seed:
            by_seed[from_id].append(to_id)
        if to_id in by_seed:
            by_seed[to_id].append(from_id)
    out: list[int] = []
    excluded = set(exclude)
    for seed in seeds:
        for neighbour in by_seed[seed]:
            if neighbour in excluded or neighbour in out:
                continue
            out.append(neighbour)
            if len(out) >= max_nodes:
                return out
    return out


def edges_touching(document_ids: Sequence[int]) -> list[tuple[int, int, str]]:
    """(from, to, type) of every resolved edge with an end in `document_ids`."""
    if not document_ids:
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT from_document_id, to_document_id, edge_type FROM {Edge._meta.db_table} "
            "WHERE to_document_id IS NOT NULL "
            "AND (from_document_id = ANY(%s) OR to_document_id = ANY(%s)) ORDER BY id",
            [list(document_ids), list(document_ids)],
        )
        return [(a, b, kind) for a, b, kind in cursor.fetchall()]


def expand(
    *,
    seeds: Sequence[int],
    scope: Scope,
    vector: Sequence[float] | None,
    allowed_types: Collection[str],
    max_nodes: int,
    exclude: Collection[int],
) -> list[Candidate]:
    """Best chunk of each visible accepted/review 1-hop neighbour of the canonical seeds.

    Rejected approaches are left to the injection stage, which has its own threshold.
    """
    if not seeds or max_nodes <= 0 or not allowed_types:
        return []
    # Over-select before the visibility/status check so invisible neighbours do not use
    # up the node budget.
    ids = neighbour_ids(
        edges_touching(seeds),
        seeds=seeds,
        allowed_types=allowed_types,
        exclude=exclude,
        max_nodes=max_nodes * 5,
    )
    if not ids:
        return []
    found = best_chunk_per_document(
        scope=scope,
        vector=vector,
        # Rejected approaches have their own channel (the warning block), never "related".
        where="d.id = ANY(%s) AND d.canonical_status = ANY(%s) AND d.canonical_type <> %s",
        params=(
            ids,
            [str(s) for s in EXPANDABLE_STATUSES],
            CanonicalType.REJECTED_APPROACH.value,
        ),
    )
    order = {doc_id: position for position, doc_id in enumerate(ids)}
    found.sort(key=lambda c: order[c.document_id])
    return found[:max_nodes]
