"""kb.rendering without a database: sanitised markdown and the text rebuilt from chunks."""

from __future__ import annotations

from kb.rendering import rebuild_content, render_markdown


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
