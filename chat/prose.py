"""Answer text as prose: markdown markers removed, [[wikilinks]] as titles, identifiers intact."""

from __future__ import annotations

import re

from chat.prompt import render_wikilinks

_LINK = re.compile(r"(?<!!)\[([^\[\]]+)\]\((?:https?://|/|#)[^)\s]*\)")
_BOLD = re.compile(r"\*\*(.+?)\*\*")
# *emphasis* only between non-word boundaries, so `a*b` and globs like `dedupe:dhl:*` survive
_EMPHASIS = re.compile(r"(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])")
_CODE = re.compile(r"`+([^`]*)`+")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+", re.MULTILINE)


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
