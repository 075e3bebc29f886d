"""Server-side rendering for the record page: the neighbourhood SVG."""

from __future__ import annotations

import math
from dataclasses import dataclass

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe


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


def _edge_summary(kinds: dict[str, set[str]], limit: int = 2) -> str:
    """`↔ related_to · → affects`: edge types between the record and one neighbour."""
    parts = []
    for edge_type in sorted(kinds):
        arrows = kinds[edge_type]
        arrow = "↔" if len(arrows) == 2 else next(iter(arrows))
        parts.append(f"{arrow} {edge_type}")
    if len(parts) > limit:
        parts = [*parts[:limit], f"+{len(parts) - limit}"]
    return " · ".join(parts)


def render_neighbourhood_svg(
    *,
    centre: GraphNode,
    neighbours: list[GraphNode],
    edges: list[GraphEdge],
    width: int = 920,
) -> SafeString:
    """A small radial SVG: the record in the middle, 1-hop neighbours around, typed links.

    Several edges between the same pair are drawn as one line labelled with every type
    (→ out of the record, ← into it), so a busy record stays legible.
    """
    height = 380 if len(neighbours) <= 10 else 520
    cx, cy = width / 2, height / 2
    rx, ry = width / 2 - 215, height / 2 - 50
    positions: dict[str, tuple[float, float]] = {centre.key: (cx, cy)}
    count = max(len(neighbours), 1)
    for index, node in enumerate(neighbours):
        # Offset by half a step so no two nodes share the crowded top/bottom of the ring.
        angle = -math.pi / 2 + math.pi / count + 2 * math.pi * index / count
        positions[node.key] = (cx + rx * math.cos(angle), cy + ry * math.sin(angle))
    links: dict[str, dict[str, set[str]]] = {}
    for edge in edges:
        if edge.source == centre.key and edge.target in positions:
            links.setdefault(edge.target, {}).setdefault(edge.edge_type, set()).add("→")
        elif edge.target == centre.key and edge.source in positions:
            links.setdefault(edge.source, {}).setdefault(edge.edge_type, set()).add("←")
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="record-graph" role="img" '
        f'viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'aria-label="Neighbourhood of {escape(centre.label)}">'
    ]
    for key in links:
        x2, y2 = positions[key]
        out.append(
            f'<line x1="{cx:.1f}" y1="{cy:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="#b0bec5" '
            'stroke-width="1.5"/>'
        )
    for node in [centre, *neighbours]:
        x, y = positions[node.key]
        colour = (
            MISSING_COLOUR
            if node.status == "missing"
            else STATUS_COLOURS.get(node.status, DEFAULT_COLOUR)
        )
        is_centre = node is centre
        r = 16 if is_centre else 10
        # Labels sit on the outer side of each node, away from the lines to the centre:
        # beside it on the left and right of the ring, above/below it at the top and bottom.
        dx = (x - cx) / rx if rx else 0.0
        if is_centre or abs(dx) < 0.12:
            anchor, tx = "middle", x
            below = is_centre or y >= cy
            name_y = y + r + 13 if below else y - r - 18
        else:
            anchor = "start" if dx > 0 else "end"
            tx = x + (r + 5) * (1 if dx > 0 else -1)
            name_y = y - 1
        kinds_y = name_y + 12
        label = escape(_shorten(node.label, 44 if is_centre else 26))
        weight = ' font-weight="bold"' if is_centre else ""
        shape = (
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r}" fill="{colour}" '
            f'stroke="#263238" stroke-width="{2 if is_centre else 1}"/>'
            f'<text x="{tx:.1f}" y="{name_y:.1f}" font-size="11" fill="#263238" '
            f'text-anchor="{anchor}" class="node-label"{weight}>{label}</text>'
            f"<title>{escape(node.label)} ({escape(node.status or 'no status')})</title>"
        )
        kinds = links.get(node.key)
        if kinds:
            shape += (
                f'<text x="{tx:.1f}" y="{kinds_y:.1f}" font-size="9.5" fill="#607d8b" '
                f'text-anchor="{anchor}" class="edge-label">{escape(_edge_summary(kinds))}</text>'
            )
        if node.url and not is_centre:
            shape = f'<a href="{escape(node.url)}">{shape}</a>'
        out.append(f"<g>{shape}</g>")
    out.append("</svg>")
    return mark_safe("".join(out))  # noqa: S308 - every interpolated string is escaped
