"""Run evaluation queries through kb.retrieval.search in each mode and score the rankings."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from kb.embeddings import EmbeddingError, get_embedder
from kb.evaluation.datasets import EvalQuery
from kb.evaluation.metrics import doc_run, evaluate, latency_summary
from kb.retrieval import SearchFilters, search
from kb.retrieval.types import SearchHit

EVAL_MODES: tuple[str, ...] = ("hybrid", "dense", "keyword")


def embed_queries(queries: Sequence[EvalQuery]) -> dict[str, list[float] | None]:
    """Query vectors up front, so measured latency excludes the embedding call."""
    embedder = get_embedder()
    out: dict[str, list[float] | None] = {}
    for q in queries:
        try:
            out[q.qid] = embedder.embed_query(q.text)
        except EmbeddingError:
            out[q.qid] = None
    return out


def run_modes(
    *,
    user: Any,
    queries: Sequence[EvalQuery],
    doc_key: Callable[[SearchHit], str],
    k: int = 10,
    modes: Sequence[str] = EVAL_MODES,
    filters: SearchFilters | None = None,
    min_similarity: float | None = None,
    deep_k: int = 100,
    progress: Callable[[str, int], None] | None = None,
    vectors: dict[str, list[float] | None] | None = None,
) -> dict[str, dict[str, float]]:
    """Per mode: ndcg@10, mrr@10, recall@10, hit@8 from top-`k` searches (timed), recall@100
    from a second pass at top-`deep_k`. Ranking = primary then runner-ups, doc score = max.
    `vectors` (qid -> query vector) skips embedding the queries again (sweeps)."""
    judged = [q for q in queries if q.relevant and not q.expect_refusal]
    vectors = vectors if vectors is not None else embed_queries(queries)
    qrels = {q.qid: q.relevant for q in judged}
    results: dict[str, dict[str, float]] = {}
    for mode in modes:
        run: dict[str, dict[str, float]] = {}
        deep_run: dict[str, dict[str, float]] = {}
        latencies: list[float] = []
        refusals = 0
        for q in queries:
            started = time.perf_counter()
            result = search(
                user=user,
                query=q.text,
                limit=k,
                filters=filters,
                min_similarity=min_similarity,
                mode=mode,
                query_vector=vectors.get(q.qid),
            )
            latencies.append((time.perf_counter() - started) * 1000)
            if q.expect_refusal:
                refusals += not result.primary
                continue
            ranked = [*result.primary, *result.runner_up]
            run[q.qid] = doc_run([doc_key(hit) for hit in ranked])
            if deep_k > k:
                deep = search(
                    user=user,
                    query=q.text,
                    limit=deep_k,
                    filters=filters,
                    min_similarity=min_similarity,
                    mode=mode,
                    query_vector=vectors.get(q.qid),
                )
                deep_run[q.qid] = doc_run([doc_key(h) for h in [*deep.primary, *deep.runner_up]])
            if progress:
                progress(mode, 1)
        metrics = evaluate(qrels, run, names=("ndcg@10", "mrr@10", "recall@10", "hit@8"))
        metrics["recall@100"] = evaluate(qrels, deep_run or run, names=("recall@100",))[
            "recall@100"
        ]
        metrics.update(latency_summary(latencies))
        if any(q.expect_refusal for q in queries):
            metrics["refusal_queries"] = sum(q.expect_refusal for q in queries)
            metrics["refusal_no_primary"] = refusals
        results[mode] = metrics
    return results
