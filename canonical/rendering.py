"""Server-side rendering for the record page: sanitised content and the neighbourhood SVG."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import bleach
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

ALLOWED_TAGS = frozenset(
    {
        "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "code",
        "em", "strong", "del", "s", "ul", "ol", "li", "a", "table", "thead", "tbody", "tr",
        "th", "td",
    }
)  # fmt: skip
ALLOWED_ATTRIBUTES = {"a": ["href", "title"], "code": ["class"], "ol": ["start"]}
ALLOWED_PROTOCOLS = frozenset({"http", "https", "mailto"})

# Raw HTML in a document is escaped by the parser; bleach is the second line of defence.
_markdown = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
_cleaner = bleach.Cleaner(
    tags=ALLOWED_TAGS,
    attributes=ALLOWED_ATTRIBUTES,
    protocols=ALLOWED_PROTOCOLS,
    strip=True,
    strip_comments=True,
)


def rebuild_content(chunks: Iterable[tuple[str, int]]) -> str:
    """Join (text, overlap_chars) pairs in chunk order, dropping each repeated overlap."""
    parts: list[str] = []
    for text, overlap_chars in chunks:
        piece = text[overlap_chars:] if overlap_chars else text
        if parts and not overlap_chars:
            parts.append("\n\n")
            piece = piece.lstrip("\n")
        parts.append(piece)
    return "".join(parts).strip("\n")


def render_markdown(content: str) -> SafeString:
    """Markdown to HTML through the bleach allow-list (no script, handlers, js:/data: URLs)."""
    if not content.strip():
        return mark_safe("")
    return mark_safe(_cleaner.clean(_markdown.render(content)))  # noqa: S308 - cleaned above


@dataclass(frozen=True, kw_only=True)
class GraphNode:
    key: str
    label: str
    status: str
    url: str = ""


@dataclass(frozen=True, kw_only=True)
class GraphEdge:
    source: str
    target: str
    edge_type: str


STATUS_COLOURS = {
    "accepted": "#2e7d32",
    "review": "#1565c0",
    "draft": "#6d6d6d",
    "deprecated": "#ef6c00",
    "superseded": "#8e24aa",
    "archived": "#9e9e9e",
}
DEFAULT_COLOUR = "#455a64"
MISSING_COLOUR = "#c62828"


def _shorten(text: str, limit: int = 22) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def render_neighbourhood_svg(
    *,
    centre: GraphNode,
    neighbours: list[GraphNode],
    edges: list[GraphEdge],
    width: int = 640,
    height: int = 380,
) -> SafeString:
    """A small radial SVG: the record in the middle, 1-hop neighbours around, typed arrows."""
    cx, cy = width / 2, height / 2
    radius = min(width, height) / 2 - 50
    positions: dict[str, tuple[float, float]] = {centre.key: (cx, cy)}
    count = max(len(neighbours), 1)
    for index, node in enumerate(neighbours):
        angle = -math.pi / 2 + 2 * math.pi * index / count
        positions[node.key] = (cx + radius * 1.35 * math.cos(angle), cy + radius * math.sin(angle))
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="record-graph" role="img" '
        f'viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'aria-label="Neighbourhood of {escape(centre.label)}">',
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" '
        'markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
        '<path d="M 0 0 L 10 5 L 0 10 z" fill="#607d8b"/></marker></defs>',
    ]
    for edge in edges:
        if edge.source not in positions or edge.target not in positions:
            continue
        (x1, y1), (x2, y2) = positions[edge.source], positions[edge.target]
        # Stop the line at the node's edge so the arrow head stays visible.
        length = math.hypot(x2 - x1, y2 - y1) or 1.0
        shrink = 16 / length
        sx, sy = x1 + (x2 - x1) * shrink, y1 + (y2 - y1) * shrink
        ex, ey = x2 - (x2 - x1) * shrink, y2 - (y2 - y1) * shrink
        out.append(
            f'<line x1="{sx:.1f}" y1="{sy:.1f}" x2="{ex:.1f}" y2="{ey:.1f}" stroke="#90a4ae" '
            'stroke-width="1.5" marker-end="url(#arrow)"/>'
        )
        mx, my = (x1 + x2) / 2, (y1 + y2) / 2
        out.append(
            f'<text x="{mx:.1f}" y="{my - 4:.1f}" font-size="10" fill="#455a64" '
            f'text-anchor="middle">{escape(edge.edge_type)}</text>'
        )
    for node in [centre, *neighbours]:
        x, y = positions[node.key]
        colour = (
            MISSING_COLOUR
            if node.status == "missing"
            else STATUS_COLOURS.get(node.status, DEFAULT_COLOUR)
        )
        r = 16 if node is centre else 11
        shape = (
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r}" fill="{colour}" '
            f'stroke="#263238" stroke-width="{2 if node is centre else 1}"/>'
            f'<text x="{x:.1f}" y="{y + r + 13:.1f}" font-size="11" fill="#263238" '
            f'text-anchor="middle">{escape(_shorten(node.label))}</text>'
            f"<title>{escape(node.label)} ({escape(node.status or 'no status')})</title>"
        )
        if node.url and node is not centre:
            shape = f'<a href="{escape(node.url)}">{shape}</a>'
        out.append(f"<g>{shape}</g>")
    out.append("</svg>")
    return mark_safe("".join(out))  # noqa: S308 - every interpolated string is escaped
