"""Hostile documents: aliases, deep nesting, backtracking regexes, over-long tags, the budget.

Each is a clear per-file error (a 400 on the API), never a crash, a hang or a half-written
document.
"""

from __future__ import annotations

import json
import time

import pytest

from kb.ingestion.budget import IngestRejected
from kb.ingestion.chunk import chunk_text
from kb.ingestion.frontmatter import parse_frontmatter
from kb.models import Chunk, Document
from kb.services import IngestItem, document_ingest, documents_ingest_many
from portal.access.services import project_ensure
from tests.conftest import make_user, token_for

BILLION_LAUGHS = """---
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
tags: *i
---

# Laughs
"""

SELF_REFERENCE = """---
a: &a [*a]
tags: &t [x, *t]
---

# Loop
"""


def _timed(function, *args, **kwargs):
    started = time.perf_counter()
    result = function(*args, **kwargs)
    return result, time.perf_counter() - started


def test_billion_laughs_frontmatter_is_refused_fast():
    started = time.perf_counter()
    with pytest.raises(IngestRejected, match="alias"):
        parse_frontmatter(BILLION_LAUGHS)
    assert time.perf_counter() - started < 1.0


def test_self_referencing_alias_is_an_error_not_a_recursion():
    with pytest.raises(IngestRejected, match="alias"):
        parse_frontmatter(SELF_REFERENCE)


def test_deeply_nested_frontmatter_is_an_error_not_a_recursion():
    text = "---\ntags: " + "[" * 5000 + "]" * 5000 + "\n---\n\nbody\n"
    with pytest.raises(IngestRejected, match="nested deeper than 20 levels"):
        parse_frontmatter(text)


def test_anchors_without_aliases_still_parse():
    parsed = parse_frontmatter("---\ntitle: &t Hello\ntags: [a, b]\n---\n\nbody\n")
    assert parsed.title == "Hello" and parsed.tags == ["a", "b"]


def test_lists_with_long_runs_of_spaces_parse_in_linear_time():
    text = "---\nowners: 'a" + " " * 30_000 + "b, c'\n---\n\nbody\n"
    parsed, seconds = _timed(parse_frontmatter, text)
    assert seconds < 0.5
    assert len(parsed.owners) == 2 and parsed.owners[1] == "c"


def test_heading_with_many_spaces_chunks_in_linear_time():
    text = "# a" + " " * 30_000 + "b\n\nbody text\n"
    chunks, seconds = _timed(lambda: list(chunk_text(text, title="t")))
    assert seconds < 0.5
    assert "".join(c.text[c.overlap_chars :] for c in chunks) == text


@pytest.mark.django_db
def test_over_long_tag_is_a_clear_400_on_the_documents_api(alpha):
    make_user(alpha, "tag-editor", projects={"tags": "editor"})
    editor = make_user(alpha, "tag-editor", projects={"tags": "editor"})
    client = alpha.client(HTTP_AUTHORIZATION=f"Token {token_for(alpha, editor)}")
    content = "---\ntags: [" + "t" * 150 + "]\n---\n\n# Long tag\n\nbody\n"
    response = client.post(
        "/api/kb/documents",
        json.dumps({"project_key": "tags", "source_path": "long-tag.md", "content": content}),
        content_type="application/json",
    )
    assert response.status_code == 400
    assert "100 characters" in response.json()["detail"]
    assert not Document.objects.filter(source_path="long-tag.md").exists()


@pytest.mark.django_db
def test_alias_bomb_through_the_api_is_a_400_and_writes_nothing(alpha):
    editor = make_user(alpha, "bomb-editor", projects={"bomb": "editor"})
    client = alpha.client(HTTP_AUTHORIZATION=f"Token {token_for(alpha, editor)}")
    for name, content in (("laughs.md", BILLION_LAUGHS), ("loop.md", SELF_REFERENCE)):
        response = client.post(
            "/api/kb/documents",
            json.dumps({"project_key": "bomb", "source_path": name, "content": content}),
            content_type="application/json",
        )
        assert response.status_code == 400, response.content
        assert "alias" in response.json()["detail"]
    assert not Document.objects.filter(project__key="bomb").exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("setting", "value", "content", "message"),
    [
        (
            "INGEST_MAX_FRONTMATTER_BYTES",
            100,
            "---\nsummary: " + "x" * 200 + "\n---\n\nb\n",
            "frontmatter",
        ),
        ("INGEST_MAX_NESTING", 3, "---\nx: [[[[1]]]]\n---\n\nb\n", "nested"),
        ("INGEST_MAX_CHUNKS", 5, "\n\n".join(f"# H{n}\n\npara {n}" for n in range(20)), "chunks"),
        ("INGEST_MAX_SECONDS", 0.000001, "# T\n\n" + "word " * 20_000, "seconds"),
    ],
)
def test_each_budget_is_a_per_file_error_and_writes_nothing(
    alpha, settings, setting, value, content, message
):
    settings.KB = {**settings.KB, setting: value}
    project = project_ensure(key="budget")
    outcome = document_ingest(project=project, source_path="over.md", content=content)
    assert outcome.status == "failed"
    assert message in outcome.error
    assert not Document.objects.filter(source_path="over.md").exists()
    assert not Chunk.objects.filter(document__source_path="over.md").exists()


@pytest.mark.django_db
def test_a_budget_failure_in_bulk_leaves_the_other_files_and_the_old_version(alpha, settings):
    project = project_ensure(key="budget-bulk")
    document_ingest(project=project, source_path="keep.md", content="# Keep\n\nv1 text\n")
    settings.KB = {**settings.KB, "INGEST_MAX_CHUNKS": 3}
    outcomes = documents_ingest_many(
        project=project,
        items=[
            IngestItem(
                source_path="keep.md", content="\n\n".join(f"# H{n}\n\nx" for n in range(9))
            ),
            IngestItem(source_path="fine.md", content="# Fine\n\nsmall\n"),
        ],
    )
    by_path = {outcome.source_path: outcome for outcome in outcomes}
    assert by_path["keep.md"].status == "failed" and "chunks" in by_path["keep.md"].error
    assert by_path["fine.md"].status == "created"
    kept = Document.objects.get(source_path="keep.md")
    assert [chunk.text for chunk in kept.chunks.all()] == ["# Keep\n\nv1 text\n"]
