"""kb.rendering without a database: sanitised markdown and the text rebuilt from chunks."""

from __future__ import annotations

from kb.rendering import rebuild_content, render_markdown, sanitise_html


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


def test_sanitising_from_many_threads_at_once_gives_each_its_own_result():
    """Request threads (gunicorn --threads) render previews at the same time. bleach's cleaner
    keeps parser state and is not thread-safe: a shared one crashed one preview in a few
    thousand under the 50-user load run (ValueError in html5lib) and could mix documents."""
    from concurrent.futures import ThreadPoolExecutor

    pages = [
        f"<p><em>page {i}</em> <strong>bold <code>code {i}</code></strong> "
        f"<a href='https://example.com/{i}'>link</a></p>" * 30
        for i in range(8)
    ]
    expected = [sanitise_html(page) for page in pages]
    with ThreadPoolExecutor(max_workers=8) as pool:
        for _ in range(3):
            got = list(pool.map(sanitise_html, pages * 40))
            assert got == expected * 40
