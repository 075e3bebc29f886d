"""Identifiers named in a query (ADR numbers, error codes, env vars, slugs, quoted titles).

Embeddings blur `ADR-0005` into `ADR-0011` and `GW-4012` into `GW-4013`; a reader who names
an identifier means exactly that one. This stage finds the documents that define it (slug,
frontmatter id or title) or, failing that, the few that contain it, adds their chunks to the
candidates and asks the ranker to boost them like an @mention.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from django.db import connection

from kb.retrieval.sql import COLUMNS, Scope, candidates, tables, vector_literal
from kb.retrieval.types import Candidate
from kb.words import identifiers


@dataclass(frozen=True, kw_only=True)
class IdentifierMatch:
    candidates: tuple[Candidate, ...]
    slugs: tuple[str, ...]  # documents to boost like an @mention
    naming_chunk_ids: frozenset[int] = frozenset()  # chunks whose text names an identifier


def _word_pattern(identifier: str) -> str:
    """A case-insensitive POSIX regex matching the identifier as a whole word."""
    return r"(^|[^A-Za-z0-9_])" + re.escape(identifier) + r"($|[^A-Za-z0-9_])"


def identifier_candidates(
    *,
    query: str,
    scope: Scope,
    vector: Sequence[float] | None,
    max_docs: int,
    max_chunks: int,
    language: str,
) -> IdentifierMatch:
    """Chunks of the visible documents that define (or, failing that, contain) an identifier.

    An identifier contained in more than `max_docs` documents does not single anything out
    and is ignored; documents that define it (slug, frontmatter id, title) always count.
    """
    found = identifiers(query)
    if not found:
        return IdentifierMatch(candidates=(), slugs=())
    t = tables()
    defining_ids: list[int] = []  # documents an identifier names: all their chunks count
    exact_ids: set[int] = set()  # of those, named by slug or id: boosted like an @mention
    containing_ids: list[int] = []  # documents that mention it: the chunks that do count
    patterns: list[str] = []
    with connection.cursor() as cursor:
        for identifier in found.exact:
            pattern = _word_pattern(identifier)
            cursor.execute(
                f"""SELECT id, exact FROM (
                        SELECT d.id, d.title,
                               lower(d.slug) = lower(%s) OR lower(d.doc_id) = lower(%s) AS exact
                        FROM {t["document"]} d WHERE d.id IN ({scope.sql})
                    ) named
                    WHERE exact OR title ~* %s""",
                (identifier, identifier, *scope.params, pattern),
            )
            rows = cursor.fetchall()
            defining = [row[0] for row in rows]
            exact_ids.update(row[0] for row in rows if row[1])
            defining_ids.extend(d for d in defining if d not in defining_ids)
            if defining:
                continue
            # The regex alone reads every visible chunk (seconds at a million chunks); the
            # identifier's words narrow the scan through the full-text (GIN) index first. An
            # identifier of stop words only has none: then the regex reads everything.
            cursor.execute(
                "SELECT plainto_tsquery(%s::regconfig, %s)::text", [language, identifier]
            )
            words = cursor.fetchone()[0]
            narrow = "c.search_vector @@ %s::tsquery AND" if words else ""
            cursor.execute(
                f"""SELECT DISTINCT c.document_id FROM {t["chunk"]} c
                    WHERE c.document_id IN ({scope.sql}) AND {narrow} c.text ~* %s
                    LIMIT %s""",
                (*scope.params, *([words] if words else []), pattern, max_docs + 1),
            )
            containing = [row[0] for row in cursor.fetchall()]
            if not containing or len(containing) > max_docs:
                continue  # everywhere (or nowhere): it singles nothing out
            patterns.append(pattern)
            containing_ids.extend(d for d in containing if d not in containing_ids)
        if found.slug_like or found.titles:
            cursor.execute(
                f"""SELECT d.id FROM {t["document"]} d
                    WHERE d.id IN ({scope.sql})
                      AND (lower(d.slug) = ANY(%s) OR lower(d.title) = ANY(%s))""",
                (*scope.params, list(found.slug_like), [x.lower() for x in found.titles]),
            )
            named_ids = [r[0] for r in cursor.fetchall()]
            exact_ids.update(named_ids)  # a slug or a quoted title: as explicit as an id
            defining_ids.extend(d for d in named_ids if d not in defining_ids)
        if not defining_ids and not containing_ids:
            return IdentifierMatch(candidates=(), slugs=())
        cosine = "1 - (c.embedding <=> %s::vector)" if vector is not None else "NULL::float8"
        order = "c.embedding <=> %s::vector" if vector is not None else "c.chunk_order"
        literal = (vector_literal(vector),) if vector is not None else ()
        cursor.execute(
            f"""SELECT {COLUMNS}, {cosine} AS cosine, NULL::float8 AS keyword_score
                FROM {t["chunk"]} c
                JOIN {t["document"]} d ON d.id = c.document_id
                JOIN {t["project"]} p ON p.id = d.project_id
                WHERE c.document_id = ANY(%s)
                   OR (c.document_id = ANY(%s) AND c.text ~* ANY(%s))
                ORDER BY {order}, c.id
                LIMIT %s""",
            (*literal, defining_ids, containing_ids, patterns or [""], *literal, max_chunks),
        )
        rows = cursor.fetchall()
    found_candidates = candidates(rows, arm="identifier")
    # Only a document the identifier names exactly (slug, id, quoted title) is boosted like
    # an @mention. One whose title or text merely contains it joins the candidates on its
    # own merits: where names recur in titles and running text (PD-1, B12, IL-6 in
    # abstracts) a boost for each such document overrode the ranking (SciFact train hybrid
    # nDCG@10 0.7062 with it, 0.7306 without the whole identifier stage).
    slugs = tuple(
        dict.fromkeys(c.slug.lower() for c in found_candidates if c.document_id in exact_ids)
    )
    compiled = [re.compile(_word_pattern(i), re.IGNORECASE) for i in found.exact]
    naming = frozenset(
        c.chunk_id for c in found_candidates if any(p.search(c.text) for p in compiled)
    )
    return IdentifierMatch(candidates=tuple(found_candidates), slugs=slugs, naming_chunk_ids=naming)
