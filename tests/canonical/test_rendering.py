"""Record page rendering without a database: sanitised markdown, escaped SVG, rebuilt text."""

from __future__ import annotations

from canonical.rendering import (
    GraphEdge,
    GraphNode,
    render_markdown,
    render_neighbourhood_svg,
)
from kb.rendering import rebuild_content


def test_markdown_is_rendered_and_script_free():
    html = render_markdown(
        "# Title\n\n<script>alert(1)</script>\n\n<iframe src='x'></iframe>\n\n"
        "[a](javascript:alert(1)) [b](data:text/html,hi) [ok](https://example.com)\n\n"
        '<img src=x onerror="alert(1)">'
    )
    assert "<h1>Title</h1>" in html
    for forbidden in (
        "<script",
        "<iframe",
        'href="javascript:',
        'href="data:',
        "<img",
        'onerror="',
    ):
        assert forbidden not in html
    assert '<a href="https://example.com">ok</a>' in html


def test_empty_content_renders_nothing():
    assert render_markdown("  \n") == ""


def test_rebuild_strips_overlaps_and_keeps_the_chunker_tiling():
    text = rebuild_content(
        [("# A\n\nOne two. ", 0), ("One two. Three.\n\n", 9), ("## B\n\nFour.", 0)]
    )
    assert text == "# A\n\nOne two. Three.\n\n## B\n\nFour."


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
