"""kb_prewarm: load each tenant's chunk table and its indexes into PostgreSQL's buffer cache."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.db import connection
from django_tenants.utils import get_public_schema_name, schema_context

from kb.models import Chunk, ChunkTerm, Document
from kb.retrieval.sql import fetch_with_settings
from portal.tenants.models import Tenant

# Without pg_prewarm, this many nearest-neighbour searches (stored vectors as queries) walk
# the upper HNSW layers and the busiest parts of the graph into the cache.
FALLBACK_QUERIES = 200


def _relations(cursor: Any) -> list[str]:
    """The chunk and document tables and every index on them, and the keyword postings'
    index (current schema). The postings are read from their index alone: their table
    stays out of the cache."""
    names = []
    for table, with_table in (
        (Chunk._meta.db_table, True),
        (Document._meta.db_table, True),
        (ChunkTerm._meta.db_table, False),
    ):
        if with_table:
            names.append(table)
        cursor.execute(
            "SELECT indexrelid::regclass::text FROM pg_index WHERE indrelid = %s::regclass",
            [table],
        )
        names += [row[0] for row in cursor.fetchall()]
    return names


class Command(BaseCommand):
    help = (
        "Load the chunk/document tables and their indexes (HNSW, GIN, keyword postings) of "
        "every tenant (or "
        "--tenant) into shared_buffers, so the first searches after a start are as fast as "
        "the rest. Uses pg_prewarm when the server has it, else warms by searching."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tenant", action="append", help="schema (repeatable; default all)")

    def handle(self, *args: Any, **options: Any) -> None:
        schemas = options["tenant"] or list(
            Tenant.objects.exclude(schema_name=get_public_schema_name()).values_list(
                "schema_name", flat=True
            )
        )
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'pg_prewarm'")
            has_prewarm = cursor.fetchone() is not None
            if has_prewarm:
                cursor.execute("CREATE EXTENSION IF NOT EXISTS pg_prewarm SCHEMA public")
        for schema in schemas:
            started = time.perf_counter()
            with schema_context(schema), connection.cursor() as cursor:
                relations = _relations(cursor)
                if has_prewarm:
                    pages = 0
                    for name in relations:
                        cursor.execute("SELECT public.pg_prewarm(%s::regclass)", [name])
                        pages += int(cursor.fetchone()[0])
                    how = f"pg_prewarm: {pages} pages"
                else:
                    how = self._warm_by_searching(cursor)
            elapsed = time.perf_counter() - started
            self.stdout.write(f"{schema}: {how} ({len(relations)} relations, {elapsed:.1f} s)")

    def _warm_by_searching(self, cursor: Any) -> str:
        chunk = Chunk._meta.db_table
        # Heap and GIN: one pass over every row's text search vector.
        cursor.execute(f"SELECT count(*) FROM {chunk} WHERE search_vector IS NOT NULL")
        rows = int(cursor.fetchone()[0])
        cursor.execute(
            f"""
            SELECT count(*) FROM (
                SELECT embedding FROM {chunk} WHERE embedding IS NOT NULL
                ORDER BY random() LIMIT %s
            ) AS probe, LATERAL (
                SELECT c.id FROM {chunk} c
                ORDER BY c.embedding <=> probe.embedding LIMIT 10
            ) AS near
            """,
            [FALLBACK_QUERIES],
        )
        # The keyword postings' key: one index-only pass (their table is never read).
        postings = fetch_with_settings(
            cursor,
            {"enable_seqscan": "off", "enable_bitmapscan": "off"},
            f"SELECT count(*) FROM {ChunkTerm._meta.db_table} WHERE lexeme >= ''",
            [],
        )[0][0]
        return (
            f"no pg_prewarm on this server; {rows} rows read, {FALLBACK_QUERIES} HNSW walks, "
            f"{postings} keyword postings read from their key"
        )
