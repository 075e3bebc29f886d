"""Record page rendering without a database: the escaped neighbourhood SVG."""

from __future__ import annotations

from canonical.rendering import GraphEdge, GraphNode, render_neighbourhood_svg


def test_svg_escapes_titles_and_merges_parallel_edges():
    centre = GraphNode(key="doc:1", label='<script>alert("x")</script>', status="accepted")
    other = GraphNode(key="doc:2", label="Other & co", status="deprecated", url="/admin/x/2/")
    svg = render_neighbourhood_svg(
        centre=centre,
        neighbours=[other],
        edges=[
            GraphEdge(source="doc:1", target="doc:2", edge_type="related_to"),
            GraphEdge(source="doc:2", target="doc:1", edge_type="related_to"),
            GraphEdge(source="doc:2", target="doc:1", edge_type="depends_on"),
        ],
    )
    assert "<script" not in svg and "&lt;script&gt;" in svg
    assert "Other &amp; co" in svg and 'href="/admin/x/2/"' in svg
    assert svg.count("<line") == 1
    assert "← depends_on · ↔ related_to" in svg
