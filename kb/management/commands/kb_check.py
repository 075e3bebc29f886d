"""kb_check: health of a tenant's knowledge base (vectors, indexes, empty documents)."""

from __future__ import annotations

import json
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection
from django.db.models import Count

from kb.embeddings import EmbeddingError, active_embedder
from kb.embeddings.spaces import active_space
from kb.models import Chunk, Document, EmbeddingSpace, SpaceState
from kb.postings import postings_state
from kb.reembed import NEXT_COLUMN
from portal.commands import command_tenant

NORM_TOLERANCE = 1e-3


def knowledge_base_report() -> dict[str, Any]:
    """Counts, vector health and index presence for the current tenant schema."""
    table = Chunk._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT count(*), count(embedding), count(search_vector), "
            f"max(abs(vector_norm(embedding) - 1)) FROM {table}"
        )
        chunks, embedded, with_fts, max_deviation = cursor.fetchone()
        cursor.execute(
            "SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() "
            "AND tablename = %s",
            [table],
        )
        index_defs = [row[0].lower() for row in cursor.fetchall()]
        cursor.execute(
            "SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
            "WHERE attrelid = %s::regclass AND attname = 'embedding'",
            [table],
        )
        column_type = cursor.fetchone()[0]
    hnsw = any(
        "using hnsw" in d and "(embedding " in d and "cosine" in d and NEXT_COLUMN not in d
        for d in index_defs
    )
    gin = any("using gin" in d and "search_vector" in d for d in index_defs)
    dimension = int(column_type.split("(")[1].rstrip(")")) if "(" in column_type else None
    space = active_space(fresh=True)
    try:
        model_dimension: int | None = active_embedder()[1].dimensions or None
        model_problem = None
    except (EmbeddingError, ImproperlyConfigured) as exc:  # a wrong size, a missing folder
        model_dimension, model_problem = None, str(exc)
    postings = postings_state()
    building = EmbeddingSpace.objects.filter(state=SpaceState.BUILDING).first()
    empty = (
        Document.objects.alive()
        .annotate(n=Count("chunks"))
        .filter(n=0)
        .select_related("project")
        .order_by("project__key", "slug")
    )
    report: dict[str, Any] = {
        "documents": Document.objects.alive().count(),
        "deleted_documents": Document.objects.filter(deleted_at__isnull=False).count(),
        "chunks": chunks,
        "embedded_chunks": embedded,
        "unembedded_chunks": chunks - embedded,
        "chunks_without_search_vector": chunks - with_fts,
        # one posting per lexeme of every chunk's tsvector, kept by triggers (kb 0005)
        "keyword_postings": {"stored": postings.stored, "expected": postings.expected},
        "max_norm_deviation": float(max_deviation) if max_deviation is not None else 0.0,
        "dimension": dimension,
        "expected_dimension": model_dimension,
        "embedding_space": {
            "model": space.spec.label,
            # False: never re-embedded, the tenant follows the embedding settings
            "recorded": space.recorded,
            "reembed_in_progress": None if building is None else str(building),
        },
        "indexes": {"hnsw_embedding_cosine": hnsw, "gin_search_vector": gin},
        "documents_without_chunks": [
            {"id": d.pk, "project_key": d.project.key, "slug": d.slug, "path": d.source_path}
            for d in empty
        ],
    }
    problems: list[str] = []
    if not hnsw:
        problems.append("HNSW cosine index on kb_chunk.embedding is missing")
    if not gin:
        problems.append("GIN index on kb_chunk.search_vector is missing")
    problems += postings.problems
    if model_problem is not None:
        problems.append(model_problem)
    elif model_dimension is not None and dimension != model_dimension:
        problems.append(f"embedding column is {column_type}, expected vector({model_dimension})")
    if report["unembedded_chunks"]:
        problems.append(f"{report['unembedded_chunks']} chunks have no embedding")
    if report["chunks_without_search_vector"]:
        problems.append(f"{report['chunks_without_search_vector']} chunks have no tsvector")
    if report["max_norm_deviation"] > NORM_TOLERANCE:
        problems.append(
            f"embeddings are not unit length (largest |norm-1| = {report['max_norm_deviation']:.2e})"
        )
    report["problems"] = problems
    report["ok"] = not problems
    return report


class Command(BaseCommand):
    help = "Check a tenant's knowledge base: vectors embedded and unit length, indexes present."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tenant", required=True, help="tenant schema name")
        parser.add_argument("--json", action="store_true", help="print JSON only")

    def handle(self, *args: Any, **options: Any) -> None:
        with command_tenant(str(options["tenant"])):
            report = knowledge_base_report()
        report = {"tenant": options["tenant"], **report}
        if options["json"]:
            self.stdout.write(json.dumps(report, indent=2))
        else:
            self._print(report)
        if not report["ok"]:
            raise CommandError("; ".join(report["problems"]), returncode=1)

    def _print(self, report: dict[str, Any]) -> None:
        write = self.stdout.write
        write(f"tenant                {report['tenant']}")
        write(
            f"documents             {report['documents']} ({report['deleted_documents']} deleted)"
        )
        write(f"chunks                {report['chunks']} ({report['embedded_chunks']} embedded)")
        write(f"largest |norm - 1|    {report['max_norm_deviation']:.2e}")
        write(
            f"dimension             {report['dimension']} (expected {report['expected_dimension']})"
        )
        space = report["embedding_space"]
        recorded = "recorded" if space["recorded"] else "from the settings"
        write(f"embedding space       {space['model']} ({recorded})")
        if space["reembed_in_progress"]:
            write(f"re-embed in progress  {space['reembed_in_progress']}")
        for name, present in report["indexes"].items():
            write(f"index {name:<22} {'present' if present else 'MISSING'}")
        if report["documents_without_chunks"]:
            write(f"documents without chunks ({len(report['documents_without_chunks'])}):")
            for doc in report["documents_without_chunks"]:
                write(f"  {doc['project_key']}/{doc['slug']}  ({doc['path']})")
        write(self.style.SUCCESS("OK") if report["ok"] else self.style.ERROR("PROBLEMS"))
