"""The two retrieval arms: semantic (pgvector HNSW, cosine) and keyword (PostgreSQL FTS).

Both arms restrict to `Document.objects.visible_to(user).filtered(filters)` INSIDE
their SQL (a `document_id IN (<visible documents>)` sub-select), so a top-k is never cut
before visibility is applied and nothing invisible is ever loaded.
"""

from __future__ import annotations

import datetime as dt
import math
import threading
import time
from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from functools import lru_cache

from django.core.exceptions import EmptyResultSet
from django.db import DatabaseError, DataError, connection, transaction
from django.db.models import QuerySet

from kb.embeddings.exceptions import EmbeddingSpaceChanged
from kb.models import Chunk, ChunkTerm, Document
from kb.retrieval.exceptions import KeywordArmError
from kb.retrieval.types import Candidate
from portal.access.models import Project

# updated_at travels as epoch seconds: the driver's timestamptz loader for Django runs in
# Python (~10 us a row, a quarter of a millisecond per search); fromtimestamp is C.
_COLUMNS = """
    c.id, c.document_id, d.slug, d.title, p.key, c.heading_path, c.text, c.chunk_order,
    d.source_type, d.canonical_type, d.canonical_status, d.retrieval_priority,
    d.evidence_tier, d.generation_source, d.tags, d.summary,
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


def _tables() -> dict[str, str]:
    return {
        "chunk": Chunk._meta.db_table,
        "document": Document._meta.db_table,
        "project": Project._meta.db_table,
        "term": ChunkTerm._meta.db_table,
    }


# Retrieval statements are small and latency-bound: starting parallel workers costs more
# (milliseconds per statement, and two cores per search) than a parallel plan can save.
SERIAL = {"max_parallel_workers_per_gather": "0"}
# What a setting that was never set reads as, for putting it back (the pgvector default).
_SETTING_DEFAULTS = {"hnsw.ef_search": "40"}


def _set_local(cursor, values: dict[str, str]) -> dict[str, str]:
    """Set planner settings for the current transaction in one round trip; returns the
    previous values (for _restore_local)."""
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
    saved = _set_local(cursor, settings)
    cursor.execute(sql, params)
    rows = cursor.fetchall()
    _restore_local(cursor, saved)
    return rows


def _restore_local(cursor, saved: dict[str, str]) -> None:
    values = [(name, value) for name, value in saved.items() if value != ""]
    if values:
        cursor.execute(
            "SELECT " + ", ".join("set_config(%s, %s, true)" for _ in values),
            [item for pair in values for item in pair],
        )


def _candidates(rows: Sequence[tuple], *, arm: str) -> list[Candidate]:
    out = []
    for position, row in enumerate(rows, start=1):
        (chunk_id, document_id, slug, title, project_key, heading_path, text, chunk_order,
         source_type, canonical_type, canonical_status, priority, tier, generation, tags,
         summary, updated_epoch, cosine, keyword_score) = row  # fmt: skip
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


# pgvector's upper bound for hnsw.ef_search: the widest index scan before the exact scan.
# At 1M chunks a filter keeping 10 % of them made every dense search an exact scan of 100k
# vectors (2.7 s, benchmarks/RESULTS.md "A million chunks").
HNSW_EF_SEARCH_MAX = 1000


def semantic_arm(
    *, vector: Sequence[float], scope: Scope, k: int, ef_search: int
) -> list[Candidate]:
    """The k chunks nearest to the query vector (cosine) among the visible, filtered chunks.

    pgvector 0.6's HNSW scan yields at most ef_search rows and filters them afterwards, so
    ef_search is raised to k; a result shorter than k is asked again at HNSW_EF_SEARCH_MAX
    when the share of visible rows predicts k there (a filter keeping a tenth of a large
    project), and redone as an exact scan if still short (a narrow filter, a small
    project): a filter must never silently cost recall.
    """
    if k <= 0:
        return []
    t = _tables()
    literal = vector_literal(vector)
    sql = f"""
        WITH hits AS MATERIALIZED (
            SELECT c.id, c.embedding <=> %s::vector AS distance
            FROM {t["chunk"]} c
            WHERE c.embedding IS NOT NULL AND c.document_id IN ({scope.sql})
            ORDER BY c.embedding <=> %s::vector
            LIMIT %s
        )
        SELECT {_COLUMNS}, 1 - h.distance AS cosine, NULL::float8 AS keyword_score
        FROM hits h
        JOIN {t["chunk"]} c ON c.id = h.id
        JOIN {t["document"]} d ON d.id = c.document_id
        JOIN {t["project"]} p ON p.id = d.project_id
        ORDER BY h.distance, c.id
    """
    params = (literal, *scope.params, literal, k)
    # Steer the planner to the HNSW scan: with a misestimated visibility join (fresh
    # statistics after a bulk ingest) it would otherwise sort every visible vector.
    ef = max(ef_search, k)
    steer = {"hnsw.ef_search": str(ef), "enable_sort": "off", **SERIAL}
    try:
        with connection.cursor() as cursor:
            rows = fetch_with_settings(cursor, steer, sql, params)
            if 0 < len(rows) < k and len(rows) * HNSW_EF_SEARCH_MAX >= k * ef:
                # The filter kept a share of the scanned rows that the widest scan should
                # turn into k: ask the index again before reading every visible vector.
                widest = {**steer, "hnsw.ef_search": str(HNSW_EF_SEARCH_MAX)}
                rows = fetch_with_settings(cursor, widest, sql, params)
            if len(rows) < k:
                exact = {**steer, "enable_sort": "on", "enable_indexscan": "off"}
                rows = fetch_with_settings(cursor, exact, sql, params)
    except DataError as exc:
        if space_changed(exc):
            raise EmbeddingSpaceChanged(str(exc)) from exc
        raise
    return _candidates(rows, arm="semantic")


# --- keyword arm ---------------------------------------------------------------------------

# Document frequencies per tenant schema, for IDF weighting: the chunk count and, per lexeme
# a query asked about, the chunks containing it. Forgotten when the chunk table changes (its
# id range moves on every (re)ingest) or after a while; a stale figure only nudges keyword
# ranking, never visibility.
_DF_TTL_SECONDS = 600.0
_df_lock = threading.Lock()
_df_cache: dict[str, tuple[tuple[int, int], float, int, dict[str, int]]] = {}


def _marker_sql() -> str:
    """The chunk table's (max id, min id) as two select-list items: the cache's marker."""
    chunk = _tables()["chunk"]
    return f"(SELECT coalesce(max(id), 0) FROM {chunk}), (SELECT coalesce(min(id), 0) FROM {chunk})"


def _document_frequencies(
    cursor, lexemes: Sequence[str], marker: tuple[int, int] | None = None
) -> tuple[int, dict[str, int]]:
    """(number of chunks, {lexeme: chunks containing it}) for these lexemes, current schema.

    `marker` is the chunk table's (max id, min id) if the caller read it already: cached
    figures from another marker are stale. Each lexeme's postings are counted once (an
    index-only count) and cached. (ts_stat over every chunk took seconds at a million
    chunks, in the first search request after each ingest.)
    """
    t = _tables()
    if marker is None:
        cursor.execute(f"SELECT {_marker_sql()}")
        marker = tuple(cursor.fetchone())
    schema = connection.schema_name if hasattr(connection, "schema_name") else "public"
    now = time.monotonic()
    known: dict[str, int] = {}
    with _df_lock:
        cached = _df_cache.get(schema)
        if cached and cached[0] == marker and now - cached[1] < _DF_TTL_SECONDS:
            started, total = cached[1], cached[2]
            known = {lex: cached[3][lex] for lex in lexemes if lex in cached[3]}
        else:
            cached = None
    if cached is None:
        cursor.execute(f"SELECT count(*) FROM {t['chunk']} WHERE search_vector IS NOT NULL")
        started, total = now, int(cursor.fetchone()[0])
    missing = [lex for lex in dict.fromkeys(lexemes) if lex not in known]
    if missing:
        cursor.execute(
            f"SELECT (SELECT count(*) FROM {t['term']} t WHERE t.lexeme = u.lexeme) "
            "FROM unnest(%s::text[]) WITH ORDINALITY AS u(lexeme, n) ORDER BY n",
            [missing],
        )
        counted = dict(zip(missing, (int(row[0]) for row in cursor.fetchall()), strict=True))
        known.update(counted)
        with _df_lock:
            entry = _df_cache.get(schema)
            if entry is None or entry[0] != marker or entry[1] != started:
                entry = (marker, started, total, {})
                _df_cache[schema] = entry
            entry[3].update(counted)
    return total, {lex: known[lex] for lex in lexemes}


def reset_keyword_stats() -> None:
    """Forget cached document frequencies (tests, bulk loads)."""
    with _df_lock:
        _df_cache.clear()


def idf(total: int, df: int) -> float:
    """BM25's inverse document frequency (the +1 form, never negative)."""
    return math.log(1.0 + (total - df + 0.5) / (df + 0.5))


# Terms in more than this share of chunks still score, but do not by themselves make a
# chunk a candidate: OR-matching on "the"-like words would read most of the postings.
COMMON_TERM_SHARE = 0.05
COMMON_TERM_MIN_DF = 100  # small corpora: every term may match
MAX_QUERY_TERMS = 64
# At most this many matching rows (by the document frequencies), the visibility check is
# done as an index probe per match instead of hashing every visible document: at 100k
# chunks / 20k documents the hash build alone costs ~5 ms, a few hundred probes well under
# that. Same SQL, same rows; only the join strategy changes.
NESTED_LOOP_MAX_MATCHES = 2000
# A common term scores the candidates by a probe per candidate, by (lexeme, chunk_id), only
# when its postings are more than this many times those probes: reading one posting in a
# scan costs about an eighth of a probe.
COMMON_SCAN_PER_PROBE = 8
# One term's weight in a chunk is ts_rank(search_vector, term, 1), stored with the posting
# (kb.models.ChunkTerm); a chunk's score is the IDF-weighted sum over the query terms.
_TERMS_SQL = "unnest(%s::text[], %s::float8[]) AS q(lexeme, idf)"


def keyword_arm(
    *,
    query: str,
    scope: Scope,
    k: int,
    language: str,
    vector: Sequence[float] | None = None,
) -> list[Candidate]:
    """The k best full-text matches among the visible chunks, OR-semantics, IDF-weighted.

    plainto_tsquery ANDs every term, which returns nothing for a long natural-language
    question; here any query lexeme may match, each weighted by its IDF times ts_rank's
    saturating, length-normalised term frequency (a BM25-like score). The terms' postings
    come from kb_chunkterm's primary key alone, weights included. Inside a caller's
    transaction it runs in a savepoint: any database error (e.g. an unknown text-search
    configuration) raises KeywordArmError and leaves the surrounding transaction usable.
    """
    if k <= 0:
        return []
    t = _tables()
    guard = transaction.atomic() if connection.in_atomic_block else nullcontext()
    try:
        with guard, connection.cursor() as cursor:
            # The query's lexemes and the chunk table's marker for the frequency cache, in
            # one round trip.
            cursor.execute(
                "SELECT ARRAY(SELECT lexeme FROM unnest(to_tsvector(%s::regconfig, %s))), "
                + _marker_sql(),
                [language, query],
            )
            found, highest, lowest = cursor.fetchone()
            lexemes = list(found)[:MAX_QUERY_TERMS]
            if not lexemes:
                return []
            total, frequencies = _document_frequencies(cursor, lexemes, (highest, lowest))
            idfs = {lex: idf(total, frequencies.get(lex, 0)) for lex in lexemes}
            present = sorted(
                (lex for lex in lexemes if frequencies.get(lex, 0) > 0),
                key=lambda lex: frequencies[lex],
            )
            if not present:
                return []
            common_df = max(COMMON_TERM_SHARE * total, COMMON_TERM_MIN_DF)
            matching = [lex for lex in present if frequencies[lex] <= common_df] or present[:3]
            # Candidates are the chunks holding a candidate-making term, read term by term
            # from the postings and summed per chunk. Common terms select nothing but still
            # score: their postings are read along (and count only for chunks a selecting
            # term made candidates), or, when they are much longer than the candidates,
            # probed per candidate. The same scores either way.
            common = [lex for lex in present if lex not in matching]
            candidates = sum(frequencies[lex] for lex in matching)
            common_postings = sum(frequencies[lex] for lex in common)
            probe = common_postings > COMMON_SCAN_PER_PROBE * candidates * len(common)
            probed = common if probe else []
            read = [lex for lex in present if lex not in probed]
            common_sql, common_params = "0", []
            if probed:
                common_sql = (
                    f"coalesce((SELECT sum(q.idf * t.weight) FROM {_TERMS_SQL} "
                    f"JOIN {t['term']} t ON t.lexeme = q.lexeme AND t.chunk_id = m.id), 0)"
                )
                common_params = [probed, [idfs[lex] for lex in probed]]
            cosine_sql = "1 - (c.embedding <=> %s::vector)" if vector is not None else "NULL"
            cosine_params = [vector_literal(vector)] if vector is not None else []
            local = dict(SERIAL)
            if candidates <= NESTED_LOOP_MAX_MATCHES:
                local["enable_hashjoin"] = "off"
            rows = fetch_with_settings(
                cursor,
                local,
                f"""
                WITH matched AS (
                    SELECT t.chunk_id AS id, t.document_id, sum(q.idf * t.weight) AS score
                    FROM unnest(%s::text[], %s::float8[], %s::bool[]) AS q(lexeme, idf, selects)
                    JOIN {t["term"]} t ON t.lexeme = q.lexeme
                    GROUP BY t.chunk_id, t.document_id
                    HAVING bool_or(q.selects)
                ),
                hits AS MATERIALIZED (
                    SELECT s.id, s.keyword_score FROM (
                        SELECT m.id, m.document_id, m.score + {common_sql} AS keyword_score
                        FROM matched m
                        ORDER BY keyword_score DESC, m.id OFFSET 0
                    ) s
                    WHERE s.document_id IN ({scope.sql})
                    ORDER BY s.keyword_score DESC, s.id
                    LIMIT %s
                )
                SELECT {_COLUMNS}, {cosine_sql} AS cosine, h.keyword_score
                FROM hits h
                JOIN {t["chunk"]} c ON c.id = h.id
                JOIN {t["document"]} d ON d.id = c.document_id
                JOIN {t["project"]} p ON p.id = d.project_id
                ORDER BY h.keyword_score DESC, c.id
                """,
                (
                    read,
                    [idfs[lex] for lex in read],
                    [lex in matching for lex in read],
                    *common_params,
                    *scope.params,
                    k,
                    *cosine_params,
                ),
            )
    except DatabaseError as exc:
        if space_changed(exc):  # not a keyword failure: the whole search is redone
            raise EmbeddingSpaceChanged(str(exc)) from exc
        raise KeywordArmError(str(exc).strip().splitlines()[0] if str(exc) else "error") from exc
    return _candidates(rows, arm="keyword")


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
    t = _tables()
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
                {_COLUMNS}, {cosine_sql} AS cosine, NULL::float8 AS keyword_score
            FROM docs
            JOIN {t["chunk"]} c ON c.document_id = docs.id
            JOIN {t["document"]} d ON d.id = c.document_id
            JOIN {t["project"]} p ON p.id = d.project_id
            ORDER BY c.document_id, {order_sql}
            """,
            (*scope.params, *params, *cosine_params, *order_params),
        )
        rows = cursor.fetchall()
    return _candidates(rows, arm="none")
