"""The SQL plumbing every retrieval stage shares: the visible-document scope, the candidate
columns and their reading into `Candidate`s, table names, statements run under planner
settings, and pgvector's vector literal.

The arms (`arms.py`), identifier lookup, graph expansion, rejected injection and the evidence
gate all read chunks through these; none of them spells its own columns or table names.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from django.core.exceptions import EmptyResultSet
from django.db import DataError, connection
from django.db.models import QuerySet

from kb.embeddings.exceptions import EmbeddingSpaceChanged
from kb.models import Chunk, ChunkTerm, Document, TermBound
from kb.retrieval.types import Candidate
from portal.access.models import Project

# updated_at travels as epoch seconds: the driver's timestamptz loader for Django runs in
# Python (~10 us a row, a quarter of a millisecond per search); fromtimestamp is C.
COLUMNS = """
    c.id, c.document_id, d.slug, d.title, p.key, c.heading_path, c.text, c.chunk_order,
    d.source_type, d.canonical_type, d.canonical_status, d.retrieval_priority,
    d.evidence_tier, d.generation_source, d.tags, d.summary, d.owners,
    extract(epoch FROM d.updated_at)::float8
"""


@dataclass(frozen=True)
class Scope:
    """The visible-document sub-select (SQL + params) every arm and stage filters on."""

    sql: str
    params: tuple

    @classmethod
    def for_documents(cls, documents: QuerySet[Document]) -> Scope:
        try:
            sql, params = documents.order_by().values("id").query.sql_with_params()
        except EmptyResultSet:  # no visible project at all
            return cls(sql="SELECT NULL::bigint WHERE FALSE", params=())
        return cls(sql=sql, params=tuple(params))


def vector_literal(vector: Sequence[float]) -> str:
    """pgvector's text form of a vector (bound as a parameter, cast with ::vector)."""
    return _literal(tuple(vector))


@lru_cache(maxsize=32)  # one search binds its query vector in up to five statements
def _literal(values: tuple[float, ...]) -> str:
    return "[" + ",".join(["%.7g"] * len(values)) % values + "]"


def space_changed(exc: BaseException) -> bool:
    """True for a query vector of another size than the stored ones: kb_reembed switched
    the tenant's embedding space after the query was embedded."""
    if isinstance(exc, EmbeddingSpaceChanged):
        return True
    return isinstance(exc, DataError) and "different vector dimensions" in str(exc)


def tables() -> dict[str, str]:
    return {
        "chunk": Chunk._meta.db_table,
        "document": Document._meta.db_table,
        "project": Project._meta.db_table,
        "term": ChunkTerm._meta.db_table,
        "bound": TermBound._meta.db_table,
    }


# Retrieval statements are small and latency-bound: starting parallel workers costs more
# (milliseconds per statement, and two cores per search) than a parallel plan can save.
SERIAL = {"max_parallel_workers_per_gather": "0"}
# What a setting that was never set reads as, for putting it back (the pgvector default).
_SETTING_DEFAULTS = {"hnsw.ef_search": "40"}


def set_local(cursor, values: dict[str, str]) -> dict[str, str]:
    """Set planner settings for the current transaction in one round trip; returns the
    previous values (for restore_local)."""
    names = list(values)
    cursor.execute(
        "WITH saved AS MATERIALIZED (SELECT "
        + ", ".join("current_setting(%s, true)" for _ in names)
        + ") SELECT saved.*"
        + "".join(", set_config(%s, %s, true)" for _ in names)
        + " FROM saved",
        [*names, *(item for pair in values.items() for item in pair)],
    )
    before = cursor.fetchone()[: len(names)]
    return {
        name: value if value is not None else _SETTING_DEFAULTS.get(name, "")
        for name, value in zip(names, before, strict=True)
    }


def fetch_with_settings(
    cursor, settings: dict[str, str], sql: str, params: Sequence
) -> list[tuple]:
    """The rows of one statement run under planner settings that end with it.

    Outside a transaction the settings and the statement go in one round trip, as one
    multi-statement query (Django's client-side binding allows it): PostgreSQL runs the
    pair as one implicit transaction, so the SET LOCALs end with it. Inside a caller's
    transaction they are set, used and put back, since there they would outlive it.
    """
    if not connection.in_atomic_block:
        assignments = [item for pair in settings.items() for item in pair]
        cursor.execute(
            "SELECT " + ", ".join(["set_config(%s, %s, true)"] * len(settings)) + "; " + sql,
            [*assignments, *params],
        )
        cursor.nextset()
        return cursor.fetchall()
    saved = set_local(cursor, settings)
    cursor.execute(sql, params)
    rows = cursor.fetchall()
    restore_local(cursor, saved)
    return rows


def restore_local(cursor, saved: dict[str, str]) -> None:
    values = [(name, value) for name, value in saved.items() if value != ""]
    if values:
        cursor.execute(
            "SELECT " + ", ".join("set_config(%s, %s, true)" for _ in values),
            [item for pair in values for item in pair],
        )


def candidates(rows: Sequence[tuple], *, arm: str) -> list[Candidate]:
    """Rows of `COLUMNS, cosine, keyword_score` as Candidates; `arm` sets their arm rank."""
    out = []
    for position, row in enumerate(rows, start=1):
        (chunk_id, document_id, slug, title, project_key, heading_path, text, chunk_order,
         source_type, canonical_type, canonical_status, priority, tier, generation, tags,
         summary, owners, updated_epoch, cosine, keyword_score) = row  # fmt: skip
        out.append(
            Candidate(
                chunk_id=chunk_id,
                document_id=document_id,
                slug=slug,
                title=title,
                project_key=project_key,
                heading_path=heading_path,
                text=text,
                chunk_order=chunk_order,
                source_type=source_type,
                canonical_type=canonical_type,
                canonical_status=canonical_status,
                retrieval_priority=priority,
                evidence_tier=tier,
                generation_source=generation,
                tags=tuple(tags or ()),
                summary=summary or "",
                owners=tuple(owners or ()),
                updated_at=None
                if updated_epoch is None
                else dt.datetime.fromtimestamp(updated_epoch, dt.UTC),
                cosine=None if cosine is None else float(cosine),
                keyword_score=None if keyword_score is None else float(keyword_score),
                semantic_rank=position if arm == "semantic" else None,
                keyword_rank=position if arm == "keyword" else None,
            )
        )
    return out


def known_words(*, scope: Scope, words: Sequence[str], language: str) -> dict[str, str]:
    """Each word of `words` whose text-search lexeme a document of the scope uses, with that
    lexeme (one look-up of the postings' primary key per word; it stops at the first
    visible posting). A hyphenated word is its whole compound ("mes-age" is not "age")."""
    if not words:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            SELECT u.w, l.lexeme FROM unnest(%s::text[]) AS u(w)
            CROSS JOIN LATERAL (
                SELECT lexeme FROM unnest(to_tsvector(%s::regconfig, u.w))
                ORDER BY length(lexeme) DESC LIMIT 1
            ) AS l
            WHERE EXISTS (
                SELECT 1 FROM {tables()["term"]} t
                WHERE t.lexeme = l.lexeme AND t.document_id IN ({scope.sql})
            )
            """,
            (list(words), language, *scope.params),
        )
        return dict(cursor.fetchall())


def best_chunk_per_document(
    *,
    scope: Scope,
    vector: Sequence[float] | None,
    where: str = "TRUE",
    params: Sequence = (),
) -> list[Candidate]:
    """Each visible document matching `where` (on `d`) with its chunk nearest the query.

    Without a query vector the document's first chunk stands in. Used by graph expansion
    and rejected injection, which rank documents, not chunks.
    """
    t = tables()
    if vector is not None:
        literal = vector_literal(vector)
        cosine_sql, order_sql, cosine_params = (
            "1 - (c.embedding <=> %s::vector)",
            "c.embedding <=> %s::vector NULLS LAST, c.chunk_order",
            [literal],
        )
        order_params = [literal]
    else:
        cosine_sql, order_sql, cosine_params, order_params = "NULL", "c.chunk_order", [], []
    # Select the (few) documents first, then their chunks: never a scan of every chunk.
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            WITH docs AS MATERIALIZED (
                SELECT d.id FROM {t["document"]} d
                WHERE d.id IN ({scope.sql}) AND ({where})
            )
            SELECT DISTINCT ON (c.document_id)
                {COLUMNS}, {cosine_sql} AS cosine, NULL::float8 AS keyword_score
            FROM docs
            JOIN {t["chunk"]} c ON c.document_id = docs.id
            JOIN {t["document"]} d ON d.id = c.document_id
            JOIN {t["project"]} p ON p.id = d.project_id
            ORDER BY c.document_id, {order_sql}
            """,
            (*scope.params, *params, *cosine_params, *order_params),
        )
        rows = cursor.fetchall()
    return candidates(rows, arm="none")


def chunks_by_position(
    *, scope: Scope, positions: str, vector: Sequence[float] | None
) -> list[Candidate]:
    """The visible chunks at `positions` (an SQL list of (document_id, chunk_order) integer
    pairs, built by the caller from integers), with their cosine to the query vector."""
    t = tables()
    cosine_sql, cosine_params = (
        ("1 - (c.embedding <=> %s::vector)", [vector_literal(vector)])
        if vector is not None
        else ("NULL", [])
    )
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            SELECT {COLUMNS}, {cosine_sql} AS cosine, NULL::float8 AS keyword_score
            FROM {t["chunk"]} c
            JOIN {t["document"]} d ON d.id = c.document_id
            JOIN {t["project"]} p ON p.id = d.project_id
            WHERE (c.document_id, c.chunk_order) IN ({positions})
              AND c.document_id IN ({scope.sql})
            ORDER BY c.document_id, c.chunk_order
            """,
            (*cosine_params, *scope.params),
        )
        rows = cursor.fetchall()
    return candidates(rows, arm="none")
