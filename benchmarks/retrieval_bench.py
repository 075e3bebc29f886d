"""Retrieval latency and quality against the playbook's reference pipeline.

    EMBEDDED_DB_DIR=... DEBUG=1 .venv/bin/python benchmarks/retrieval_bench.py \
        --tenant bench [--scifact ../shared/bench/scifact] [--synthetic 100000]

--scifact: the BEIR project ingested by `kb_benchmark --beir` (run that first). Our pipeline
(kb.retrieval.search, hybrid/dense/keyword) and the reference (FAISS IndexFlatIP over the
same chunk vectors + rank_bm25 BM25Okapi on lowercased word tokens + RRF k=60, in process)
on the same chunks and queries; latency excludes the query embedding (vectors up front).
--synthetic N: N random unit-vector chunks with Zipf-distributed texts, loaded with COPY
into project synthetic-<N> of the tenant; p50/p95 of each mode and of the reference.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")

import django  # noqa: E402

django.setup()

import numpy as np  # noqa: E402
from django.db import connection  # noqa: E402
from django_tenants.utils import schema_context  # noqa: E402

from kb.evaluation.datasets import load_beir  # noqa: E402
from kb.evaluation.metrics import doc_run, evaluate, latency_summary  # noqa: E402
from kb.evaluation.runner import embed_queries, run_modes  # noqa: E402
from kb.models import Chunk, Document  # noqa: E402
from kb.retrieval import SearchFilters, search  # noqa: E402
from kb.retrieval.arms import vector_literal  # noqa: E402
from portal.access.models import Project  # noqa: E402
from portal.commands import acting_user  # noqa: E402

WORD = re.compile(r"\w+")


def tokens(text: str) -> list[str]:
    return WORD.findall(text.lower())


class Reference:
    """The retrieval playbook's pipeline: FAISS flat IP + BM25Okapi + RRF (k=60), in process."""

    def __init__(self, ids: list[int], texts: list[str], vectors: np.ndarray) -> None:
        import faiss
        from rank_bm25 import BM25Okapi

        self.ids = ids
        self.index = faiss.IndexFlatIP(vectors.shape[1])
        self.index.add(vectors.astype(np.float32))
        self.bm25 = BM25Okapi([tokens(t) for t in texts])

    def search(self, query: str, vector: list[float], *, k_dense=50, k_sparse=50, out_k=100):
        _, found = self.index.search(np.asarray([vector], dtype=np.float32), k_dense)
        scores = self.bm25.get_scores(tokens(query))
        sparse = np.argsort(-scores)[:k_sparse]
        fused: dict[int, float] = {}
        for ranking in (found[0], sparse):
            for rank, idx in enumerate(ranking, start=1):
                fused[int(idx)] = fused.get(int(idx), 0.0) + 1.0 / (60 + rank)
        best = sorted(fused.items(), key=lambda kv: -kv[1])[:out_k]
        return [self.ids[idx] for idx, _ in best]


def load_chunks(project: Project) -> tuple[list[int], list[int], list[str], np.ndarray]:
    rows = list(
        Chunk.objects.filter(document__project=project, document__deleted_at__isnull=True)
        .order_by("id")
        .values_list("id", "document_id", "heading_path", "text", "embedding")
    )
    ids = [r[0] for r in rows]
    doc_ids = [r[1] for r in rows]
    texts = [f"{r[2]}\n{r[3]}" for r in rows]
    vectors = np.asarray([np.asarray(r[4], dtype=np.float32) for r in rows])
    return ids, doc_ids, texts, vectors


def bench_scifact(root: Path, user, split: str) -> dict:
    dataset = load_beir(root, split=split)
    project = Project.objects.get(key=f"beir-{dataset.name}")
    id_map = dict(Document.objects.filter(project=project).values_list("id", "source_path"))
    id_map = {k: v.removesuffix(".md") for k, v in id_map.items()}
    ids, doc_ids, texts, vectors = load_chunks(project)
    chunk_doc = dict(zip(ids, doc_ids, strict=True))
    print(f"scifact: {len(ids)} chunks of {len(id_map)} documents", file=sys.stderr)
    queries = dataset.queries
    qvec = embed_queries(queries)
    ours = run_modes(
        user=user,
        queries=queries,
        doc_key=lambda hit: id_map.get(hit.document_id, "?"),
        filters=SearchFilters(project_keys=(project.key,)),
    )
    reference = Reference(ids, texts, vectors)
    run, latencies = {}, []
    for q in queries:
        started = time.perf_counter()
        vector = qvec[q.qid]
        if vector is None:
            continue  # the query could not be embedded: nothing to compare
        ranked = reference.search(q.text, vector)
        latencies.append((time.perf_counter() - started) * 1000)
        run[q.qid] = doc_run([id_map[chunk_doc[c]] for c in ranked])
    qrels = {q.qid: q.relevant for q in queries}
    ref = evaluate(qrels, run)
    ref.update(latency_summary(latencies))
    return {
        "chunks": len(ids),
        "queries": len(queries),
        "ours": ours,
        "reference_rrf": ref,
        "ratio_hybrid_over_reference": {
            "ndcg@10": round(ours["hybrid"]["ndcg@10"] / max(ref["ndcg@10"], 1e-9), 3),
            "p50_ms": round(ours["hybrid"]["p50_ms"] / max(ref["p50_ms"], 1e-9), 3),
        },
    }


def _vocabulary(size: int, rng: np.random.Generator) -> list[str]:
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(letters, size=int(rng.integers(4, 10)))))
    return sorted(words)


def load_synthetic(n: int, *, seed: int = 7) -> tuple[Project, np.ndarray, list[str]]:
    """N chunks (5 per document) with random unit vectors and Zipf texts, bulk-loaded by COPY."""
    rng = np.random.default_rng(seed)
    key = f"synthetic-{n}"
    project, created = Project.objects.get_or_create(key=key, defaults={"name": key})
    vocab = _vocabulary(20_000, rng)
    existing = Chunk.objects.filter(document__project=project).count()
    vectors = rng.standard_normal((n, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    if existing == n:
        return project, vectors, vocab
    Document.objects.filter(project=project).delete()
    per_doc = 5
    docs = Document.objects.bulk_create(
        [
            Document(
                project=project,
                title=f"Synthetic {i}",
                slug=f"syn-{i}",
                source_path=f"syn-{i}.md",
                source_type="markdown",
                content_hash=str(i),
            )
            for i in range(n // per_doc)
        ],
        batch_size=5000,
    )
    table = Chunk._meta.db_table
    ranks = rng.zipf(1.3, size=(n, 60))
    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute("DROP INDEX IF EXISTS kb_chunk_embedding_hnsw")
        with cursor.cursor.copy(
            f"COPY {table} (document_id, chunk_order, heading_path, text, overlap_chars, "
            "token_count, embedding) FROM STDIN"
        ) as copy:
            for i in range(n):
                words = [vocab[min(r, len(vocab)) - 1] for r in ranks[i]]
                copy.write_row(
                    (
                        docs[i // per_doc].id,
                        i % per_doc,
                        f"Synthetic {i // per_doc}",
                        " ".join(words),
                        0,
                        60,
                        vector_literal(vectors[i]),
                    )
                )
        cursor.execute(
            f"UPDATE {table} c SET search_vector = to_tsvector('english', "
            "coalesce(c.heading_path, '') || ' ' || c.text) FROM kb_document d "
            "WHERE d.id = c.document_id AND d.project_id = %s",
            [project.id],
        )
        cursor.execute("SET maintenance_work_mem = '512MB'")
        cursor.execute(
            f"CREATE INDEX kb_chunk_embedding_hnsw ON {table} USING hnsw "
            "(embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)"
        )
        cursor.execute(f"ANALYZE {table}")
        cursor.execute(f"ANALYZE {Document._meta.db_table}")
    print(f"loaded {n} chunks in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return project, vectors, vocab


def bench_synthetic(n: int, user, queries: int = 200) -> dict:
    project, vectors, vocab = load_synthetic(n)
    rng = np.random.default_rng(11)
    filters = SearchFilters(project_keys=(project.key,))
    picks = rng.integers(0, n, size=queries)
    qvecs = vectors[picks] + 0.08 * rng.standard_normal((queries, 384)).astype(np.float32)
    qvecs /= np.linalg.norm(qvecs, axis=1, keepdims=True)
    texts = [" ".join(rng.choice(vocab[:3000], size=6)) for _ in range(queries)]
    out: dict = {"chunks": n, "queries": queries}
    for mode in ("hybrid", "dense", "keyword"):
        samples = []
        for text, vec in zip(texts, qvecs, strict=True):
            started = time.perf_counter()
            search(user=user, query=text, mode=mode, filters=filters, query_vector=vec.tolist())
            samples.append((time.perf_counter() - started) * 1000)
        out[mode] = latency_summary(samples[5:])  # first queries warm caches
    ids, _, chunk_texts, chunk_vectors = load_chunks(project)
    reference = Reference(ids, chunk_texts, chunk_vectors)
    samples = []
    for text, vec in zip(texts[:50], qvecs[:50], strict=True):
        started = time.perf_counter()
        reference.search(text, vec.tolist())
        samples.append((time.perf_counter() - started) * 1000)
    out["reference_rrf"] = latency_summary(samples)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tenant", required=True)
    parser.add_argument("--scifact", type=Path)
    parser.add_argument("--split", default="test")
    parser.add_argument("--synthetic", type=int, default=0)
    args = parser.parse_args()
    report: dict = {}
    with schema_context(args.tenant):
        user = acting_user(None)
        if args.scifact:
            report["scifact"] = bench_scifact(args.scifact, user, args.split)
        if args.synthetic:
            report[f"synthetic_{args.synthetic}"] = bench_synthetic(args.synthetic, user)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
