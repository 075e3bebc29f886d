"""document_ingest / documents_ingest_many on real PostgreSQL + pgvector (hash embedder)."""

from __future__ import annotations

import math

import pytest
from django.db import connection

from kb.embeddings import EmbeddingError, get_embedder
from kb.models import Chunk, Document, Edge
from kb.services import (
    IngestItem,
    document_ingest,
    document_soft_delete,
    document_update_metadata,
    documents_ingest_many,
    ingest_summary,
)
from portal.access.services import project_ensure
from tests.conftest import make_user

DOC_V1 = """---
type: decision
status: accepted
slug: dec-cache
retrieval_priority: 90
tags: [cache, Redis]
owners: [Platform Team]
summary: We cache with Redis.
related: [rb-failover]
supersedes: [dec-old-cache]
---

# Cache decision

## Context

Memcached lost data on restarts and we needed persistence.

## Decision

Use Redis Cluster for every cache. See [[on-call]] when it breaks.
"""

DOC_V2 = DOC_V1.replace("Use Redis Cluster for every cache.", "Use Valkey for every cache.")


class FailingEmbedder:
    """An embedder whose provider is down."""

    name = "failing"
    dimensions = 384

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        raise EmbeddingError("provider unavailable")

    def embed_query(self, text: str) -> list[float]:
        raise EmbeddingError("provider unavailable")


class WrongSizeEmbedder(FailingEmbedder):
    name = "wrong-size"

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [[1.0] + [0.0] * 767 for _ in texts]


@pytest.fixture
def project(alpha):
    return project_ensure(key="kb-ingest")


def ingest(project, path="decisions/dec-cache.md", content=DOC_V1, **kwargs):
    return document_ingest(project=project, source_path=path, content=content, **kwargs)


def test_ingest_creates_document_chunks_vectors_fts_and_edges(project):
    outcome = ingest(project)
    assert outcome.status == "created" and outcome.error is None
    doc = outcome.document
    assert (doc.slug, doc.title) == ("dec-cache", "Cache decision")
    assert (doc.canonical_type, doc.canonical_status, doc.evidence_tier) == (
        "decision",
        "accepted",
        "canonical",
    )
    assert doc.retrieval_priority == 90
    assert doc.tags == ["cache", "redis"] and doc.owners == ["Platform Team"]
    assert doc.summary == "We cache with Redis."
    chunks = list(doc.chunks.order_by("chunk_order"))
    assert outcome.chunks == len(chunks) >= 2
    assert [c.heading_path for c in chunks][-1] == "Cache decision > Decision"
    assert all(abs(math.sqrt(sum(v * v for v in c.embedding)) - 1) < 1e-5 for c in chunks)
    # the body (without frontmatter) is rebuilt exactly from the chunks
    body = DOC_V1.split("---\n", 2)[2]
    assert "".join(c.text[c.overlap_chars :] for c in chunks) == body
    # full-text search finds the chunk through the stored tsvector
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM kb_chunk WHERE document_id = %s AND "
            "search_vector @@ plainto_tsquery('english', 'persistence restarts')",
            [doc.pk],
        )
        assert cursor.fetchone()[0] == 1
    edges = set(Edge.objects.filter(from_document=doc).values_list("edge_type", "to_slug"))
    assert edges == {
        ("related_to", "rb-failover"),
        ("related_to", "on-call"),
        ("supersedes", "dec-old-cache"),
    }


def test_same_content_is_skipped_without_writes(project):
    first = ingest(project)
    updated_at = first.document.updated_at
    chunk_ids = set(first.document.chunks.values_list("id", flat=True))
    again = ingest(project)
    assert again.status == "skipped"
    assert again.document.pk == first.document.pk
    again.document.refresh_from_db()
    assert again.document.updated_at == updated_at
    assert set(again.document.chunks.values_list("id", flat=True)) == chunk_ids
    assert again.chunks == len(chunk_ids)


def test_changed_content_replaces_chunks(project):
    first = ingest(project)
    second = ingest(project, content=DOC_V2)
    assert second.status == "updated" and second.document.pk == first.document.pk
    texts = " ".join(second.document.chunks.values_list("text", flat=True))
    assert "Valkey" in texts and "Redis Cluster for every cache" not in texts


def test_embedding_failure_leaves_previous_version_intact(project):
    first = ingest(project)
    before = list(first.document.chunks.order_by("chunk_order").values_list("id", "text"))
    failed = ingest(project, content=DOC_V2, embedder=FailingEmbedder())
    assert failed.status == "failed" and "provider unavailable" in failed.error
    doc = Document.objects.get(pk=first.document.pk)
    assert doc.content_hash == first.document.content_hash
    assert list(doc.chunks.order_by("chunk_order").values_list("id", "text")) == before
    # and a later retry with a working provider succeeds
    assert ingest(project, content=DOC_V2).status == "updated"


def test_wrong_dimension_provider_fails_with_clear_error(project):
    outcome = ingest(project, embedder=WrongSizeEmbedder())
    assert outcome.status == "failed"
    assert "768" in outcome.error and "vector(384)" in outcome.error
    assert not Document.objects.filter(project=project).exists()


def test_soft_delete_hides_and_reingest_revives(project, alpha):
    user = make_user(alpha, "kb-reader", projects={"kb-ingest": "reader"})
    doc = ingest(project).document
    assert Document.objects.visible_to(user).filter(pk=doc.pk).exists()
    document_soft_delete(document=doc)
    assert not Document.objects.visible_to(user).filter(pk=doc.pk).exists()
    revived = ingest(project)
    assert revived.status == "updated" and revived.document.pk == doc.pk
    assert Document.objects.visible_to(user).filter(pk=doc.pk).exists()


def test_edges_to_missing_slugs_resolve_when_the_target_arrives(project):
    source = ingest(project).document
    edge = Edge.objects.get(from_document=source, to_slug="rb-failover")
    assert edge.to_document_id is None
    target = ingest(project, path="runbooks/rb-failover.md", content="# Failover\n\nSteps.\n")
    edge.refresh_from_db()
    assert edge.to_document_id == target.document.pk
    # and the other direction: a document linking to an existing slug resolves at once
    linker = ingest(project, path="notes/linker.md", content="See [[rb-failover]].\n").document
    assert Edge.objects.get(from_document=linker).to_document_id == target.document.pk


def test_slug_from_file_name_and_title_from_h1_or_file_name(project):
    a = ingest(project, path="Some Folder/Team Notes_2024.md", content="# Weekly notes\n\nHi.\n")
    assert (a.document.slug, a.document.title) == ("team-notes-2024", "Weekly notes")
    b = ingest(project, path="plain/read_me.txt", content="just text\n")
    assert (b.document.slug, b.document.title, b.document.source_type) == (
        "read-me",
        "Read me",
        "text",
    )
    assert b.document.evidence_tier == "document" and b.document.canonical_type is None


def test_duplicate_slug_gets_a_suffix_and_a_warning(project):
    ingest(project, path="a/notes.md", content="# A\n\none\n")
    second = ingest(project, path="b/notes.md", content="# B\n\ntwo\n")
    assert second.status == "created"
    assert second.document.slug == "notes-2"
    assert any("already belongs" in w for w in second.warnings)


def test_binary_content_is_skipped_with_reason(project):
    outcome = ingest(project, path="img/logo.md", content=b"\x89PNG\r\n\x1a\n\x00\x00\x00IHDR")
    assert outcome.status == "skipped" and outcome.document is None
    assert any("binary" in w for w in outcome.warnings)


def test_unsupported_extension_is_skipped(project):
    outcome = ingest(project, path="data/sheet.xlsx", content=b"PK\x03\x04")
    assert outcome.status == "skipped"
    assert any("unsupported" in w for w in outcome.warnings)


def test_invalid_utf8_is_ingested_with_a_warning(project):
    outcome = ingest(project, path="notes/latin1.txt", content="caf\xe9 menu\n".encode("latin-1"))
    assert outcome.status == "created"
    assert any("invalid UTF-8" in w for w in outcome.warnings)
    assert "caf\ufffd menu" in outcome.document.chunks.get().text


def test_invalid_frontmatter_ingests_as_plain_document(project):
    content = "---\ntype: decision\nstatus: [unclosed\n---\n\n# Broken\n\nBody text.\n"
    outcome = ingest(project, path="notes/broken.md", content=content)
    assert outcome.status == "created"
    assert any("invalid frontmatter" in w for w in outcome.warnings)
    assert outcome.document.canonical_type is None
    assert outcome.document.evidence_tier == "document"


def test_invalid_frontmatter_values_are_reported_and_not_canonical(project):
    content = "---\ntype: decision\nstatus: approved\nslug: dec-x\nretrieval_priority: 300\n---\n\nBody.\n"
    outcome = ingest(project, path="notes/dec-x.md", content=content)
    doc = outcome.document
    assert doc.slug == "dec-x" and doc.canonical_type is None and doc.retrieval_priority == 50
    assert any("'status'" in w for w in outcome.warnings)
    assert any("retrieval_priority" in w for w in outcome.warnings)


def test_empty_file_becomes_a_document_without_chunks(project):
    outcome = ingest(project, path="notes/empty.md", content=b"")
    assert outcome.status == "created" and outcome.chunks == 0
    assert outcome.document.title == "Empty"
    assert not outcome.document.chunks.exists()


def test_too_large_source_fails_with_the_limit(project, settings):
    settings.KB = {**settings.KB, "INGEST_MAX_FILE_BYTES": 100}
    outcome = ingest(project, path="notes/big.md", content="x " * 100)
    assert outcome.status == "failed" and "KB_INGEST_MAX_FILE_BYTES" in outcome.error


def test_huge_file_is_chunked_under_the_cap(project, settings):
    settings.KB = {**settings.KB, "CHUNK_TARGET_TOKENS": 120, "CHUNK_MAX_TOKENS": 160}
    paragraph = "The ingest worker batches carrier events before writing them. " * 8
    content = "# Huge\n\n" + "\n\n".join(f"{paragraph} Part {i}." for i in range(300))
    outcome = ingest(project, path="notes/huge.md", content=content)
    assert outcome.status == "created" and outcome.chunks > 100
    assert (
        max(Chunk.objects.filter(document=outcome.document).values_list("token_count", flat=True))
        <= 160
    )
    rebuilt = "".join(
        c.text[c.overlap_chars :] for c in outcome.document.chunks.order_by("chunk_order")
    )
    assert rebuilt == content


def test_html_is_ingested_as_text_with_headings(project):
    html = (
        "<html><head><title>Runbook</title><script>alert(1)</script></head><body>"
        "<h1>Rotate keys</h1><p>First revoke.</p><h2>Verify</h2><p>Check &amp; log.</p>"
        "</body></html>"
    )
    outcome = ingest(project, path="web/rotate.html", content=html)
    doc = outcome.document
    assert doc.source_type == "html" and doc.title == "Rotate keys"
    text = " ".join(doc.chunks.values_list("text", flat=True))
    assert "alert" not in text and "Check & log." in text
    assert "Rotate keys > Verify" in set(doc.chunks.values_list("heading_path", flat=True))


def test_auto_generated_docs_get_the_auto_tier(project):
    content = "---\ntype: module-kb\nstatus: accepted\nslug: mod-x\ngeneration_source: auto\n---\n\nBody.\n"
    assert ingest(project, path="m/mod-x.md", content=content).document.evidence_tier == "auto"


def test_update_metadata_writes_only_given_fields(project):
    doc = ingest(project).document
    document_update_metadata(document=doc, tags=["Ops", "ops", " cache "], summary="New")
    doc.refresh_from_db()
    assert doc.tags == ["ops", "cache"] and doc.summary == "New" and doc.title == "Cache decision"


def test_bulk_ingest_reports_each_file_and_survives_bad_ones(project):
    def unreadable() -> bytes:
        raise PermissionError("permission denied")

    items = [
        IngestItem(source_path=f"bulk/doc-{i}.md", content=f"# Doc {i}\n\nText {i}.\n")
        for i in range(7)
    ]
    items.insert(3, IngestItem(source_path="bulk/locked.md", content=unreadable))
    items.insert(5, IngestItem(source_path="bulk/blob.md", content=b"\x00\x01"))
    outcomes = documents_ingest_many(project=project, items=items, batch_chunks=2)
    summary = ingest_summary(outcomes)
    assert (summary["created"], summary["skipped"], len(summary["failed"])) == (7, 1, 1)
    assert summary["failed"][0]["path"] == "bulk/locked.md"
    assert summary["chunks"] == 7 and summary["documents"] == 7
    again = ingest_summary(documents_ingest_many(project=project, items=items[:3]))
    assert again["skipped"] == 3 and again["created"] == 0


def test_bulk_isolates_a_document_the_embedder_rejects(project):
    class Picky:
        name = "picky"
        dimensions = 384

        def embed_documents(self, texts):
            if any("poison" in t for t in texts):
                raise EmbeddingError("cannot embed poison")
            return get_embedder().embed_documents(texts)

        def embed_query(self, text):
            return get_embedder().embed_query(text)

    items = [
        IngestItem(source_path="p/a.md", content="# A\n\nfine\n"),
        IngestItem(source_path="p/b.md", content="# B\n\npoison\n"),
        IngestItem(source_path="p/c.md", content="# C\n\nfine too\n"),
    ]
    summary = ingest_summary(documents_ingest_many(project=project, items=items, embedder=Picky()))
    assert summary["created"] == 2
    assert [f["path"] for f in summary["failed"]] == ["p/b.md"]


def test_bulk_batch_write_links_documents_of_the_same_batch_and_updates(project, caplog):
    def items(version: str) -> list[IngestItem]:
        return [
            IngestItem(source_path="g/a.md", content=f"# A {version}\n\nSee [[b]] and [[c]].\n"),
            IngestItem(source_path="g/b.md", content=f"# B {version}\n\nSee [[a]].\n"),
            IngestItem(source_path="g/c.md", content=f"# C {version}\n\nAlone.\n"),
        ]

    first = ingest_summary(documents_ingest_many(project=project, items=items("v1")))
    assert first["created"] == 3
    ids = dict(Document.objects.filter(project=project).values_list("slug", "id"))
    edges = set(
        Edge.objects.filter(from_document__project=project).values_list(
            "from_document__slug", "to_document_id"
        )
    )
    assert edges == {("a", ids["b"]), ("a", ids["c"]), ("b", ids["a"])}
    second = ingest_summary(documents_ingest_many(project=project, items=items("v2")))
    assert second["updated"] == 3
    assert dict(Document.objects.filter(project=project).values_list("slug", "id")) == ids
    assert Document.objects.get(pk=ids["a"]).title == "A v2"
    assert Chunk.objects.filter(document__project=project).count() == 3
    assert "A v2" in Chunk.objects.get(document_id=ids["a"]).text
    assert (
        Edge.objects.filter(from_document__project=project, to_document__isnull=True).count() == 0
    )
    assert Edge.objects.filter(from_document__project=project).count() == 3
    assert "batch write failed" not in caplog.text  # the set-based path did the work


def test_bulk_batch_with_a_slug_clash_falls_back_per_document(project):
    ingest(project, path="x/notes.md", content="# Old notes\n")
    items = [
        IngestItem(source_path="y/notes.md", content="# New notes\n"),
        IngestItem(source_path="y/other.md", content="# Other\n"),
    ]
    outcomes = documents_ingest_many(project=project, items=items)
    assert [o.status for o in outcomes] == ["created", "created"]
    assert outcomes[0].document.slug == "notes-2"
    assert any("already belongs" in w for w in outcomes[0].warnings)


class LeakyFailingEmbedder(FailingEmbedder):
    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        raise EmbeddingError("POST http://embed.internal:8080/v1/embeddings refused")


def test_embedding_failure_does_not_echo_the_provider_detail(project):
    failed = ingest(project, content=DOC_V2, embedder=LeakyFailingEmbedder())
    assert failed.status == "failed" and "embed.internal" not in failed.error
    assert "server log" in failed.error
