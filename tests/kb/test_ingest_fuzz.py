"""Fuzz of ingestion: hostile frontmatter, headings, tables and sizes.

Whatever the document, ingest answers (created, updated, skipped or a per-file failure),
never raises, stays within the time budget, and never leaves a half-written document: a
failure keeps the previous version exactly, a success stores chunks that tile the body.
"""

from __future__ import annotations

import itertools
import json
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kb.models import Document
from kb.services import document_ingest
from portal.access.services import project_ensure
from tests.conftest import make_user, token_for

pytestmark = pytest.mark.django_db

TIME_BUDGET = 2.0
SLACK = 1.5  # the embedder and the database write come on top of the preparation budget

spaces = st.text(alphabet=" \t", min_size=0, max_size=3000)
words = st.text(alphabet="abcXYZ019 -_*`#|:,[]{}&*!>\\'\"", min_size=0, max_size=60)
scalar = st.one_of(words, st.integers(), st.booleans(), st.none(), st.floats(allow_nan=False))
yaml_value = st.recursive(
    scalar.map(json.dumps),
    lambda inner: st.one_of(
        st.lists(inner, max_size=5).map(lambda items: "[" + ", ".join(items) + "]"),
        st.tuples(words, inner).map(lambda kv: "{" + json.dumps(kv[0]) + ": " + kv[1] + "}"),
    ),
    max_leaves=20,
)
hostile_yaml = st.sampled_from(
    [
        "a: &a [x]\nb: *a",
        "a: &a [*a]",
        "tags: " + "[" * 300 + "]" * 300,
        "tags: 'a" + " " * 5000 + "b'",
        "tags: [" + "t" * 150 + "]",
        "summary: " + "x" * 70_000,
        "x: !!python/object:os.system ['echo']",
        "- just\n- a list",
        "::: not yaml :::",
        "slug: ../../etc/passwd",
    ]
)
frontmatter_line = st.one_of(
    st.tuples(
        st.sampled_from(
            ["type", "status", "slug", "title", "tags", "owners", "related", "summary", "x"]
        ),
        yaml_value,
    ).map(lambda kv: f"{kv[0]}: {kv[1]}"),
    hostile_yaml,
)
frontmatter = st.lists(frontmatter_line, max_size=6).map(
    lambda lines: "---\n" + "\n".join(lines) + "\n---\n"
)
heading = st.tuples(st.integers(1, 8), spaces, words, spaces, st.text("#", max_size=4)).map(
    lambda parts: "#" * parts[0] + parts[1] + parts[2] + parts[3] + parts[4]
)
table = st.lists(st.lists(words, min_size=1, max_size=6), min_size=1, max_size=30).map(
    lambda rows: "\n".join("| " + " | ".join(cells) + " |" for cells in rows)
)
paragraph = st.one_of(words, st.text(max_size=300), spaces.map(lambda s: "word" + s + "end"))
block = st.one_of(heading, table, paragraph, st.just("```\ncode\n"), st.just("[[link|x]]"))
body = st.tuples(st.lists(block, max_size=15), st.integers(1, 400)).map(
    lambda parts: ("\n\n".join(parts[0]) + "\n") * (parts[1] if len(parts[0]) < 3 else 1)
)
documents = st.tuples(st.one_of(st.just(""), frontmatter), body).map("".join)

_paths = itertools.count()


def _snapshot(project, path: str) -> tuple | None:
    document = Document.objects.filter(project=project, source_path=path).first()
    if document is None:
        return None
    return (
        document.pk,
        document.content_hash,
        document.deleted_at,
        list(document.chunks.order_by("chunk_order").values_list("text", flat=True)),
    )


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(content=documents, reuse_path=st.booleans())
def test_ingest_never_crashes_hangs_or_half_writes(alpha, settings, content, reuse_path):
    settings.KB = {
        **settings.KB,
        "INGEST_MAX_SECONDS": TIME_BUDGET,
        "INGEST_MAX_CHUNKS": 200,
        "INGEST_MAX_FILE_BYTES": 400_000,
    }
    project = project_ensure(key="fuzz")
    path = "fuzz/same.md" if reuse_path else f"fuzz/doc-{next(_paths)}.md"
    before = _snapshot(project, path)
    started = time.perf_counter()
    outcome = document_ingest(project=project, source_path=path, content=content)
    elapsed = time.perf_counter() - started
    assert elapsed < TIME_BUDGET + SLACK, f"{elapsed:.2f}s for {len(content)} chars"
    assert outcome.status in {"created", "updated", "skipped", "failed"}
    after = _snapshot(project, path)
    if outcome.status == "failed":
        assert outcome.error
        assert after == before  # nothing written, the previous version intact
        return
    if outcome.status == "skipped" and outcome.document is None:
        return  # unsupported source: nothing written
    document = outcome.document
    chunks = list(document.chunks.order_by("chunk_order"))
    assert len(chunks) == outcome.chunks
    assert all(chunk.embedding is not None for chunk in chunks)
    # the stored chunks tile the body: the text after the frontmatter, as extraction normalised it
    normalised = content.lstrip("\ufeff").replace("\x00", "")
    normalised = normalised.replace("\r\n", "\n").replace("\r", "\n")
    tiled = "".join(chunk.text[chunk.overlap_chars :] for chunk in chunks)
    assert normalised.endswith(tiled)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(content=documents)
def test_documents_api_answers_hostile_content_without_a_500(alpha, settings, content):
    settings.KB = {**settings.KB, "INGEST_MAX_SECONDS": TIME_BUDGET, "INGEST_MAX_CHUNKS": 200}
    editor = make_user(alpha, "fuzz-editor", projects={"fuzz-api": "editor"})
    client = alpha.client(HTTP_AUTHORIZATION=f"Token {token_for(alpha, editor)}")
    path = f"fuzz/api-{next(_paths)}.md"
    response = client.post(
        "/api/kb/documents",
        json.dumps({"project_key": "fuzz-api", "source_path": path, "content": content}),
        content_type="application/json",
    )
    assert response.status_code in {200, 201, 400}, response.content[:500]
    if response.status_code == 400:
        assert not Document.objects.filter(source_path=path).exists()
