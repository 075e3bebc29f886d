"""Ingestion throughput on SciFact: raw model encode rate vs end-to-end bulk ingest.

    DEBUG=1 .venv/bin/python benchmarks/ingest_throughput.py [--limit N] [--keep]

Creates a throwaway tenant (schema bench_ingest_<pid>), prepares every abstract exactly as
the ingest path does, times (1) the embedder alone on those chunk texts (before and after
step 2; the mean is the baseline, which evens out drift on a shared machine) and (2)
`documents_ingest_many` writing the same corpus into the fresh tenant (parse, chunk, embed,
store), and prints chunks/s for both, the overhead and the peak RSS. The tenant is dropped at
the end unless --keep.
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

CORPUS = Path("/work/shared/bench/scifact/corpus.jsonl")


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
    parser.add_argument("--keep", action="store_true", help="keep the benchmark tenant")
    parser.add_argument("--json", action="store_true", help="print JSON only")
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

    docs = load_corpus(args.corpus, args.limit)
    embedder = get_embedder()
    embedder.embed_documents(["warm-up sentence"] * 8)  # model load and first-call costs

    params = chunk_params()
    texts = [
        chunk.embed_text
        for source_path, content in docs
        for chunk in prepare_document(
            source_path=source_path, content=content, params=params
        ).chunks
    ]

    def time_raw_encode() -> float:
        started = time.perf_counter()
        embedder.embed_documents(texts)
        return time.perf_counter() - started

    raw_before = time_raw_encode()

    schema = f"bench_ingest_{os.getpid()}"
    tenant = tenant_create(
        schema_name=schema, domain=f"{schema.replace('_', '-')}.localhost", name="Bench"
    )
    try:
        with schema_context(schema):
            project = project_ensure(key="scifact")
            items = (IngestItem(source_path=p, content=c) for p, c in docs)
            started = time.perf_counter()
            outcomes = documents_ingest_many(project=project, items=items, embedder=embedder)
            e2e_seconds = time.perf_counter() - started
            summary = ingest_summary(outcomes)
    finally:
        if not args.keep:
            Tenant.objects.filter(pk=tenant.pk).first().delete(force_drop=True)

    # the machine is shared: time the raw encode before and after the ingest and use the mean
    raw_after = time_raw_encode()
    raw_seconds = (raw_before + raw_after) / 2
    raw_rate = len(texts) / raw_seconds
    e2e_rate = summary["chunks"] / e2e_seconds
    result = {
        "documents": len(docs),
        "chunks": len(texts),
        "stored_chunks": summary["chunks"],
        "failed": len(summary["failed"]),
        "provider": embedder.name,
        "batch_size": settings.KB["EMBEDDING_BATCH_SIZE"],
        "raw_encode_seconds": round(raw_seconds, 2),
        "raw_encode_seconds_before_after": [round(raw_before, 2), round(raw_after, 2)],
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
