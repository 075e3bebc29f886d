"""A million chunks in one tenant (issue 14 part 3): load, build, sizes, memory, latency, recall.

    DEBUG=1 nice -n 10 .venv/bin/python benchmarks/million_bench.py --tenant bench1m \
        --chunks 1000000 --scifact ../shared/bench/scifact [--reference-queries 0]

The HNSW build uses the server's maintenance_work_mem (--hnsw-memory overrides it) and one
parallel worker (--hnsw-workers). --reference-queries 0 skips the in-process reference,
which at 1M chunks needs more than 6.5 GB of RAM (benchmarks/RESULTS.md).

Structured synthetic data, unlike retrieval_bench.py --synthetic (random vectors, Zipf words):
- vectors: unit vectors around --clusters centres (centre + Gaussian noise, cluster sizes
  log-normal), so the HNSW graph sees neighbourhoods as with real embeddings;
- text: SciFact sentences (../shared/bench/scifact), three from the abstracts tied to the
  chunk's cluster plus two from anywhere, so full-text search sees real English term
  statistics; queries are SciFact claims with a vector near a stored chunk.
N chunks (5 per document) in project structured-<N>, bulk-loaded by COPY (into a staging
table, then one INSERT computing the tsvector; its trigger writes the keyword postings) with
the indexes dropped, then HNSW, GIN, the postings' key and VACUUM ANALYZE, each timed.
Every document carries a tag
t<i % 1000>, so a filter on 1, 10 or 100 tags keeps 0.1 %, 1 % or 10 % of the chunks.
A second run reuses the loaded project (same seed, same data) and only measures searches.

Reports (JSON): load time per step, relation sizes, server (PSS, all its processes) and
benchmark-process RSS, the first keyword search (document frequencies counted), kb_prewarm,
p50/p95 per mode (hybrid, dense, keyword) interleaved, dense recall@10 against exact search
per ef_search, filtered dense latency, and the in-process reference on fewer queries.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import psutil  # type: ignore[import-untyped]

# first: retrieval_bench (beside this script) sets up Django; it holds the reference pipeline
from retrieval_bench import Reference

# isort: split
from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django_tenants.utils import schema_context  # noqa: E402

from kb.evaluation.metrics import latency_summary  # noqa: E402
from kb.models import Chunk, ChunkTerm, Document, chunk_hnsw_index, chunk_hnsw_sql  # noqa: E402
from kb.retrieval import SearchFilters, SearchResult, search  # noqa: E402
from kb.retrieval.arms import semantic_arm  # noqa: E402
from kb.retrieval.frequencies import reset_keyword_stats  # noqa: E402
from kb.retrieval.sql import Scope, vector_literal  # noqa: E402
from portal.access.models import Project  # noqa: E402
from portal.commands import acting_user  # noqa: E402

DIM = 384
PER_DOC = 5
TAGS = 1000
SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def scifact_text(root: Path) -> tuple[list[str], list[list[str]], list[str]]:
    """(titles, sentences per abstract, claims) of the SciFact corpus and queries."""
    titles, abstracts = [], []
    for line in (root / "corpus.jsonl").open():
        row = json.loads(line)
        sentences = [s.strip() for s in SENTENCE.split(row["text"]) if len(s.split()) >= 4]
        if sentences:
            titles.append(row["title"].strip())
            abstracts.append(sentences)
    claims = [json.loads(line)["text"] for line in (root / "queries.jsonl").open()]
    return titles, abstracts, claims


class Structured:
    """Deterministic clustered vectors and SciFact-sentence texts for N chunks."""

    def __init__(self, n: int, clusters: int, root: Path, seed: int = 14) -> None:
        rng = np.random.default_rng(seed)
        self.n = n
        centres = rng.standard_normal((clusters, DIM)).astype(np.float32)
        centres /= np.linalg.norm(centres, axis=1, keepdims=True)
        weights = rng.lognormal(0.0, 1.0, clusters)
        self.labels = rng.choice(clusters, size=n, p=weights / weights.sum())
        # per-dimension noise 0.045: cosine to the centre ~0.75, between cluster mates ~0.55
        self.vectors = np.empty((n, DIM), dtype=np.float32)
        for start in range(0, n, 100_000):
            end = min(start + 100_000, n)
            block = centres[self.labels[start:end]] + 0.045 * rng.standard_normal(
                (end - start, DIM)
            ).astype(np.float32)
            block /= np.linalg.norm(block, axis=1, keepdims=True)
            self.vectors[start:end] = block
        titles, abstracts, self.claims = scifact_text(root)
        everything = [s for sentences in abstracts for s in sentences]
        self.titles, self.texts = [], []
        for doc in range(n // PER_DOC):
            self.titles.append(f"{titles[int(self.labels[doc * PER_DOC]) % len(titles)]} ({doc})")
        for i in range(n):
            own = abstracts[int(self.labels[i]) % len(abstracts)]
            picks = [own[j] for j in rng.integers(0, len(own), size=3)]
            picks += [everything[j] for j in rng.integers(0, len(everything), size=2)]
            self.texts.append(" ".join(picks))
        self.rng = rng

    def queries(self, count: int) -> tuple[list[str], np.ndarray]:
        """SciFact claims, each with a vector near a stored chunk (so true neighbours exist)."""
        return structured_queries(self.n, count, self.claims, lambda picks: self.vectors[picks])


def structured_queries(
    n: int, count: int, claims: list[str], vectors_at: Callable[[np.ndarray], np.ndarray]
) -> tuple[list[str], np.ndarray]:
    """`count` SciFact claims, each with a vector near the stored chunk it picks (load order).

    `vectors_at` gives the vectors of chunks by load position: the generated ones here, the
    stored ones in anchors.py, which does not generate the corpus.
    """
    rng = np.random.default_rng(11)
    picks = rng.integers(0, n, size=count)
    noise = 0.03 * rng.standard_normal((count, DIM)).astype(np.float32)
    vectors = np.asarray(vectors_at(picks), dtype=np.float32) + noise
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    texts = [claims[int(j)] for j in rng.integers(0, len(claims), size=count)]
    return texts, vectors


class MemoryPeak:
    """Samples the database server's memory (PSS summed over its processes) in the background."""

    def __init__(self) -> None:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            backend = psutil.Process(cursor.fetchone()[0])
        self.postmaster = backend.parent()
        self.peak = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def now_mb(self) -> int:
        total = 0
        for proc in [self.postmaster, *self.postmaster.children()]:
            try:
                total += proc.memory_full_info().pss
            except psutil.Error:  # a worker that just ended
                continue
        return total // 2**20

    def __enter__(self) -> MemoryPeak:
        self.peak = self.now_mb()

        def sample() -> None:
            while not self._stop.wait(2.0):
                self.peak = max(self.peak, self.now_mb())

        self._thread = threading.Thread(target=sample, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join()


def own_rss_mb() -> dict[str, int]:
    info = psutil.Process().memory_info()
    status = Path("/proc/self/status").read_text()
    peak = re.search(r"VmHWM:\s+(\d+) kB", status)
    return {"rss_mb": info.rss // 2**20, "peak_rss_mb": int(peak.group(1)) // 1024 if peak else 0}


def load(data: Structured, project: Project, *, hnsw_memory: str, hnsw_workers: int) -> dict:
    """Bulk load with the indexes dropped, then build them; seconds per step."""
    table, doc_table = Chunk._meta.db_table, Document._meta.db_table
    term_table = ChunkTerm._meta.db_table
    steps: dict = {}
    started = time.perf_counter()
    Document.objects.filter(project=project).delete()
    docs = Document.objects.bulk_create(
        [
            Document(
                project=project,
                title=title,
                slug=f"s-{i}",
                source_path=f"s-{i}.md",
                source_type="markdown",
                content_hash=str(i),
                tags=[f"t{i % TAGS}"],
            )
            for i, title in enumerate(data.titles)
        ],
        batch_size=10_000,
    )
    steps["documents_s"] = round(time.perf_counter() - started, 1)
    notices: list[str] = []
    connection.ensure_connection()
    connection.connection.add_notice_handler(lambda d: notices.append(d.message_primary))
    with connection.cursor() as cursor:
        cursor.execute(f"DROP INDEX IF EXISTS {chunk_hnsw_index().name}")
        cursor.execute("DROP INDEX IF EXISTS kb_chunk_search_gin")
        # The keyword postings' key (kb 0005) as the migration made it: dropped for the load,
        # which fills the postings through the insert trigger, and built again in one pass.
        cursor.execute(
            "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint "
            "WHERE conrelid = %s::regclass AND contype = 'p'",
            [term_table],
        )
        key_name, key_definition = cursor.fetchone()
        cursor.execute(f"ALTER TABLE {term_table} DROP CONSTRAINT {key_name}")
        # COPY into a staging table, then one INSERT computes the tsvectors: an UPDATE after
        # COPY would leave a dead copy of every row behind (twice the heap on disk)
        cursor.execute(
            "CREATE TEMP TABLE gw_staging (document_id bigint, chunk_order int, "
            "heading_path text, text text, token_count int, embedding public.vector)"
        )
        started = time.perf_counter()
        with cursor.cursor.copy("COPY gw_staging FROM STDIN") as copy:
            for i in range(data.n):
                copy.write_row(
                    (
                        docs[i // PER_DOC].id,
                        i % PER_DOC,
                        data.titles[i // PER_DOC],
                        data.texts[i],
                        len(data.texts[i].split()),
                        vector_literal(data.vectors[i]),
                    )
                )
        steps["copy_s"] = round(time.perf_counter() - started, 1)
        print(f"  copy_s: {steps['copy_s']} s", file=sys.stderr, flush=True)
        timed = [
            (
                # the same tsvector expression as ingestion (kb/services.py)
                "insert_with_tsvector_s",
                f"INSERT INTO {table} (document_id, chunk_order, heading_path, text, "
                "overlap_chars, token_count, embedding, search_vector) "
                "SELECT document_id, chunk_order, heading_path, text, 0, token_count, "
                "embedding, to_tsvector(%s::regconfig, coalesce(heading_path, '') || ' ' || text) "
                "FROM gw_staging",
                [settings.KB["FTS_LANGUAGE"]],
            ),
            ("set", "DROP TABLE gw_staging", []),
            ("set", f"SET maintenance_work_mem = '{hnsw_memory}'" if hnsw_memory else "", []),
            ("set", f"SET max_parallel_maintenance_workers = {int(hnsw_workers)}", []),
            ("hnsw_s", chunk_hnsw_sql(), []),
            ("gin_s", f"CREATE INDEX kb_chunk_search_gin ON {table} USING gin (search_vector)", []),
            (
                "postings_key_s",
                f"ALTER TABLE {term_table} ADD CONSTRAINT {key_name} {key_definition}",
                [],
            ),
            ("analyze_s", f"VACUUM ANALYZE {table}", []),
            ("analyze_postings_s", f"VACUUM ANALYZE {term_table}", []),
            ("analyze_documents_s", f"VACUUM ANALYZE {doc_table}", []),
        ]
        with MemoryPeak() as memory:
            for name, sql, params in timed:
                started = time.perf_counter()
                if sql:
                    cursor.execute(sql, params)
                if name != "set":
                    steps[name] = round(time.perf_counter() - started, 1)
                    print(f"  {name}: {steps[name]} s", file=sys.stderr, flush=True)
                if name == "hnsw_s":
                    steps["hnsw_server_peak_pss_mb"] = memory.peak
        cursor.execute("SHOW maintenance_work_mem")
        steps["maintenance_work_mem"] = cursor.fetchone()[0]
        cursor.execute("RESET maintenance_work_mem")
        cursor.execute("RESET max_parallel_maintenance_workers")
    steps["hnsw_workers"] = hnsw_workers
    steps["notices"] = notices
    return steps


def relation_sizes() -> dict[str, int]:
    """MB on disk of the chunk table (heap, TOAST), its indexes and the document table."""
    table = Chunk._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_relation_size(%s::regclass), "
            "coalesce(pg_total_relation_size(nullif(reltoastrelid, 0)), 0), "
            "pg_total_relation_size(%s::regclass), pg_total_relation_size(%s::regclass) "
            "FROM pg_class WHERE oid = %s::regclass",
            [table, table, Document._meta.db_table, table],
        )
        heap, toast, total, documents = cursor.fetchone()
        cursor.execute(
            "SELECT indexrelid::regclass::text, pg_relation_size(indexrelid) FROM pg_index "
            "WHERE indrelid = %s::regclass",
            [table],
        )
        indexes = dict(cursor.fetchall())
        cursor.execute("SELECT current_setting('shared_buffers')")
        shared_buffers = cursor.fetchone()[0]
    mb = 2**20
    out = {"chunk_heap_mb": heap // mb, "chunk_toast_mb": toast // mb}
    out |= {f"{name}_mb": size // mb for name, size in sorted(indexes.items())}
    out |= {"chunk_total_mb": total // mb, "documents_total_mb": documents // mb}
    out["shared_buffers"] = shared_buffers
    terms = ChunkTerm._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_relation_size(%s::regclass), pg_indexes_size(%s::regclass)", [terms, terms]
        )
        term_heap, term_index = cursor.fetchone()
    out |= {"postings_heap_mb": term_heap // mb, "postings_key_mb": term_index // mb}
    return out


def chunk_ids(project: Project, n: int) -> np.ndarray:
    """Chunk ids in load order (documents were created in order, so their ids ascend)."""
    ids = np.fromiter(
        Chunk.objects.filter(document__project=project)
        .order_by("document_id", "chunk_order")
        .values_list("id", flat=True),
        dtype=np.int64,
    )
    if len(ids) != n:
        raise SystemExit(f"{project.key} holds {len(ids)} chunks, expected {n}")
    return ids


def timed_search(user, text: str, vector: np.ndarray, mode: str, filters: SearchFilters) -> float:
    return run_search(user, text, vector, mode, filters)[0]


def run_search(
    user, text: str, vector: np.ndarray, mode: str, filters: SearchFilters
) -> tuple[float, SearchResult]:
    """Our search as the benchmarks time it: ms and the result (query vector given)."""
    started = time.perf_counter()
    result = search(user=user, query=text, mode=mode, filters=filters, query_vector=vector.tolist())
    return (time.perf_counter() - started) * 1000, result


def measure(data: Structured, project: Project, user, args: argparse.Namespace) -> dict:
    out: dict = {}
    filters = SearchFilters(project_keys=(project.key,))
    texts, qvecs = data.queries(max(args.queries, args.recall_queries))
    # 1. first keyword search after a start: document frequencies rebuilt from every chunk
    reset_keyword_stats()
    first = timed_search(user, texts[0], qvecs[0], "keyword", filters)
    second = timed_search(user, texts[1], qvecs[1], "keyword", filters)
    out["keyword_first_search_ms"] = round(first, 1)
    out["keyword_second_search_ms"] = round(second, 1)
    # 2. kb_prewarm (pg_prewarm when the server has it)
    started = time.perf_counter()
    call_command("kb_prewarm", tenant=[args.tenant], stdout=sys.stderr)
    out["prewarm_s"] = round(time.perf_counter() - started, 1)
    # 3. p50/p95 per mode, interleaved query by query in rotating order
    modes = ["hybrid", "dense", "keyword"]
    samples: dict[str, list[float]] = {m: [] for m in modes}
    for i in range(args.queries):
        order = modes[i % 3 :] + modes[: i % 3]
        for mode in order:
            elapsed = timed_search(user, texts[i], qvecs[i], mode, filters)
            if i >= 5:  # warm-up
                samples[mode].append(elapsed)
    out["latency"] = {m: latency_summary(v) for m, v in samples.items()}
    out["latency"]["queries"] = args.queries
    # 4. dense-arm recall@10 against exact search (all chunks are in the one project)
    ids = chunk_ids(project, data.n)
    if args.recall_queries:  # 0 skips it
        scope = Scope.for_documents(Document.objects.visible_filtered(user, filters))
        exact = []
        for vec in qvecs[: args.recall_queries]:
            scores = data.vectors @ vec
            exact.append(set(ids[np.argpartition(-scores, 10)[:10]].tolist()))
        recall = {}
        for ef in sorted({40, settings.KB["HNSW_EF_SEARCH"], 100, 200, 400}):
            found, took = 0, []
            for vec, truth in zip(qvecs[: args.recall_queries], exact, strict=True):
                started = time.perf_counter()
                hits = semantic_arm(vector=vec.tolist(), scope=scope, k=10, ef_search=ef)
                took.append((time.perf_counter() - started) * 1000)
                found += len(truth & {h.chunk_id for h in hits})
            recall[f"ef_search={ef}"] = {
                "recall@10": round(found / (10 * len(exact)), 3),
                **latency_summary(took),
            }
        out["dense_recall"] = recall
        out["dense_recall"]["queries"] = len(exact)
    # 5. narrow filters: the HNSW scan finds too few visible rows, the exact scan takes over
    if args.filter_queries:  # 0 skips it
        filtered = {}
        for tags in (1, 10, 100):
            narrow = SearchFilters(
                project_keys=(project.key,), tags=tuple(f"t{t}" for t in range(tags))
            )
            took = [
                timed_search(user, texts[i], qvecs[i], "dense", narrow)
                for i in range(args.filter_queries)
            ]
            filtered[f"{tags / TAGS:.1%} of chunks"] = latency_summary(took)
        out["dense_filtered"] = filtered
    out["rss_after_search"] = own_rss_mb()
    # the reference holds every chunk in process memory: print what we have first
    print(json.dumps(out), file=sys.stderr, flush=True)
    # 6. the in-process reference, built from the same rows, on fewer queries
    if args.reference_queries:
        started = time.perf_counter()
        headed = [f"{data.titles[i // PER_DOC]}\n{data.texts[i]}" for i in range(data.n)]
        reference = Reference(ids.tolist(), headed, data.vectors)
        del headed
        build = time.perf_counter() - started
        took = []
        for i in range(args.reference_queries):
            started = time.perf_counter()
            reference.search(texts[i], qvecs[i].tolist())
            took.append((time.perf_counter() - started) * 1000)
        out["reference_rrf"] = {
            "build_s": round(build, 1),
            "queries": args.reference_queries,
            **latency_summary(took),
            **own_rss_mb(),
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tenant", required=True)
    parser.add_argument("--chunks", type=int, default=1_000_000)
    parser.add_argument("--clusters", type=int, default=2000)
    parser.add_argument("--scifact", type=Path, default=Path("../shared/bench/scifact"))
    parser.add_argument(
        "--hnsw-memory", default="", help="maintenance_work_mem of the build (default: server's)"
    )
    parser.add_argument("--hnsw-workers", type=int, default=1, help="parallel build workers")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--recall-queries", type=int, default=100)
    parser.add_argument("--filter-queries", type=int, default=20)
    parser.add_argument("--reference-queries", type=int, default=20, help="0 skips it")
    parser.add_argument("--reload", action="store_true", help="load again even if present")
    args = parser.parse_args()
    report: dict = {"chunks": args.chunks, "clusters": args.clusters}
    started = time.perf_counter()
    data = Structured(args.chunks, args.clusters, args.scifact)
    report["generate_s"] = round(time.perf_counter() - started, 1)
    print(f"generated {args.chunks} chunks in {report['generate_s']} s", file=sys.stderr)
    with schema_context(args.tenant):
        user = acting_user(None)
        key = f"structured-{args.chunks}"
        project, _ = Project.objects.get_or_create(key=key, defaults={"name": key})
        present = Chunk.objects.filter(document__project=project).count()
        if args.reload or present != args.chunks:
            report["load"] = load(
                data, project, hnsw_memory=args.hnsw_memory, hnsw_workers=args.hnsw_workers
            )
        report["sizes"] = relation_sizes()
        with MemoryPeak() as memory:
            report["search"] = measure(data, project, user, args)
        report["server_pss_mb"] = {"peak_during_search": memory.peak, "after": memory.now_mb()}
        report["benchmark_process"] = own_rss_mb()
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
