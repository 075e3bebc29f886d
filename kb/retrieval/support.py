"""How much of a query the retrieved chunks actually contain (the grounding gate's evidence).

A cosine of 0.35 can mean "about the same topic" or "shares the word password". Weighting
each query lexeme by its inverse document frequency tells the two apart: the words that make
a question specific (compensation, Wi-Fi) are rare, and an answer that lacks them is not one.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import connection

from kb.retrieval.frequencies import document_frequencies
from kb.retrieval.sql import tables
from kb.words import content_words, idf


def query_support(*, query: str, chunk_ids: Sequence[int], language: str) -> float:
    """The best IDF-weighted share (0..1) of the query's lexemes that one of the chunks holds.

    Lexemes no chunk of the tenant contains weigh the most: a question about something the
    knowledge base never mentions is not supported by whatever it shares in common words.
    """
    shares = query_shares(query=query, chunk_ids=chunk_ids, language=language)
    return round(max(shares.values(), default=0.0), 4)


def query_shares(*, query: str, chunk_ids: Sequence[int], language: str) -> dict[int, float]:
    """Each chunk's IDF-weighted share (0..1) of the query's content words' lexemes (see
    `query_support`; the word model's stop words, such as the "many" of "how many", are the
    question's form, not what it is about)."""
    query = content_words(query)
    if not chunk_ids or not query:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT DISTINCT lexeme FROM unnest(to_tsvector(%s::regconfig, %s))",
            [language, query],
        )
        lexemes = [row[0] for row in cursor.fetchall()]
        if not lexemes:
            return {}
        total, frequencies = document_frequencies(cursor, lexemes)
        weights = {lex: idf(total, frequencies.get(lex, 0)) for lex in lexemes}
        whole = sum(weights.values())
        if whole <= 0:
            return {}
        cursor.execute(
            f"SELECT id, tsvector_to_array(search_vector) FROM {tables()['chunk']} "
            "WHERE id = ANY(%s) AND search_vector IS NOT NULL",
            [list(chunk_ids)],
        )
        return {
            chunk_id: sum(weights[lex] for lex in set(array or ()) & weights.keys()) / whole
            for chunk_id, array in cursor.fetchall()
        }


def word_idfs(*, words: Sequence[str], language: str) -> dict[str, float]:
    """Each word's inverse document frequency over the tenant's chunks (its text-search
    lexeme's postings); a word the configuration drops (a stop word) is left out. Rare
    words weigh the most: they are what a question is specifically about."""
    unique = list(dict.fromkeys(w for w in words if w.strip()))
    if not unique:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT w, (SELECT lexeme FROM unnest(to_tsvector(%s::regconfig, w)) LIMIT 1) "
            "FROM unnest(%s::text[]) AS w",
            [language, unique],
        )
        lexeme_of = {word: lexeme for word, lexeme in cursor.fetchall() if lexeme}
        if not lexeme_of:
            return {}
        total, frequencies = document_frequencies(cursor, sorted(set(lexeme_of.values())))
    return {word: idf(total, frequencies.get(lexeme, 0)) for word, lexeme in lexeme_of.items()}
