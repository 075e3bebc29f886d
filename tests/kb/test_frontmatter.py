"""Frontmatter parsing and validation, wikilinks, extraction (no database)."""

from __future__ import annotations

import pytest

from kb.demo import DEMO_CORPUS_DIR
from kb.ingestion.extract import UnsupportedSource, detect_source_type, extract
from kb.ingestion.frontmatter import parse_frontmatter
from kb.ingestion.prepare import prepare_document
from kb.markup import render_wikilinks, slugify, wikilink_slugs


def test_valid_canonical_frontmatter():
    front = parse_frontmatter(
        "---\ntype: runbook\nstatus: review\nslug: rb-x\nid: RB-1\nretrieval_priority: 70\n"
        "tags: [Ops, redis]\nowners: SRE, Platform\nsummary: Do it.\nrelated: [a, b]\n"
        "supersedes: [old-x]\nsuperseded_by: new-x\ndepends_on: [dep]\nimplements: [impl]\n"
        "generation_source: human\n---\n# Body [[Some Page]] and [[a|label]]\n"
    )
    assert front.is_canonical and front.errors == []
    assert (front.canonical_type, front.canonical_status, front.slug, front.doc_id) == (
        "runbook",
        "review",
        "rb-x",
        "RB-1",
    )
    assert front.retrieval_priority == 70
    assert front.tags == ["ops", "redis"] and front.owners == ["SRE", "Platform"]
    assert front.body == "# Body [[Some Page]] and [[a|label]]\n"
    assert front.edges == [
        ("related_to", "a"),
        ("related_to", "b"),
        ("supersedes", "old-x"),
        ("invalidated_by", "new-x"),
        ("depends_on", "dep"),
        ("implements", "impl"),
        ("related_to", "some-page"),
    ]


def test_missing_slug_is_not_canonical():
    front = parse_frontmatter("---\ntype: decision\nstatus: accepted\n---\nBody\n")
    assert not front.is_canonical


@pytest.mark.parametrize(
    ("block", "message"),
    [
        ("type: [oops", "invalid frontmatter YAML"),
        ("- just\n- a list", "not a key: value mapping"),
    ],
)
def test_broken_frontmatter_keeps_the_whole_text_and_reports(block, message):
    text = f"---\n{block}\n---\nBody\n"
    front = parse_frontmatter(text)
    assert front.body == text and not front.is_canonical
    assert any(message in error for error in front.errors)


def test_bad_values_are_dropped_with_errors():
    front = parse_frontmatter(
        "---\ntype: memo\nstatus: accepted\nslug: Not A Slug\nretrieval_priority: high\n"
        "tags: {a: 1}\ngeneration_source: robot\n---\nx\n"
    )
    assert front.canonical_type is None and front.slug is None
    assert front.retrieval_priority == 50 and front.tags == []
    assert front.generation_source == "human"
    assert len(front.errors) == 5


def test_no_frontmatter_and_unclosed_block():
    assert parse_frontmatter("# Title\n").body == "# Title\n"
    unclosed = "---\ntype: decision\n# Title\n"
    assert parse_frontmatter(unclosed).body == unclosed


def test_wikilinks_and_slugify():
    assert wikilink_slugs("[[Dec Cache V2]] [[x#sec]] [[x]] [[]]") == ["dec-cache-v2", "x"]
    titles = {"dec-cache-v2": "ADR-0011: Redis Cluster", "x": "X doc"}
    rendered = render_wikilinks("see [[dec-cache-v2#Decision]], [[x|the x]] and [[gone]]", titles)
    assert rendered == "see ADR-0011: Redis Cluster, the x and gone"
    assert slugify("Ünïcode File_Name 2024!") == "unicode-file-name-2024"


def test_extract_detects_types_and_refuses_binaries():
    assert detect_source_type("a/B.MD") == "markdown"
    assert detect_source_type("x.htm") == "html" and detect_source_type("x.xlsx") is None
    with pytest.raises(UnsupportedSource, match="binary"):
        extract(source_path="a.txt", content=b"ab\x00cd")
    with pytest.raises(UnsupportedSource, match="unsupported file type .xlsx"):
        extract(source_path="a.xlsx", content=b"PK")
    with pytest.raises(UnsupportedSource, match="unknown source type"):
        extract(source_path="a.md", content="x", source_type="xlsx")
    result = extract(source_path="a.txt", content=b"ok \xff\xfe end\r\n")
    assert result.text == "ok \ufffd\ufffd end\n" and "invalid UTF-8" in result.warnings[0]


def test_prepare_document_for_the_demo_handbook_is_canonical():
    path = DEMO_CORPUS_DIR / "dec-cache-v2.md"
    prepared = prepare_document(source_path=path.name, content=path.read_bytes())
    assert prepared.slug == "dec-cache-v2" and prepared.evidence_tier == "canonical"
    assert prepared.title.startswith("ADR-0011")
    assert ("supersedes", "dec-cache-v1") in prepared.edges
    assert prepared.warnings == []
    assert all(c.heading_path.startswith("ADR-0011") for c in prepared.chunks)
