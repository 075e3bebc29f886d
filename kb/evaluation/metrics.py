"""Ranking metrics through ir-measures (not hand-rolled), averaged over every judged query."""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence

import ir_measures

MEASURES = {
    "ndcg@10": ir_measures.parse_measure("nDCG@10"),
    "mrr@10": ir_measures.parse_measure("RR@10"),
    "recall@10": ir_measures.parse_measure("R@10"),
    "recall@100": ir_measures.parse_measure("R@100"),
    "hit@8": ir_measures.parse_measure("Success@8"),
}


def doc_run(ranked_keys: Sequence[str]) -> dict[str, float]:
    """Chunk-level hits -> document scores: a document takes its best (first) position."""
    run: dict[str, float] = {}
    for position, key in enumerate(ranked_keys):
        if key not in run:
            run[key] = float(len(ranked_keys) - position)
    return run


def evaluate(
    qrels: Mapping[str, Mapping[str, int]],
    run: Mapping[str, Mapping[str, float]],
    *,
    names: Sequence[str] = tuple(MEASURES),
) -> dict[str, float]:
    """Mean of each metric over all judged queries; a query with no hits scores 0."""
    measures = [MEASURES[name] for name in names]
    qrels_list = [
        ir_measures.Qrel(qid, doc, grade)
        for qid, docs in qrels.items()
        for doc, grade in docs.items()
    ]
    run_list = [
        ir_measures.ScoredDoc(qid, doc, score)
        for qid, docs in run.items()
        if qid in qrels
        for doc, score in docs.items()
    ]
    totals = {name: 0.0 for name in names}
    by_measure = {MEASURES[name]: name for name in names}
    for metric in ir_measures.iter_calc(measures, qrels_list, run_list):
        totals[by_measure[metric.measure]] += float(metric.value)
    count = max(1, len(qrels))
    return {name: round(total / count, 4) for name, total in totals.items()}


def percentile(values: Sequence[float], pct: float) -> float:
    """The pct-th percentile (nearest-rank on sorted values; 0 for no values)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(pct / 100 * (len(ordered) - 1))))
    return ordered[index]


def latency_summary(samples_ms: Sequence[float]) -> dict[str, float]:
    return {
        "p50_ms": round(statistics.median(samples_ms), 2) if samples_ms else 0.0,
        "p95_ms": round(percentile(samples_ms, 95), 2),
    }
