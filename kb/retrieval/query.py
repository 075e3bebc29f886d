"""Pure helpers that read a query's @mentions (its words are read by `kb.words`)."""

from __future__ import annotations

import re

_MENTION = re.compile(r"(?<![\w@])@([a-z0-9][a-z0-9_-]{0,199})", re.IGNORECASE)


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
