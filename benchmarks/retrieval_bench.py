"""Retrieval latency and quality against the playbook's reference pipeline.

    EMBEDDED_DB_DIR=... DEBUG=1 .venv/bin/python benchmarks/retrieval_bench.py \
        --tenant bench [--scifact ../shared/bench/scifact] [--goldset F] [--synthetic 100000]

--scifact: the BEIR project ingested by `kb_benchmark --beir` (run that first). Our pipeline
(kb.retrieval.search, hybrid/dense/keyword) and the reference (FAISS IndexFlatIP over the
same chunk vectors + rank_bm25 BM25Okapi on lowercased word tokens + RRF k=60, in process)
on the same chunks and queries; latency excludes the query embedding (vectors up front).
--goldset FILE [--project handbook]: the same on a gold set (relevant documents by slug) of an
ingested project (`kb_ingest kb/demo_corpus/handbook --tenant T --project handbook`).
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

from django.conf import settings as django_settings  # noqa: E402

# DEBUG=1 only lets the script start without a SECRET_KEY; measure as a production server
# runs (debug cursors record every statement, which costs time on every search).
django_settings.DEBUG = False

import numpy as np  # noqa: E402
from django.db import connection  # noqa: E402
from django_tenants.utils import schema_context  # noqa: E402

from kb.evaluation.datasets import load_beir, load_goldset  # noqa: E402
from kb.evaluation.metrics import doc_run, evaluate, latency_summary  # noqa: E402
from kb.evaluation.runner import embed_queries, run_modes  # noqa: E402
from kb.models import Chunk, Document, chunk_hnsw_index, chunk_hnsw_sql  # noqa: E402
from kb.retrieval import SearchFilters, search  # noqa: E402
from kb.retrieval.sql import vector_literal  # noqa: E402
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


def bench_queries(queries, project: Project, doc_key: dict[int, str], user) -> dict:
    """Ours (3 modes) and the reference on the same chunks and queries of one project."""
    ids, doc_ids, texts, vectors = load_chunks(project)
    chunk_doc = dict(zip(ids, doc_ids, strict=True))
    print(f"{project.key}: {len(ids)} chunks of {len(doc_key)} documents", file=sys.stderr)
    qvec = embed_queries(queries)
    ours = run_modes(
        user=user,
        queries=queries,
        doc_key=lambda hit: doc_key.get(hit.document_id, "?"),
        filters=SearchFilters(project_keys=(project.key,)),
        vectors=qvec,
    )
    reference = Reference(ids, texts, vectors)
    judged = [q for q in queries if q.relevant and not q.expect_refusal]
    run, latencies = {}, []
    for q in judged:
        started = time.perf_counter()
        vector = qvec[q.qid]
        if vector is None:
            continue  # the query could not be embedded: nothing to compare
        ranked = reference.search(q.text, vector)
        latencies.append((time.perf_counter() - started) * 1000)
        run[q.qid] = doc_run([doc_key[chunk_doc[c]] for c in ranked])
    qrels = {q.qid: q.relevant for q in judged}
    ref = evaluate(qrels, run)
    ref.update(latency_summary(latencies))
    return {
        "chunks": len(ids),
        "queries": len(judged),
        "ours": ours,
        "reference_rrf": ref,
        "ratio_hybrid_over_reference": {
            "ndcg@10": round(ours["hybrid"]["ndcg@10"] / max(ref["ndcg@10"], 1e-9), 3),
            "p50_ms": round(ours["hybrid"]["p50_ms"] / max(ref["p50_ms"], 1e-9), 3),
        },
    }


def bench_scifact(root: Path, user, split: str) -> dict:
    dataset = load_beir(root, split=split)
    project = Project.objects.get(key=f"beir-{dataset.name}")
    id_map = dict(Document.objects.filter(project=project).values_list("id", "source_path"))
    id_map = {k: v.removesuffix(".md") for k, v in id_map.items()}
    return bench_queries(dataset.queries, project, id_map, user)


def bench_goldset(path: Path, project_key: str, user) -> dict:
    """The demo gold set (relevant documents named by slug) on its ingested project."""
    project = Project.objects.get(key=project_key)
    slugs = dict(Document.objects.alive().filter(project=project).values_list("id", "slug"))
    return bench_queries(load_goldset(path), project, slugs, user)


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
        cursor.execute(f"DROP INDEX IF EXISTS {chunk_hnsw_index().name}")
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
        # one core for the build: the benchmark machine is shared
        cursor.execute("SET max_parallel_maintenance_workers = 0")
        cursor.execute(chunk_hnsw_sql())
        cursor.execute(f"ANALYZE {table}")
        cursor.execute(f"ANALYZE {Document._meta.db_table}")
    print(f"loaded {n} chunks in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return project, vectors, vocab


def bench_synthetic(n: int, user, queries: int = 200, reference_queries: int = 50) -> dict:
    """p50/p95 per mode and of the reference, interleaved query by query (rotating order), so
    load drift on a shared machine hits every pipeline alike; the ratio is the robust number.
    hybrid_sequential is hybrid with KB_PARALLEL_ARMS off (the arms one after the other)."""
    from django.conf import settings

    project, vectors, vocab = load_synthetic(n)
    rng = np.random.default_rng(11)
    filters = SearchFilters(project_keys=(project.key,))
    picks = rng.integers(0, n, size=queries)
    qvecs = vectors[picks] + 0.08 * rng.standard_normal((queries, 384)).astype(np.float32)
    qvecs /= np.linalg.norm(qvecs, axis=1, keepdims=True)
    texts = [" ".join(rng.choice(vocab[:3000], size=6)) for _ in range(queries)]
    ids, _, chunk_texts, chunk_vectors = load_chunks(project)
    reference = Reference(ids, chunk_texts, chunk_vectors)
    del chunk_vectors
    base = dict(settings.KB)
    runs = {
        "hybrid": ("hybrid", {}),
        "hybrid_sequential": ("hybrid", {"PARALLEL_ARMS": False}),
        "dense": ("dense", {}),
        "keyword": ("keyword", {}),
    }
    samples: dict[str, list[float]] = {name: [] for name in [*runs, "reference_rrf"]}
    warmup = 5
    for i, (text, vec) in enumerate(zip(texts, qvecs, strict=True)):
        names = list(runs)
        if i < reference_queries:
            names.append("reference_rrf")
        names = names[i % len(names) :] + names[: i % len(names)]
        for name in names:
            started = time.perf_counter()
            if name == "reference_rrf":
                reference.search(text, vec.tolist())
            else:
                mode, override = runs[name]
                settings.KB = {**base, **override}
                search(user=user, query=text, mode=mode, filters=filters, query_vector=vec.tolist())
            elapsed = (time.perf_counter() - started) * 1000
            if i >= warmup or name == "reference_rrf":
                samples[name].append(elapsed)
    settings.KB = base
    out: dict = {"chunks": n, "queries": queries, "reference_queries": reference_queries}
    for name, values in samples.items():
        out[name] = latency_summary(values)
    out["ratio_hybrid_over_reference_p50"] = round(
        out["hybrid"]["p50_ms"] / max(out["reference_rrf"]["p50_ms"], 1e-9), 3
    )
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tenant", required=True)
    parser.add_argument("--scifact", type=Path)
    parser.add_argument("--split", default="test")
    parser.add_argument("--synthetic", type=int, default=0)
    parser.add_argument("--goldset", type=Path, help="gold-set JSONL (slugs), with --project")
    parser.add_argument("--project", default="handbook")
    args = parser.parse_args()
    report: dict = {}
    with schema_context(args.tenant):
        user = acting_user(None)
        if args.scifact:
            report["scifact"] = bench_scifact(args.scifact, user, args.split)
        if args.goldset:
            report["goldset"] = bench_goldset(args.goldset, args.project, user)
        if args.synthetic:
            report[f"synthetic_{args.synthetic}"] = bench_synthetic(args.synthetic, user)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
