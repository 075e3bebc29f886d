"""Ingestion throughput on SciFact: raw model encode rate vs end-to-end bulk ingest.

    DEBUG=1 .venv/bin/python benchmarks/ingest_throughput.py [--limit N] [--keep]

Creates a throwaway tenant (schema bench_ingest_<pid>) and, slice by slice (--slice docs,
alternating which runs first so load drift on a shared machine hits both alike), times
(1) the embedder alone on the slice's chunk texts, prepared exactly as the ingest path
prepares them, and (2) `documents_ingest_many` storing the same slice in the fresh tenant
(parse, chunk, embed, write). Prints chunks/s for both, the overhead and the peak RSS.
The tenant is dropped at the end unless --keep.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")
os.environ.setdefault("DEBUG", "1")

# the shared data sits at ../shared/ from the repository root
CORPUS = ROOT.parent / "shared" / "bench" / "scifact" / "corpus.jsonl"


def load_corpus(path: Path, limit: int | None) -> list[tuple[str, str]]:
    """(source_path, markdown) per abstract: '# title' then the abstract text."""
    docs: list[tuple[str, str]] = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            docs.append((f"scifact/{row['_id']}.md", f"# {row['title']}\n\n{row['text']}\n"))
            if limit and len(docs) >= limit:
                break
    return docs


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--limit", type=int, default=None, help="only the first N abstracts")
    parser.add_argument("--slice", type=int, default=500, help="documents per A/B slice")
    parser.add_argument("--keep", action="store_true", help="keep the benchmark tenant")
    parser.add_argument("--json", action="store_true", help="print JSON only")
    parser.add_argument(
        "--provider", default="local", help="embedding provider to measure (default: local)"
    )
    args = parser.parse_args()

    import django

    django.setup()
    from django.conf import settings
    from django_tenants.utils import schema_context

    from kb.embeddings import get_embedder
    from kb.ingestion.prepare import prepare_document
    from kb.services import IngestItem, chunk_params, documents_ingest_many, ingest_summary
    from portal.access.services import project_ensure
    from portal.tenants.models import Tenant
    from portal.tenants.services import tenant_create

    settings.KB = {**settings.KB, "EMBEDDING_PROVIDER": args.provider}
    docs = load_corpus(args.corpus, args.limit)
    embedder = get_embedder()
    params = chunk_params()
    # model load and first-call costs (allocations for full-length batches) stay out of both
    warm_up = [
        chunk.embed_text
        for path, content in docs[:64]
        for chunk in prepare_document(source_path=path, content=content, params=params).chunks
    ]
    embedder.embed_documents(warm_up)

    schema = f"bench_ingest_{os.getpid()}"
    tenant = tenant_create(
        schema_name=schema, domain=f"{schema.replace('_', '-')}.localhost", name="Bench"
    )
    # The machine is shared, so load drifts: measure slice by slice, alternating which of the
    # two runs first, and compare the sums.
    raw_seconds = e2e_seconds = 0.0
    texts_total = 0
    outcomes = []
    try:
        with schema_context(schema):
            project = project_ensure(key="scifact")
            for index, start in enumerate(range(0, len(docs), args.slice)):
                part = docs[start : start + args.slice]
                texts = [
                    chunk.embed_text
                    for path, content in part
                    for chunk in prepare_document(
                        source_path=path, content=content, params=params
                    ).chunks
                ]
                texts_total += len(texts)

                def raw(texts: list[str] = texts) -> float:
                    started = time.perf_counter()
                    embedder.embed_documents(texts)
                    return time.perf_counter() - started

                def ingest(part: list[tuple[str, str]] = part) -> float:
                    started = time.perf_counter()
                    outcomes.extend(
                        documents_ingest_many(
                            project=project,
                            items=(IngestItem(source_path=p, content=c) for p, c in part),
                            embedder=embedder,
                        )
                    )
                    return time.perf_counter() - started

                if index % 2 == 0:
                    raw_seconds += raw()
                    e2e_seconds += ingest()
                else:
                    e2e_seconds += ingest()
                    raw_seconds += raw()
            summary = ingest_summary(outcomes)
    finally:
        if not args.keep:
            Tenant.objects.filter(pk=tenant.pk).first().delete(force_drop=True)

    raw_rate = texts_total / raw_seconds
    e2e_rate = summary["chunks"] / e2e_seconds
    result = {
        "documents": len(docs),
        "chunks": texts_total,
        "slices": -(-len(docs) // args.slice),
        "stored_chunks": summary["chunks"],
        "failed": len(summary["failed"]),
        "provider": embedder.name,
        "batch_size": settings.KB["EMBEDDING_BATCH_SIZE"],
        "raw_encode_seconds": round(raw_seconds, 2),
        "raw_chunks_per_s": round(raw_rate, 1),
        "ingest_seconds": round(e2e_seconds, 2),
        "ingest_chunks_per_s": round(e2e_rate, 1),
        "overhead_pct": round((e2e_seconds / raw_seconds - 1) * 100, 1),
        "peak_rss_mib": round(peak_rss_mib(), 1),
        "cpus": os.cpu_count(),
    }
    if args.json:
        print(json.dumps(result))
        return
    for key, value in result.items():
        print(f"{key:<22} {value}")


if __name__ == "__main__":
    main()
