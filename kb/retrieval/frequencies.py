"""Document frequencies of lexemes per tenant schema, for IDF weighting (keyword arm and the
evidence gate): the chunk count and, per lexeme a query asked about, the chunks containing it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

from kb.retrieval.sql import tables
from portal.tenants.selectors import current_schema

# Document frequencies per tenant schema, for IDF weighting: the chunk count and, per lexeme
# a query asked about, the chunks containing it. Forgotten when the chunk table changes (its
# id range moves on every (re)ingest) or after a while; a stale figure only nudges keyword
# ranking, never visibility.
_DF_TTL_SECONDS = 600.0
_df_lock = threading.Lock()
_df_cache: dict[str, tuple[tuple[int, int], float, int, dict[str, int]]] = {}


def marker_sql() -> str:
    """The chunk table's (max id, min id) as two select-list items: the cache's marker."""
    chunk = tables()["chunk"]
    return f"(SELECT coalesce(max(id), 0) FROM {chunk}), (SELECT coalesce(min(id), 0) FROM {chunk})"


def document_frequencies(
    cursor, lexemes: Sequence[str], marker: tuple[int, int] | None = None
) -> tuple[int, dict[str, int]]:
    """(number of chunks, {lexeme: chunks containing it}) for these lexemes, current schema.

    `marker` is the chunk table's (max id, min id) if the caller read it already: cached
    figures from another marker are stale. Each lexeme's postings are counted once (an
    index-only count) and cached. (ts_stat over every chunk took seconds at a million
    chunks, in the first search request after each ingest.)
    """
    t = tables()
    if marker is None:
        cursor.execute(f"SELECT {marker_sql()}")
        marker = tuple(cursor.fetchone())
    schema = current_schema()
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
