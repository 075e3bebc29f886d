"""The pure chunker: headings, breadcrumbs, caps, overlap, exact rebuild (no database)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kb.ingestion.chunk import chunk_text, estimate_tokens


def rebuild(chunks) -> str:
    return "".join(c.text[c.overlap_chars :] for c in chunks)


DOC = """Intro line before any heading.

# Handbook

Welcome text.

## Caching

### Redis

Use Redis.

```python
# not a heading inside code
x = 1
```

#### Deep detail

Still in Redis.

## Logging

Structured logs only.
"""


def test_sections_follow_headings_with_h1_to_h3_breadcrumbs():
    chunks = list(chunk_text(DOC, title="Doc title"))
    assert [c.heading_path for c in chunks] == [
        "Doc title",
        "Handbook",
        "Handbook > Caching > Redis",
        "Handbook > Logging",
    ]
    # the bare "## Caching" heading joined its first sub-section, the code comment and the
    # H4 stayed inside the Redis chunk
    assert chunks[2].text.startswith("## Caching\n\n### Redis")
    assert "# not a heading" in chunks[2].text and "#### Deep detail" in chunks[2].text
    assert [c.chunk_order for c in chunks] == [0, 1, 2, 3]
    assert rebuild(chunks) == DOC


def test_title_prefixes_the_breadcrumb_when_there_is_no_h1():
    chunks = list(chunk_text("## Setup\n\nInstall it.\n", title="Guide"))
    assert chunks[0].heading_path == "Guide > Setup"
    # the breadcrumb names the heading: the model reads it once
    assert chunks[0].embed_text == "Guide > Setup\nInstall it.\n"


def test_long_sections_split_by_paragraph_with_overlap_under_the_hard_cap():
    paragraphs = [f"Paragraph {i} " + "alpha beta gamma delta " * 20 for i in range(40)]
    text = "# Big\n\n" + "\n\n".join(paragraphs)
    chunks = list(chunk_text(text, target_tokens=200, max_tokens=260, overlap_tokens=30))
    assert len(chunks) > 5
    assert all(c.token_count <= 260 for c in chunks)
    assert all(c.heading_path == "Big" for c in chunks)
    assert chunks[0].overlap_chars == 0
    for previous, current in zip(chunks, chunks[1:], strict=False):
        assert current.overlap_chars > 0
        overlap = current.text[: current.overlap_chars]
        assert previous.text.endswith(overlap)
        assert estimate_tokens(overlap) <= 30
        # paragraph fallback: pieces start at a paragraph boundary
        assert current.text[current.overlap_chars :].startswith("Paragraph")
    assert rebuild(chunks) == text


def test_one_giant_paragraph_and_a_giant_word_are_hard_split():
    text = "word " * 5000 + "x" * 20000
    chunks = list(chunk_text(text, target_tokens=100, max_tokens=150, overlap_tokens=10))
    assert all(c.token_count <= 150 for c in chunks)
    assert rebuild(chunks) == text


def test_blank_and_empty_input_yield_no_chunks():
    assert list(chunk_text("")) == []
    assert list(chunk_text("\n\n   \n")) == []


def test_chunker_is_lazy():
    generator = chunk_text("# A\n\ntext\n" * 100_000)
    first = next(generator)
    assert first.chunk_order == 0


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.text(min_size=0, max_size=200),
            st.sampled_from(["# H1", "## H2", "### H3", "```", "\n\n", "- item", "#### h4"]),
        ),
        max_size=40,
    ),
    st.integers(min_value=8, max_value=120),
)
def test_any_text_is_rebuilt_exactly_and_respects_the_cap(parts, target):
    text = "\n".join(parts)
    max_tokens = target + target // 2
    chunks = list(chunk_text(text, target_tokens=target, max_tokens=max_tokens, overlap_tokens=8))
    assert rebuild(chunks) == text or (not text.strip() and chunks == [])
    assert all(c.token_count <= max_tokens for c in chunks)
    assert [c.chunk_order for c in chunks] == list(range(len(chunks)))


def test_chunks_fit_the_embedding_window_with_breadcrumb_and_overlap():
    """The model reads 256 word pieces: a 512-token chunk would be half unsearchable by meaning."""
    abstract = " ".join(f"finding{i} of the cohort study was significant" for i in range(120))
    text = f"# A long abstract title about cohort studies\n\n{abstract}\n"
    unbounded = list(chunk_text(text, title="A long abstract title about cohort studies"))
    windowed = list(chunk_text(text, title="x", embed_window=256, overlap_tokens=64))
    assert max(estimate_tokens(c.embed_text) for c in unbounded) > 256
    assert len(windowed) > len(unbounded)
    assert all(estimate_tokens(c.embed_text) <= 256 for c in windowed)
    # the title line opens the first chunk instead of becoming a chunk of its own
    assert windowed[0].text.startswith("# A long abstract title") and "finding0" in windowed[0].text
    assert rebuild(windowed) == text


def test_a_long_table_is_cut_between_rows_and_every_chunk_names_its_columns():
    header = "| Part no | Description | Unit price (EUR) | Lead time (weeks) |\n| --- | --- | --- | --- |\n"
    rows = "".join(
        f"| NV-{10000 + i} | Pitch bearing seal kit number {i} | {1000 + i} | {i % 12 + 1} |\n"
        for i in range(60)
    )
    text = f"# Price list\n\nPrices in EUR.\n\n{header}{rows}\nOrder through FieldDesk.\n"
    chunks = list(chunk_text(text, target_tokens=120, max_tokens=200, overlap_tokens=32))
    assert len(chunks) > 3
    assert "".join(c.text[c.overlap_chars :] for c in chunks) == text  # the slices still tile
    table_chunks = [c for c in chunks if "| NV-" in c.text]
    for chunk in table_chunks:
        lines = [line for line in chunk.text.splitlines() if line.startswith("|")]
        assert lines[0].startswith("| Part no"), chunk.text[:200]  # the header opens it
        assert all(line.endswith("|") for line in lines)  # no row is cut in half
    for chunk in table_chunks[1:]:
        assert chunk.text.startswith(header)


def test_a_document_of_several_top_sections_names_its_title_in_each():
    # a Word file: the Title paragraph, then sections as Heading 1
    text = "# On-call rota Q2\n\nPublished in March.\n\n# Rota\n\n| Week | Name |\n|---|---|\n| 13 Apr | Jake |\n\n# Phones\n\n- Duty manager: 0770\n"
    chunks = list(chunk_text(text, title="On-call rota Q2"))
    assert [c.heading_path for c in chunks] == [
        "On-call rota Q2",
        "On-call rota Q2 > Rota",
        "On-call rota Q2 > Phones",
    ]
    assert rebuild(chunks) == text
