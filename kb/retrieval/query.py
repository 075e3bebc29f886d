"""Pure helpers that read a query: its content terms and its @mentions."""

from __future__ import annotations

import re
from functools import lru_cache

_TOKEN = re.compile(r"[a-z0-9]+(?:[-_.][a-z0-9]+)*")
_SEPARATOR = re.compile(r"[-_.]")
_MENTION = re.compile(r"(?<![\w@])@([a-z0-9][a-z0-9_-]{0,199})", re.IGNORECASE)

# Small English stop list: the heading/tag/preamble signals should count content words only.
STOPWORDS = frozenset(
    """a about after again all also am an and any are as at be because been before being
    between both but by can could did do does doing don down during each few for from further
    had has have having he her here hers him his how i if in into is it its itself just me
    more most my no nor not now of off on once only or other our ours out over own same she
    should so some such than that the their theirs them then there these they this those
    through to too under until up very was we were what when where which while who whom why
    will with would you your yours""".split()
)


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    """A deliberately light suffix strip so 'caches'/'caching' meet 'cache'."""
    for suffix in ("ing", "ies", "es", "ed", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


@lru_cache(maxsize=8192)  # the reranker reads the same headings and openings on every search
def terms(text: str) -> frozenset[str]:
    """Lower-cased, lightly stemmed content terms; compound tokens also yield their parts."""
    out: set[str] = set()
    for token in _TOKEN.findall(text.lower()):
        parts = [token, *_SEPARATOR.split(token)] if _SEPARATOR.search(token) else [token]
        for part in parts:
            if part and part not in STOPWORDS:
                out.add(_stem(part))
    return frozenset(out)


def mentions(text: str) -> tuple[str, ...]:
    """Slugs the query @mentions, in order of first appearance, lower-cased."""
    seen: list[str] = []
    for slug in _MENTION.findall(text):
        slug = slug.lower()
        if slug not in seen:
            seen.append(slug)
    return tuple(seen)


def strip_mentions(text: str) -> str:
    """The query with '@' removed from mentions, so both arms still see the slug words."""
    return _MENTION.sub(lambda m: m.group(1), text)


def overlap(query_terms: frozenset[str], text: str) -> float:
    """Fraction of the query terms present in `text` (0 when the query has no terms)."""
    if not query_terms:
        return 0.0
    # Every term of a text is a prefix of a part of one of its lower-cased tokens, so a
    # query term that is not a substring of the lower-cased text cannot be among them:
    # most candidate texts are never tokenised (the reranker's main cost per search).
    lowered = text.lower()
    if not any(term in lowered for term in query_terms):
        return 0.0
    return len(query_terms & terms(text)) / len(query_terms)
