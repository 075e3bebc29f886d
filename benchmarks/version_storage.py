"""What document versions cost in storage (issue 28): per document, per re-ingest, per
curated change, on the demo handbook (and optionally SciFact abstracts).

    .venv/bin/python benchmarks/version_storage.py [--scifact N] [--json]

Creates a throwaway tenant (schema bench_versions_<pid>), ingests the corpus with the hash
embedder (vectors do not enter versions), then measures the version tables after each step:
the first ingest (every document's version 1), an unchanged re-ingest (must keep nothing),
a re-ingest where every document gained one sentence at its end, and one curated change
per document (its retrieval priority). Bytes are PostgreSQL's stored sizes
(`pg_column_size` of each row, after TOAST compression), next to the size of the source
files and of the chunk texts the document already stores. The tenant is dropped at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")
os.environ.setdefault("DEBUG", "1")

SCIFACT = ROOT.parent / "shared" / "bench" / "scifact" / "corpus.jsonl"
REVISION = " A sentence added in a later revision of this document."


def demo_corpus() -> list[tuple[str, str]]:
    from kb.demo import DEMO_CORPUS_DIR

    return [
        (f"handbook/{path.name}", path.read_text(encoding="utf-8"))
        for path in sorted(DEMO_CORPUS_DIR.glob("*.md"))
    ]


def scifact_corpus(limit: int) -> list[tuple[str, str]]:
    docs: list[tuple[str, str]] = []
    with SCIFACT.open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            docs.append((f"scifact/{row['_id']}.md", f"# {row['title']}\n\n{row['text']}\n"))
            if len(docs) >= limit:
                break
    return docs


def stored_bytes(project_id: int) -> dict[str, int]:
    """Stored bytes of the project's version rows, version texts and chunk texts."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT "
            " (SELECT count(*) FROM kb_documentversion v JOIN kb_document d"
            "   ON d.id = v.document_id WHERE d.project_id = %s),"
            " (SELECT coalesce(sum(pg_column_size(v.*)), 0) FROM kb_documentversion v"
            "   JOIN kb_document d ON d.id = v.document_id WHERE d.project_id = %s),"
            " (SELECT count(*) FROM kb_versiontext t JOIN kb_document d"
            "   ON d.id = t.document_id WHERE d.project_id = %s),"
            " (SELECT coalesce(sum(pg_column_size(t.chunks) + pg_column_size(t.digest) + 24), 0)"
            "   FROM kb_versiontext t JOIN kb_document d ON d.id = t.document_id"
            "   WHERE d.project_id = %s),"
            " (SELECT coalesce(sum(pg_column_size(c.text)), 0) FROM kb_chunk c"
            "   JOIN kb_document d ON d.id = c.document_id WHERE d.project_id = %s)",
            [project_id] * 5,
        )
        versions, version_bytes, texts, text_bytes, chunk_text_bytes = cursor.fetchone()
    return {
        "versions": versions,
        "version_row_bytes": version_bytes,
        "texts": texts,
        "text_bytes": text_bytes,
        "chunk_text_bytes": chunk_text_bytes,
    }


def measure(name: str, docs: list[tuple[str, str]]) -> dict[str, Any]:
    from canonical.services import record_set_priority
    from kb.curation import SYSTEM
    from kb.embeddings import build_embedder
    from kb.models import Document
    from kb.services import IngestItem, documents_ingest_many
    from portal.access.services import project_ensure

    embedder = build_embedder("hash")
    project = project_ensure(key=name)

    def ingest(corpus: list[tuple[str, str]]) -> float:
        started = time.perf_counter()
        outcomes = documents_ingest_many(
            project=project,
            items=(IngestItem(source_path=path, content=content) for path, content in corpus),
            embedder=embedder,
        )
        assert not [o for o in outcomes if o.status == "failed"], outcomes
        return time.perf_counter() - started

    count = len(docs)
    source_bytes = sum(len(content.encode()) for _, content in docs)
    seconds = ingest(docs)
    first = stored_bytes(project.pk)
    ingest(docs)
    unchanged = stored_bytes(project.pk)
    revised = [(path, content.rstrip() + REVISION + "\n") for path, content in docs]
    ingest(revised)
    edited = stored_bytes(project.pk)
    for document in Document.objects.filter(project=project):
        record_set_priority(
            document=document, priority=(document.retrieval_priority + 7) % 101, by=SYSTEM
        )
    curated = stored_bytes(project.pk)

    def total(snapshot: dict[str, int]) -> int:
        return snapshot["version_row_bytes"] + snapshot["text_bytes"]

    return {
        "corpus": name,
        "documents": count,
        "first_ingest_seconds": round(seconds, 2),
        "source_bytes_per_document": round(source_bytes / count),
        "chunk_text_bytes_per_document": round(first["chunk_text_bytes"] / count),
        "version_1_bytes_per_document": round(total(first) / count),
        "version_1_text_bytes_per_document": round(first["text_bytes"] / count),
        "version_1_row_bytes_per_document": round(first["version_row_bytes"] / count),
        "unchanged_reingest_new_versions": unchanged["versions"] - first["versions"],
        "unchanged_reingest_bytes": total(unchanged) - total(first),
        "edited_reingest_bytes_per_document": round((total(edited) - total(unchanged)) / count),
        "edited_reingest_new_texts": edited["texts"] - unchanged["texts"],
        "curated_change_bytes_per_document": round((total(curated) - total(edited)) / count),
        "curated_change_new_texts": curated["texts"] - edited["texts"],
        "versions_at_end": curated["versions"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scifact", type=int, default=0, help="also N SciFact abstracts")
    parser.add_argument("--json", action="store_true", help="print JSON only")
    args = parser.parse_args()

    import django

    django.setup()
    from django_tenants.utils import schema_context

    from portal.tenants.models import Tenant
    from portal.tenants.services import tenant_create

    schema = f"bench_versions_{os.getpid()}"
    tenant = tenant_create(
        schema_name=schema, domain=f"{schema.replace('_', '-')}.localhost", name="Bench"
    )
    results = []
    try:
        with schema_context(schema):
            results.append(measure("demo", demo_corpus()))
            if args.scifact:
                results.append(measure("scifact", scifact_corpus(args.scifact)))
    finally:
        Tenant.objects.filter(pk=tenant.pk).first().delete(force_drop=True)
    if args.json:
        print(json.dumps(results))
        return
    for result in results:
        for key, value in result.items():
            print(f"{key:<38} {value}")
        print()


if __name__ == "__main__":
    main()
