"""Documents as retrieval saw them: text rebuilt from the chunks, HTML that cannot run script.

One implementation for every surface that shows document bytes (chat preview, curation console).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable

import bleach
from markdown_it import MarkdownIt
from markdown_it.token import Token

from kb.markup import fix_legacy_escapes

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
# bleach's Cleaner keeps its HTML parser's state between calls and is not thread-safe: each
# request thread gets its own (a shared one crashed previews under concurrent load).
_cleaners = threading.local()


def _cleaner() -> bleach.Cleaner:
    cleaner = getattr(_cleaners, "cleaner", None)
    if cleaner is None:
        cleaner = _cleaners.cleaner = bleach.Cleaner(
            tags=ALLOWED_TAGS,
            attributes=_allowed_attribute,
            protocols=ALLOWED_PROTOCOLS,
            strip=True,
            strip_comments=True,
        )
    return cleaner


def rebuild_content(chunks: Iterable[tuple[str, int]]) -> str:
    """Join (text, overlap_chars) pairs in chunk order, dropping each chunk's repeated overlap.

    The chunker's slices tile the source exactly, so this is the indexed text, byte for byte.
    """
    return "".join(text[overlap_chars:] for text, overlap_chars in chunks)


def sanitise_html(html: str) -> str:
    """Allow-list clean: no script, iframe, style, on* handlers, javascript: or data: URLs,
    no external image and no protocol-relative link (no third-party request on opening)."""
    return _cleaner().clean(html)


def render_markdown(content: str, rewrite: Callable[[str], str] | None = None) -> str:
    """Markdown to safe HTML (html disabled in the parser, then the bleach allow-list).
    `rewrite` (e.g. wikilinks to links) changes the Markdown first, keeping its lines."""
    if not content.strip():
        return ""
    text = fix_legacy_escapes(content)
    return sanitise_html(_markdown.render(rewrite(text) if rewrite else text))


def render_markdown_marking(
    content: str, start: int, end: int, rewrite: Callable[[str], str] | None = None
) -> tuple[str, str, str]:
    """Render `content` once and split the HTML into (before, marked, after): `marked` holds
    the top-level blocks (paragraphs, lists, tables, code blocks) that overlap characters
    [start, end). A block the range cuts through is marked whole, so a table or code block
    split between two chunks still renders as one block. `rewrite` as in render_markdown."""
    if not content.strip():
        return "", "", ""
    text = fix_legacy_escapes(content)
    text = rewrite(text) if rewrite else text
    first_line = content.count("\n", 0, max(0, start))
    last_line = content.count("\n", 0, max(start, end - 1))  # the line holding end - 1
    env: dict[str, object] = {}
    tokens = _markdown.parse(text, env)
    groups: tuple[list[Token], list[Token], list[Token]] = ([], [], [])
    block: list[Token] = []
    block_lines: tuple[int, int] | None = None
    for token in tokens:
        if not block and token.map:
            block_lines = (token.map[0], token.map[1])
        block.append(token)
        if token.level == 0 and token.nesting <= 0:  # the block closes (or had no children)
            begin, stop = block_lines or (0, 0)
            if stop <= first_line:
                groups[0].extend(block)
            elif begin > last_line:
                groups[2].extend(block)
            else:
                groups[1].extend(block)
            block, block_lines = [], None
    groups[2].extend(block)
    before, marked, after = (
        sanitise_html(_markdown.renderer.render(group, _markdown.options, env)) if group else ""
        for group in groups
    )
    return before, marked, after
