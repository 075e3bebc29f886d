"""Rebuild the chunk embeddings' HNSW index with ef_construction 200 (was 64).

A better-connected graph: recall is higher at every hnsw.ef_search, and the walk at equal
recall is shorter (benchmarks/RESULTS.md, "HNSW build parameters"). The index keeps its
name; REINDEX CONCURRENTLY builds the new graph next to the old one, so searches and
ingestion go on during the rebuild (about 3 minutes per 100k chunks on 2 cores), and the
switch to it is atomic. That is why this migration is not atomic: REINDEX CONCURRENTLY
cannot run in a transaction. When the migration does run inside one (a tenant being created:
its table is empty), a plain REINDEX does the same at once. Rolled back, it rebuilds with
64 the same way.

A rebuild that was interrupted (the release killed, the server restarted) leaves an invalid
copy named kb_chunk_embedding_hnsw_ccnew[N], which PostgreSQL keeps updating on every write
but never uses; running the migration again drops such copies before it rebuilds.
"""

import pgvector.django.indexes
from django.db import migrations

INDEX = "kb_chunk_embedding_hnsw"


def _leftover_copies(connection) -> list[str]:
    """Invalid copies of the index in the current schema, left by an interrupted rebuild."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
            "WHERE NOT i.indisvalid AND c.relnamespace = current_schema()::regnamespace "
            "AND c.relname LIKE %s",
            [INDEX + "\\_ccnew%"],
        )
        return [name for (name,) in cursor.fetchall()]


def _rebuild(ef_construction: int):
    def rebuild(apps, schema_editor) -> None:
        concurrently = "" if schema_editor.connection.in_atomic_block else "CONCURRENTLY "
        for copy in _leftover_copies(schema_editor.connection):
            schema_editor.execute(f"DROP INDEX {concurrently}{copy}")
        schema_editor.execute(f"ALTER INDEX {INDEX} SET (ef_construction = {ef_construction})")
        schema_editor.execute(f"REINDEX INDEX {concurrently}{INDEX}")

    return rebuild


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("kb", "0003_embedding_space"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveIndex(model_name="chunk", name=INDEX),
                migrations.AddIndex(
                    model_name="chunk",
                    index=pgvector.django.indexes.HnswIndex(
                        ef_construction=200,
                        fields=["embedding"],
                        m=16,
                        name=INDEX,
                        opclasses=["vector_cosine_ops"],
                    ),
                ),
            ],
            database_operations=[
                migrations.RunPython(_rebuild(200), reverse_code=_rebuild(64)),
            ],
        ),
    ]
