"""Anchors in the same run (issue #32 part 2): Tantivy and bm25s beside our search.

    EMBEDDED_DB_DIR=... DEBUG=1 nice -n 10 .venv/bin/python benchmarks/anchors.py \
        --tenant bench100k --chunks 100000 --scifact ../shared/bench/scifact \
        [--queries 200] [--load-report <million_bench's JSON output of the load>]

Needs the bench extras (tantivy, bm25s, PyStemmer) and project structured-<N> of the tenant,
loaded by `million_bench.py --tenant T --chunks N` (run that first).

The anchors index the texts our keyword arm indexes: every chunk of the project, heading and
text as ingestion joins them (kb/services.py), read from the database in chunk id order
through a server-side cursor (one text in memory at a time). Both analyse words as our
`english` text-search configuration does: lower case, PostgreSQL's own stop list (read from
the server), the Snowball English stemmer (Tantivy's stemmer filter, PyStemmer for bm25s).
- Tantivy: an index on disk (the chunk id stored, the text indexed with term frequencies,
  no positions), the writer's defaults (threads, 128 MB heap); the claim goes through the
  index's query parser with its syntax characters replaced by spaces, OR semantics, BM25.
- bm25s: the numpy backend, BM25 with Lucene's k1 1.2 / b 0.75 (Tantivy's), built in
  memory, saved to disk for its size.
Queries are million_bench's (SciFact claims, each with a vector near a stored chunk, read
from the database); per query, in rotating order: ours hybrid, dense and keyword (the same
call million_bench times, visibility included), Tantivy, bm25s; top k = KB DEFAULT_LIMIT
(8); the first 5 queries are warm-up. overlap@k: the share of our keyword top k that
Tantivy's top k holds (our list is fused and diversified, at most 3 chunks per document,
so it is not a BM25 list; the anchors' own overlap shows they search the same texts).

Reports (JSON on stdout, a Markdown table on stderr): p50/p95 per engine and mode, build
time (the anchors' include reading the texts, also reported alone; ours from the load
report), disk, the process's resident memory added by each anchor's build (held after it,
and the peak during it), our relations' sizes.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
import time
from array import array
from collections.abc import Iterator
from pathlib import Path

import numpy as np

# first: million_bench (beside this script) sets up Django through retrieval_bench
from million_bench import (
    chunk_ids,
    own_rss_mb,
    relation_sizes,
    run_search,
    scifact_text,
    structured_queries,
)

# isort: split
import bm25s  # noqa: E402
import Stemmer  # noqa: E402
import tantivy  # noqa: E402
from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django_tenants.utils import schema_context  # noqa: E402

from kb.evaluation.metrics import latency_summary  # noqa: E402
from kb.models import Chunk  # noqa: E402
from kb.retrieval import SearchFilters  # noqa: E402
from portal.access.models import Project  # noqa: E402
from portal.commands import acting_user  # noqa: E402

WARMUP = 5
ANALYZER = "gw_english"
# Tantivy's simple tokenizer splits on anything not alphanumeric; bm25s gets the same rule
# (its default drops one-letter words).
WORD = r"[^\W_]+"
QUERY_SYNTAX = re.compile(r"[\W_]+")
ENGINES = ["ours hybrid", "ours dense", "ours keyword", "tantivy", "bm25s"]
MB = 2**20


def postgres_stop_words(language: str) -> list[str]:
    """The stop list of the server's `<language>_stem` dictionary, the one our search uses."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT dictinitoption FROM pg_ts_dict WHERE dictname = %s", [f"{language}_stem"]
        )
        row = cursor.fetchone()
        found = re.search(r"stopwords\s*=\s*'(\w+)'", row[0]) if row else None
        if not found:
            raise SystemExit(f"no stop list for the {language}_stem dictionary")
        # pg_read_file and pg_config need a superuser (the embedded server's user is one)
        cursor.execute(
            "SELECT pg_read_file(setting || '/tsearch_data/' || %s || '.stop') "
            "FROM pg_config WHERE name = 'SHAREDIR'",
            [found.group(1)],
        )
        return cursor.fetchone()[0].split()


def chunk_texts(project: Project) -> Iterator[tuple[int, str]]:
    """(chunk id, heading + text) of every chunk of the project, in id order, streamed."""
    rows = (
        Chunk.objects.filter(document__project=project)
        .order_by("id")
        .values_list("id", "heading_path", "text")
    )
    # inside a transaction the server-side cursor is not WITH HOLD: rows are not copied
    # out on the server before the first one arrives
    with transaction.atomic():
        for chunk_id, heading, text in rows.iterator(chunk_size=5000):
            yield chunk_id, f"{heading or ''} {text}"  # as to_tsvector sees it at ingestion


def stored_vectors(ids: np.ndarray, picks: np.ndarray) -> np.ndarray:
    """The stored vectors of the chunks at load positions `picks`."""
    wanted = [int(ids[p]) for p in picks]
    found = dict(Chunk.objects.filter(id__in=wanted).values_list("id", "embedding"))
    return np.stack([np.asarray(found[i], dtype=np.float32) for i in wanted])


def reset_peak_rss() -> None:
    """Start VmHWM (peak resident memory) again from the current RSS (Linux 4.0+)."""
    Path("/proc/self/clear_refs").write_text("5")


def disk_mb(path: Path) -> float:
    return round(sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / MB, 1)


class Measured:
    """Seconds and the process's resident memory added (held after, peak during)."""

    def __enter__(self) -> Measured:
        reset_peak_rss()
        self.rss_before = own_rss_mb()["rss_mb"]
        self.started = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = round(time.perf_counter() - self.started, 1)
        now = own_rss_mb()
        self.held_mb = now["rss_mb"] - self.rss_before
        self.peak_mb = now["peak_rss_mb"] - self.rss_before

    def report(self) -> dict:
        return {"build_s": self.seconds, "rss_held_mb": self.held_mb, "rss_peak_mb": self.peak_mb}


class TantivyAnchor:
    def __init__(self, path: Path, stop_words: list[str]) -> None:
        schema = (
            tantivy.SchemaBuilder()
            .add_unsigned_field("chunk_id", stored=True)
            .add_text_field("text", tokenizer_name=ANALYZER, index_option="freq")
            .build()
        )
        self.index = tantivy.Index(schema, path=str(path), reuse=False)
        analyzer = (
            tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
            .filter(tantivy.Filter.remove_long(40))  # Tantivy's default analyzer does too
            .filter(tantivy.Filter.lowercase())
            .filter(tantivy.Filter.custom_stopword(stop_words))
            .filter(tantivy.Filter.stemmer("english"))
            .build()
        )
        self.index.register_tokenizer(ANALYZER, analyzer)

    def build(self, rows: Iterator[tuple[int, str]]) -> np.ndarray:
        """Index the rows; their chunk ids in order."""
        ids = array("q")
        writer = self.index.writer()
        for chunk_id, text in rows:
            document = tantivy.Document()
            document.add_unsigned("chunk_id", chunk_id)
            document.add_text("text", text)
            writer.add_document(document)
            ids.append(chunk_id)
        writer.commit()
        writer.wait_merging_threads()
        self.index.reload()
        self.searcher = self.index.searcher()
        return np.frombuffer(ids, dtype=np.int64)

    def search(self, text: str, k: int) -> list[int]:
        words = QUERY_SYNTAX.sub(" ", text).lower().strip()  # lower case: no AND/OR/NOT
        if not words:
            return []
        query = self.index.parse_query(words, ["text"])  # OR of the terms by default
        hits = self.searcher.search(query, limit=k).hits
        return [self.searcher.doc(address)["chunk_id"][0] for _, address in hits]


class Bm25sAnchor:
    def __init__(self, stop_words: list[str]) -> None:
        self.tokenizer = bm25s.tokenization.Tokenizer(
            splitter=WORD, stopwords=stop_words, stemmer=Stemmer.Stemmer("english")
        )
        self.retriever = bm25s.BM25(k1=1.2, b=0.75)

    def build(self, rows: Iterator[tuple[int, str]]) -> np.ndarray:
        """Index the rows; their chunk ids in order."""
        ids = array("q")

        def texts() -> Iterator[str]:
            for chunk_id, text in rows:
                ids.append(chunk_id)
                yield text

        tokens = list(self.tokenizer.streaming_tokenize(texts()))
        corpus = bm25s.tokenization.Tokenized(ids=tokens, vocab=self.tokenizer.get_vocab_dict())
        self.retriever.index(corpus, show_progress=False)
        self.chunk_ids = np.frombuffer(ids, dtype=np.int64)
        return self.chunk_ids

    def save(self, path: Path) -> None:
        self.retriever.save(str(path), show_progress=False)
        self.tokenizer.save_vocab(str(path))  # the queries need it

    def search(self, text: str, k: int) -> list[int]:
        query = self.tokenizer.tokenize(
            [text], update_vocab=False, return_as="ids", show_progress=False
        )
        found, _scores = self.retriever.retrieve(query, k=k, show_progress=False)
        return self.chunk_ids[found[0]].tolist()


def build_anchors(project: Project, workdir: Path) -> tuple[TantivyAnchor, Bm25sAnchor, dict]:
    out: dict = {}
    stop_words = postgres_stop_words(settings.KB["FTS_LANGUAGE"])
    out["stop_words"] = len(stop_words)
    with Measured() as read:
        ids = np.fromiter((chunk_id for chunk_id, _ in chunk_texts(project)), dtype=np.int64)
    out["read_texts"] = {"s": read.seconds, "chunks": len(ids)}
    print(f"  read {len(ids)} texts: {read.seconds} s", file=sys.stderr, flush=True)

    tantivy_dir = workdir / "tantivy"
    tantivy_dir.mkdir()
    tantivy_anchor = TantivyAnchor(tantivy_dir, stop_words)
    with Measured() as built:
        tantivy_ids = tantivy_anchor.build(chunk_texts(project))
    out["tantivy"] = built.report() | {"disk_mb": disk_mb(tantivy_dir)}
    print(f"  tantivy: {out['tantivy']}", file=sys.stderr, flush=True)

    bm25s_dir = workdir / "bm25s"
    bm25s_anchor = Bm25sAnchor(stop_words)
    with Measured() as built:
        bm25s_ids = bm25s_anchor.build(chunk_texts(project))
    out["bm25s"] = built.report()
    started = time.perf_counter()
    bm25s_anchor.save(bm25s_dir)
    out["bm25s"] |= {
        "save_s": round(time.perf_counter() - started, 1),
        "disk_mb": disk_mb(bm25s_dir),
    }
    print(f"  bm25s: {out['bm25s']}", file=sys.stderr, flush=True)
    if not (np.array_equal(ids, tantivy_ids) and np.array_equal(ids, bm25s_ids)):
        raise SystemExit("the chunks changed while the anchors were built")
    return tantivy_anchor, bm25s_anchor, out


def measure(
    user, project: Project, tantivy_anchor: TantivyAnchor, bm25s_anchor: Bm25sAnchor, args
) -> dict:
    k = settings.KB["DEFAULT_LIMIT"]
    filters = SearchFilters(project_keys=(project.key,))
    ids = chunk_ids(project, args.chunks)  # load order: the positions the queries pick
    claims = scifact_text(args.scifact)[2]
    texts, vectors = structured_queries(
        args.chunks, args.queries, claims, lambda picks: stored_vectors(ids, picks)
    )
    call_command("kb_prewarm", tenant=[args.tenant], stdout=sys.stderr)

    def run(engine: str, i: int) -> tuple[float, list[int]]:
        if engine.startswith("ours "):
            took, result = run_search(user, texts[i], vectors[i], engine[5:], filters)
            return took, [hit.chunk_id for hit in result.primary]
        anchor = tantivy_anchor if engine == "tantivy" else bm25s_anchor
        started = time.perf_counter()
        found = anchor.search(texts[i], k)
        return (time.perf_counter() - started) * 1000, found

    samples: dict[str, list[float]] = {engine: [] for engine in ENGINES}
    ours_in_tantivy, bm25s_in_tantivy = [], []
    for i in range(args.queries):
        shift = i % len(ENGINES)
        found: dict[str, list[int]] = {}
        for engine in ENGINES[shift:] + ENGINES[:shift]:
            took, found[engine] = run(engine, i)
            if i >= WARMUP:
                samples[engine].append(took)
        tantivy_top = set(found["tantivy"])
        ours_in_tantivy.append(len(tantivy_top & set(found["ours keyword"])) / k)
        bm25s_in_tantivy.append(len(tantivy_top & set(found["bm25s"])) / k)
    return {
        "k": k,
        "queries": args.queries,
        "warmup": WARMUP,
        "latency": {engine: latency_summary(v) for engine, v in samples.items()},
        "overlap_at_k": {
            "ours_keyword_in_tantivy": round(float(np.mean(ours_in_tantivy)), 3),
            "bm25s_in_tantivy": round(float(np.mean(bm25s_in_tantivy)), 3),
        },
    }


def ours_per_mode(sizes: dict, load: dict | None) -> dict[str, dict]:
    """Our indexes per mode: keyword = GIN + postings, dense = HNSW, hybrid = both.

    Build seconds from million_bench's load report (its JSON), when given: keyword = the
    INSERT computing the tsvectors (its trigger writes the postings) + GIN + the postings'
    key, dense = HNSW; the COPY of the rows is left out (loading, not indexing).
    """
    keyword = sizes["kb_chunk_search_gin_mb"] + sizes["postings_heap_mb"] + sizes["postings_key_mb"]
    dense = sizes["kb_chunk_embedding_hnsw_mb"]
    out = {
        "ours keyword": {"disk_mb": keyword},
        "ours dense": {"disk_mb": dense},
        "ours hybrid": {"disk_mb": keyword + dense},
    }
    if load:
        keyword_s = load["insert_with_tsvector_s"] + load["gin_s"] + load["postings_key_s"]
        out["ours keyword"]["build_s"] = round(keyword_s, 1)
        out["ours dense"]["build_s"] = load["hnsw_s"]
        out["ours hybrid"]["build_s"] = round(keyword_s + load["hnsw_s"], 1)
    return out


def markdown(report: dict) -> str:
    """One row per engine and mode."""
    lines = [
        f"| {report['chunks']:,} chunks | p50 ms | p95 ms | build s | disk MB "
        "| RSS MB (held / peak) |",
        "|---|---|---|---|---|---|",
    ]
    for engine in ENGINES:
        latency = report["search"]["latency"][engine]
        if engine.startswith("ours "):
            ours = report["ours"][engine]
            # in the database server: its memory is shared_buffers and the page cache
            build = f"{ours['build_s']:,}" if "build_s" in ours else "(million_bench)"
            cells = [build, f"{ours['disk_mb']:,}", "server"]
        else:
            built = report["anchors"][engine]
            cells = [
                f"{built['build_s']:,}",
                f"{built['disk_mb']:,}",
                f"{built['rss_held_mb']:,} / {built['rss_peak_mb']:,}",
            ]
        name = engine if engine.startswith("ours") else f"{engine}, keyword"
        row = [name, f"{latency['p50_ms']:,}", f"{latency['p95_ms']:,}", *cells]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tenant", required=True)
    parser.add_argument("--chunks", type=int, required=True, help="project structured-<N>")
    parser.add_argument("--scifact", type=Path, default=Path("../shared/bench/scifact"))
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--workdir", type=Path, default=None, help="default: a temporary folder")
    parser.add_argument(
        "--load-report", type=Path, default=None, help="million_bench's JSON of the load"
    )
    args = parser.parse_args()
    load = None
    if args.load_report:
        loaded = json.loads(args.load_report.read_text())
        if loaded["chunks"] != args.chunks:
            raise SystemExit(f"{args.load_report} is the load of {loaded['chunks']} chunks")
        load = loaded.get("load")  # absent when million_bench found the project loaded
    workdir = Path(tempfile.mkdtemp(prefix="gw-anchors-", dir=args.workdir))
    report: dict = {"tenant": args.tenant, "chunks": args.chunks}
    try:
        with schema_context(args.tenant):
            user = acting_user(None)
            project = Project.objects.filter(key=f"structured-{args.chunks}").first()
            if project is None:
                raise SystemExit(f"no project structured-{args.chunks}: run million_bench first")
            report["our_sizes"] = relation_sizes()
            report["ours"] = ours_per_mode(report["our_sizes"], load)
            tantivy_anchor, bm25s_anchor, report["anchors"] = build_anchors(project, workdir)
            report["search"] = measure(user, project, tantivy_anchor, bm25s_anchor, args)
            report["benchmark_process"] = own_rss_mb()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(json.dumps(report, indent=2))
    print(markdown(report), file=sys.stderr)


if __name__ == "__main__":
    main()
