"""Documents as retrieval saw them: text rebuilt from the chunks, HTML that cannot run script.

One implementation for every surface that shows document bytes (chat preview, curation console).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import bleach
from markdown_it import MarkdownIt

ALLOWED_TAGS = frozenset(
    {
        "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "code",
        "em", "strong", "del", "s", "ul", "ol", "li", "a", "img", "table", "thead", "tbody",
        "tr", "th", "td",
    }
)  # fmt: skip
ALLOWED_ATTRIBUTES = {
    "a": ["href", "title"],
    "img": ["src", "alt", "title"],
    "code": ["class"],
    "ol": ["start"],
}
ALLOWED_PROTOCOLS = frozenset({"http", "https", "mailto"})
SCHEME_RE = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def _allowed_attribute(tag: str, name: str, value: str) -> bool:
    """The allow-list, minus any URL that reaches another host without a click: images only
    from relative paths (no scheme), and no protocol-relative `//host` (or `/\\host`) URL."""
    if name not in ALLOWED_ATTRIBUTES.get(tag, []):
        return False
    if name in ("href", "src"):
        url = "".join(value.split()).replace("\\", "/")
        if url.startswith("//"):
            return False
        if tag == "img" and SCHEME_RE.match(url):
            return False
    return True


# Raw HTML in a document is shown as text, never parsed: the first line of defence.
_markdown = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable(
    ["table", "strikethrough"]
)
_cleaner = bleach.Cleaner(
    tags=ALLOWED_TAGS,
    attributes=_allowed_attribute,
    protocols=ALLOWED_PROTOCOLS,
    strip=True,
    strip_comments=True,
)


def rebuild_content(chunks: Iterable[tuple[str, int]]) -> str:
    """Join (text, overlap_chars) pairs in chunk order, dropping each chunk's repeated overlap.

    The chunker's slices tile the source exactly, so this is the indexed text, byte for byte.
    """
    return "".join(text[overlap_chars:] for text, overlap_chars in chunks)


def sanitise_html(html: str) -> str:
    """Allow-list clean: no script, iframe, style, on* handlers, javascript: or data: URLs,
    no external image and no protocol-relative link (no third-party request on opening)."""
    return _cleaner.clean(html)


def render_markdown(content: str) -> str:
    """Markdown to safe HTML (html disabled in the parser, then the bleach allow-list)."""
    if not content.strip():
        return ""
    return sanitise_html(_markdown.render(content))
