"""The two retrieval arms: semantic (pgvector HNSW, cosine) and keyword (PostgreSQL FTS).

Both arms restrict to `Document.objects.visible_to(user).filtered(filters)` INSIDE
their SQL (a `document_id IN (<visible documents>)` sub-select), so a top-k is never cut
before visibility is applied and nothing invisible is ever loaded. The SQL they share
(scope, columns, tables, settings-scoped statements) lives in `kb.retrieval.sql`.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext

from django.db import DatabaseError, DataError, connection, transaction

from kb.embeddings.exceptions import EmbeddingSpaceChanged
from kb.retrieval import pruning
from kb.retrieval.exceptions import KeywordArmError
from kb.retrieval.frequencies import document_frequencies, marker_sql
from kb.retrieval.pruning import SCORE_SCALE
from kb.retrieval.sql import (
    COLUMNS,
    SERIAL,
    Scope,
    candidates,
    fetch_with_settings,
    space_changed,
    tables,
    vector_literal,
)
from kb.retrieval.types import Candidate
from kb.words import idf

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
    t = tables()
    literal = vector_literal(vector)
    sql = f"""
        WITH hits AS MATERIALIZED (
            SELECT c.id, c.embedding <=> %s::vector AS distance
            FROM {t["chunk"]} c
            WHERE c.embedding IS NOT NULL AND c.document_id IN ({scope.sql})
            ORDER BY c.embedding <=> %s::vector
            LIMIT %s
        )
        SELECT {COLUMNS}, 1 - h.distance AS cosine, NULL::float8 AS keyword_score
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
    return candidates(rows, arm="semantic")


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
# (kb.models.ChunkTerm); a chunk's score is the IDF-weighted sum over the query terms, each
# term's part rounded to an integer of 1e-9 points (pruning.SCORE_SCALE) so that every
# statement adds up the same score whatever order it sums in.
_TERMS_SQL = "unnest(%s::text[], %s::float8[]) AS q(lexeme, idf)"
_PART = "round(q.idf * t.weight)"


def _probe_sql(term_table: str, chunk: str) -> str:
    """The summed parts of some terms (2 params: lexemes, scaled idfs) in the chunk `chunk`,
    one probe of the postings' key per term; 0 when it holds none."""
    return (
        f"coalesce((SELECT sum({_PART}) FROM {_TERMS_SQL} "
        f"JOIN {term_table} t ON t.lexeme = q.lexeme AND t.chunk_id = {chunk}), 0)"
    )


def _parts_sql(term_table: str) -> str:
    """Every chunk holding some of the terms (2 params: lexemes, scaled idfs) with the sum
    of their parts in it (chunk_id, document_id, partial), read from the terms' postings."""
    return (
        f"SELECT t.chunk_id, t.document_id, sum({_PART}) AS partial "
        f"FROM {_TERMS_SQL} JOIN {term_table} t ON t.lexeme = q.lexeme "
        "GROUP BY t.chunk_id, t.document_id"
    )


def _best_visible(scored: str, scope: Scope) -> str:
    """The k (a parameter after the scope's) best visible rows of `scored` (id, document_id,
    keyword_score), best first, ties by chunk id. Scored rows are sorted before the
    visibility check (OFFSET 0 keeps the planner from interleaving them), so the check runs
    only until k visible ones are found."""
    return f"""
        SELECT s.id, s.keyword_score FROM (
            {scored}
            ORDER BY keyword_score DESC, id OFFSET 0
        ) s
        WHERE s.document_id IN ({scope.sql})
        ORDER BY s.keyword_score DESC, s.id
        LIMIT %s
    """


def _select_hits(vector: Sequence[float] | None) -> tuple[str, list]:
    """The statement's last SELECT: the candidate columns of the chunks of the CTE `hits`
    (id, keyword_score), best first; and its parameters (the query vector)."""
    t = tables()
    cosine_sql = "1 - (c.embedding <=> %s::vector)" if vector is not None else "NULL"
    return (
        f"""
        SELECT {COLUMNS}, {cosine_sql} AS cosine, h.keyword_score / {SCORE_SCALE}::float8
        FROM hits h
        JOIN {t["chunk"]} c ON c.id = h.id
        JOIN {t["document"]} d ON d.id = c.document_id
        JOIN {t["project"]} p ON p.id = d.project_id
        ORDER BY h.keyword_score DESC, c.id
        """,
        [vector_literal(vector)] if vector is not None else [],
    )


def keyword_arm(
    *,
    query: str,
    scope: Scope,
    k: int,
    language: str,
    vector: Sequence[float] | None = None,
    prune: bool = False,
) -> list[Candidate]:
    """The k best full-text matches among the visible chunks, OR-semantics, IDF-weighted.

    plainto_tsquery ANDs every term, which returns nothing for a long natural-language
    question; here any query lexeme may match, each weighted by its IDF times ts_rank's
    saturating, length-normalised term frequency (a BM25-like score). The terms' postings
    come from kb_chunkterm's primary key alone, weights included. With `prune`
    (KB_KEYWORD_PRUNING) a query with many postings to read is pruned
    (`kb.retrieval.pruning`: the same top k from fewer postings but more probes); without
    it every posting of a selecting term is scored. Inside a caller's
    transaction it runs in a savepoint: any database error (e.g. an unknown text-search
    configuration) raises KeywordArmError and leaves the surrounding transaction usable.
    """
    if k <= 0:
        return []
    t = tables()
    guard = transaction.atomic() if connection.in_atomic_block else nullcontext()
    try:
        with guard, connection.cursor() as cursor:
            # The query's lexemes and the chunk table's marker for the frequency cache, in
            # one round trip.
            cursor.execute(
                "SELECT ARRAY(SELECT lexeme FROM unnest(to_tsvector(%s::regconfig, %s))), "
                + marker_sql(),
                [language, query],
            )
            found, highest, lowest = cursor.fetchone()
            lexemes = list(found)[:MAX_QUERY_TERMS]
            if not lexemes:
                return []
            total, frequencies = document_frequencies(cursor, lexemes, (highest, lowest))
            scaled = {lex: idf(total, frequencies.get(lex, 0)) * SCORE_SCALE for lex in lexemes}
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
            candidate_count = sum(frequencies[lex] for lex in matching)
            common_postings = sum(frequencies[lex] for lex in common)
            probe = common_postings > COMMON_SCAN_PER_PROBE * candidate_count * len(common)
            probed = common if probe else []
            read = [lex for lex in present if lex not in probed]
            local = dict(SERIAL)
            if candidate_count <= NESTED_LOOP_MAX_MATCHES:
                local["enable_hashjoin"] = "off"
            rows = None
            if prune and pruning.worth_pruning(frequencies, read):
                rows = _pruned(
                    cursor,
                    local,
                    present=present,
                    matching=matching,
                    frequencies=frequencies,
                    scaled=scaled,
                    scope=scope,
                    k=k,
                    vector=vector,
                )
            if rows is None:
                common_sql, common_params = "0", []
                if probed:
                    common_sql = _probe_sql(t["term"], "m.id")
                    common_params = [probed, [scaled[lex] for lex in probed]]
                final, final_params = _select_hits(vector)
                rows = fetch_with_settings(
                    cursor,
                    local,
                    f"""
                    WITH matched AS (
                        SELECT t.chunk_id AS id, t.document_id, sum({_PART}) AS score
                        FROM unnest(%s::text[], %s::float8[], %s::bool[])
                            AS q(lexeme, idf, selects)
                        JOIN {t["term"]} t ON t.lexeme = q.lexeme
                        GROUP BY t.chunk_id, t.document_id
                        HAVING bool_or(q.selects)
                    ),
                    hits AS MATERIALIZED ({
                        _best_visible(
                            f"SELECT m.id, m.document_id, m.score + {common_sql} AS keyword_score "
                            "FROM matched m",
                            scope,
                        )
                    })
                    {final}
                    """,
                    (
                        read,
                        [scaled[lex] for lex in read],
                        [lex in matching for lex in read],
                        *common_params,
                        *scope.params,
                        k,
                        *final_params,
                    ),
                )
    except DatabaseError as exc:
        if space_changed(exc):  # not a keyword failure: the whole search is redone
            raise EmbeddingSpaceChanged(str(exc)) from exc
        raise KeywordArmError(str(exc).strip().splitlines()[0] if str(exc) else "error") from exc
    return candidates(rows, arm="keyword")


def _pruned(
    cursor,
    local: dict[str, str],
    *,
    present: list[str],
    matching: list[str],
    frequencies: dict[str, int],
    scaled: dict[str, float],
    scope: Scope,
    k: int,
    vector: Sequence[float] | None,
) -> list[tuple] | None:
    """The keyword arm's rows by MaxScore pruning (kb.retrieval.pruning), or None when the
    query cannot be pruned (then the exhaustive statement runs).

    Round 1: the rarest selecting terms' postings give the visible chunks with the best
    partial scores (a few per result); their exact scores (every term probed) set theta,
    the k-th best of them: a score at least k visible chunks reach. Round 2 reads only the
    essential terms' postings, keeps the chunks whose essential part plus the pruned terms'
    bounds reach theta, and probes the pruned terms for those. Same scores as the
    exhaustive statement, so the same top k. Both run under the arm's planner settings.
    """
    t = tables()
    all_sql = _probe_sql(t["term"], "r.chunk_id")
    first = pruning.first_round_terms(matching, frequencies)
    rows = fetch_with_settings(
        cursor,
        local,
        f"""
        WITH part AS ({_parts_sql(t["term"])}),
        r AS MATERIALIZED (
            SELECT p.chunk_id FROM part p WHERE p.document_id IN ({scope.sql})
            ORDER BY p.partial DESC, p.chunk_id LIMIT %s
        )
        SELECT NULL, {all_sql} FROM r
        UNION ALL
        SELECT q.lexeme, round(q.idf * b.max_weight) FROM {_TERMS_SQL}
        LEFT JOIN {t["bound"]} b ON b.lexeme = q.lexeme
        """,
        [
            first,
            [scaled[lex] for lex in first],
            *scope.params,
            pruning.FIRST_ROUND_PER_RESULT * k,
            present,
            [scaled[lex] for lex in present],
            present,
            [scaled[lex] for lex in present],
        ],
    )
    exact = [value for lexeme, value in rows if lexeme is None]
    bounds = {lexeme: value for lexeme, value in rows if lexeme is not None}
    if len(exact) < k:  # fewer than k visible chunks: nothing to prune against
        return None
    theta = sorted(exact, reverse=True)[k - 1]  # k visible chunks score at least this
    split = pruning.split_terms(present, frozenset(matching), bounds, theta)
    if split is None:
        return None
    essential, pruned, pruned_bound = split
    final, final_params = _select_hits(vector)
    return fetch_with_settings(
        cursor,
        local,
        f"""
        WITH essential AS ({_parts_sql(t["term"])} HAVING sum({_PART}) + %s >= %s),
        hits AS MATERIALIZED ({
            _best_visible(
                "SELECT r.chunk_id AS id, r.document_id, "
                f"r.partial + {_probe_sql(t['term'], 'r.chunk_id')} AS keyword_score FROM essential r",
                scope,
            )
        })
        {final}
        """,
        (
            essential,
            [scaled[lex] for lex in essential],
            pruned_bound,
            theta,
            pruned,
            [scaled[lex] for lex in pruned],
            *scope.params,
            k,
            *final_params,
        ),
    )
