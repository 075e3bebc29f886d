"""Markdown as people read it: [[wikilinks]] and their slugs, and prose without markup.

One home for the wikilink grammar (`[[target]]`, `[[target|label]]`, `[[target#section]]`):
ingestion reads the links into edges, answers and previews render them as titles.
"""

from __future__ import annotations

import re
import unicodedata

WIKILINK_RE = re.compile(r"\[\[([^\[\]|#\n]+)(?:#([^\[\]|\n]*))?(?:\|([^\[\]\n]*))?\]\]")

_LINK = re.compile(r"(?<!!)\[([^\[\]]+)\]\((?:https?://|/|#)[^)\s]*\)")
_BOLD = re.compile(r"\*\*(.+?)\*\*")
# *emphasis* only between non-word boundaries, so `a*b` and globs like `dedupe:dhl:*` survive
_EMPHASIS = re.compile(r"(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])")
_CODE = re.compile(r"`+([^`]*)`+")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+", re.MULTILINE)


def slugify(value: str) -> str:
    """kebab-case ASCII slug ('' when nothing usable is left)."""
    value = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode("ascii")
    value = re.sub(r"[^a-zA-Z0-9]+", "-", value).strip("-").lower()
    return value[:200].strip("-")


def wikilink_slugs(text: str) -> list[str]:
    """Slugs of the documents `text` links to with [[wikilinks]], in first-seen order."""
    out: list[str] = []
    for match in WIKILINK_RE.finditer(text):
        slug = slugify(match.group(1))
        if slug and slug not in out:
            out.append(slug)
    return out


def render_wikilinks(text: str, titles: dict[str, str]) -> str:
    """[[slug]] and [[slug#section]] -> the document's title ([[slug|label]] -> label); a slug
    with no visible title keeps its own name."""

    def title(match: re.Match[str]) -> str:
        if match.group(3) and match.group(3).strip():
            return match.group(3).strip()
        target = match.group(1).strip()
        return titles.get(slugify(target), target)

    return WIKILINK_RE.sub(title, text)


def to_prose(text: str, link_titles: dict[str, str] | None = None) -> str:
    """Strip markdown markers (bold, emphasis, code ticks, headings, links) and render
    [[wikilinks]] as titles. Underscores are left alone: they belong to identifiers."""
    text = render_wikilinks(text, link_titles or {})
    text = _LINK.sub(r"\1", text)
    text = _CODE.sub(r"\1", text)
    text = _BOLD.sub(r"\1", text)
    text = _EMPHASIS.sub(r"\1", text)
    text = _HEADING.sub("", text)
    return text
