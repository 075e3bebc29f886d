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
# markers an extractor escaped to keep text as text: "\# x", "\- x", "3\. x"
_ESCAPED_NUMBER = re.compile(r"^(\s*)(\d+)\\\.(?= )", re.MULTILINE)
_ESCAPED_MARKER = re.compile(r"^(\s*)\\([#>|*+-])", re.MULTILINE)
# what extractors wrote before an ordered-list number escaped its period: "\3. x", which
# Markdown shows as written
_LEGACY_NUMBER_ESCAPE = re.compile(r"^(\s*)\\(\d+)\. ", re.MULTILINE)


def fix_legacy_escapes(text: str) -> str:
    r"""Text extracted before the fix ("\3. x") written as today's escape ("3\. x")."""
    return _LEGACY_NUMBER_ESCAPE.sub(lambda m: f"{m.group(1)}{m.group(2)}\\. ", text)


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


def render_wikilinks(text: str, titles: dict[str, str], urls: dict[str, str] | None = None) -> str:
    """[[slug]] and [[slug#section]] -> the document's title ([[slug|label]] -> label); a slug
    with no visible title keeps its own name. With `urls` ({slug: URL}), a linked document
    becomes a Markdown link to its URL."""

    def title(match: re.Match[str]) -> str:
        slug = slugify(match.group(1))
        label = (match.group(3) or "").strip() or titles.get(slug, match.group(1).strip())
        url = (urls or {}).get(slug)
        if not url:
            return label
        return "[" + re.sub(r"([\\\[\]])", r"\\\1", label) + f"]({url})"

    return WIKILINK_RE.sub(title, text)


def to_prose(text: str, link_titles: dict[str, str] | None = None) -> str:
    """Strip markdown markers (bold, emphasis, code ticks, headings, links) and render
    [[wikilinks]] as titles. Underscores are left alone: they belong to identifiers."""
    text = render_wikilinks(text, link_titles or {})
    text = _ESCAPED_NUMBER.sub(r"\1\2.", fix_legacy_escapes(text))
    text = _ESCAPED_MARKER.sub(r"\1\2", text)
    text = _LINK.sub(r"\1", text)
    text = _CODE.sub(r"\1", text)
    text = _BOLD.sub(r"\1", text)
    text = _EMPHASIS.sub(r"\1", text)
    text = _HEADING.sub("", text)
    return text


_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,}).*$", re.MULTILINE)
_TABLE_RULE = re.compile(
    r"^[ \t]*\|?[ \t]*:?-{3,}:?[ \t]*(\|[ \t]*:?-{3,}:?[ \t]*)*\|?[ \t]*$", re.MULTILINE
)
_TABLE_ROW = re.compile(r"^[ \t]*\|(.*)\|[ \t]*$", re.MULTILINE)
_QUOTE = re.compile(r"^\s{0,3}>\s?", re.MULTILINE)


def to_plain_text(text: str, link_titles: dict[str, str] | None = None) -> str:
    """Text for a one-line excerpt (search snippets): `to_prose`, and no code fences, table
    rules or pipes (a row reads "cell · cell") or quote markers."""
    text = _FENCE.sub("", text)
    text = _TABLE_RULE.sub("", text)
    text = _TABLE_ROW.sub(
        lambda m: " · ".join(cell.strip() for cell in m.group(1).split("|") if cell.strip()),
        text,
    )
    text = _QUOTE.sub("", text)
    return to_prose(text, link_titles)
