"""The keyword arm's postings (kb_chunkterm) follow the chunks' tsvectors in every write path.

The triggers of migration kb 0005 maintain them; each test compares the table with what the
chunks' search_vector columns say, computed here independently with unnest and ts_rank.
"""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from kb.models import Chunk, Document
from kb.postings import postings_state
from kb.retrieval import arms
from kb.retrieval.sql import Scope
from kb.services import IngestItem, document_ingest, documents_ingest_many
from portal.access.services import project_ensure

DOC = """# Cache decision

## Context

Memcached lost data on restarts and we needed persistence for the sessions.

## Decision

Use Redis Cluster for every cache layer.

## Consequences

The pager rota covers failover drills every quarter.
"""


def _postings(schema: str = "") -> set[tuple[str, int, int]]:
    table = f"{schema}.kb_chunkterm" if schema else "kb_chunkterm"
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT lexeme, chunk_id, document_id FROM {table}")
        return set(cursor.fetchall())


def _expected(schema: str = "") -> set[tuple[str, int, int]]:
    table = f"{schema}.kb_chunk" if schema else "kb_chunk"
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT u.lexeme, c.id, c.document_id FROM {table} c, unnest(c.search_vector) u"
        )
        return set(cursor.fetchall())


def _weights_match() -> None:
    """Every stored weight is ts_rank(search_vector, that lexeme, 1) of its chunk, exactly."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*), count(*) FILTER (WHERE t.weight = "
            "ts_rank(c.search_vector, quote_literal(t.lexeme)::tsquery, 1)) "
            "FROM kb_chunkterm t JOIN kb_chunk c ON c.id = t.chunk_id "
            "WHERE t.lexeme !~ '[''\\\\]'"  # plain lexemes: quote_literal is a tsquery for them
        )
        total, equal = cursor.fetchone()
    assert total == equal > 0


@pytest.fixture
def project(alpha):
    return project_ensure(key="kb-terms")


def test_postings_follow_ingest_reingest_and_delete(project):
    first = document_ingest(project=project, source_path="cache.md", content=DOC)
    documents_ingest_many(
        project=project,
        items=[
            IngestItem(source_path=f"note-{i}.md", content=f"# Note {i}\n\nPager rota {i}.\n")
            for i in range(3)
        ],
    )
    assert _postings() == _expected() and len(_postings()) > 20
    _weights_match()
    old_chunks = set(first.document.chunks.values_list("id", flat=True))

    document_ingest(project=project, source_path="cache.md", content=DOC.replace("Redis", "Valkey"))
    assert _postings() == _expected()
    assert not {chunk for _, chunk, _ in _postings()} & old_chunks
    valkey = {(chunk, document) for lexeme, chunk, document in _postings() if lexeme == "valkey"}
    assert valkey == _only(first.document.pk, "valkey") != set()
    _weights_match()

    Document.objects.filter(pk=first.document.pk).delete()  # a hard delete, chunks cascade
    assert _postings() == _expected()
    assert not any(document == first.document.pk for _, _, document in _postings())


def _only(document_id: int, lexeme: str) -> set[tuple[int, int]]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.id, c.document_id FROM kb_chunk c "
            "WHERE c.document_id = %s AND c.search_vector @@ quote_literal(%s)::tsquery",
            [document_id, lexeme],
        )
        return set(cursor.fetchall())


def test_an_update_of_other_columns_keeps_postings_and_a_new_tsvector_replaces_them(project):
    outcome = document_ingest(project=project, source_path="cache.md", content=DOC)
    chunk = outcome.document.chunks.order_by("chunk_order").last()
    before = _postings()
    Chunk.objects.filter(pk=chunk.pk).update(embedding=[0.5] * 384, token_count=7)
    assert _postings() == before
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE kb_chunk SET search_vector = to_tsvector('english', 'quokka habitat') "
            "WHERE id = %s",
            [chunk.pk],
        )
    assert _postings() == _expected()
    assert {lexeme for lexeme, chunk_id, _ in _postings() if chunk_id == chunk.pk} == {
        "quokka",
        "habitat",
    }
    _weights_match()
    # the keyword arm finds the chunk by its new words, and no more by its old ones
    scope = Scope.for_documents(Document.objects.filter(pk=outcome.document.pk))
    found = arms.keyword_arm(query="quokka", scope=scope, k=5, language="english")
    assert [hit.chunk_id for hit in found] == [chunk.pk]
    gone = arms.keyword_arm(query="redis cluster", scope=scope, k=5, language="english")
    assert chunk.pk not in [hit.chunk_id for hit in gone]


def test_lexemes_with_quotes_and_backslashes_are_posted(project):
    outcome = document_ingest(project=project, source_path="cache.md", content=DOC)
    chunk = outcome.document.chunks.first()
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE kb_chunk SET search_vector = %s::tsvector WHERE id = %s",
            ["'it''s':1 'back\\\\slash':2,4 'plain':3", chunk.pk],
        )
        cursor.execute(
            "SELECT lexeme, weight FROM kb_chunkterm WHERE chunk_id = %s ORDER BY lexeme",
            [chunk.pk],
        )
        rows = cursor.fetchall()
        cursor.execute(
            "SELECT ts_rank(search_vector, 'back\\\\slash'::tsquery, 1), "
            "ts_rank(search_vector, 'plain'::tsquery, 1) FROM kb_chunk WHERE id = %s",
            [chunk.pk],
        )
        two, one = cursor.fetchone()
    assert rows == [("back\\slash", two), ("it's", one), ("plain", one)]
    assert two > one > 0  # the lexeme found twice weighs more


def test_a_write_under_another_search_path_reaches_the_chunks_own_tenant(project, beta):
    outcome = document_ingest(project=project, source_path="cache.md", content=DOC)
    chunk = outcome.document.chunks.first()
    beta_before = _postings(beta.schema)
    with connection.cursor() as cursor:
        cursor.execute(f"SET LOCAL search_path = {beta.schema}, public")
        cursor.execute(
            "UPDATE alpha.kb_chunk SET search_vector = to_tsvector('english', 'wombat') "
            "WHERE id = %s",
            [chunk.pk],
        )
        cursor.execute("SET LOCAL search_path = alpha, public")
    assert _postings("alpha") == _expected("alpha")
    assert ("wombat", chunk.pk, outcome.document.pk) in _postings("alpha")
    assert _postings(beta.schema) == beta_before


def test_truncating_the_chunks_empties_the_postings(project):
    document_ingest(project=project, source_path="cache.md", content=DOC)
    assert _postings()
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL lock_timeout = '10s'")
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # Django's deferred foreign keys
        cursor.execute("TRUNCATE kb_chunk CASCADE")
    assert _postings() == set()


def test_repair_mends_postings_written_with_the_triggers_off(project, capsys):
    outcome = document_ingest(project=project, source_path="cache.md", content=DOC)
    first, second, third = outcome.document.chunks.order_by("chunk_order")
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # Django's deferred foreign keys
        cursor.execute("ALTER TABLE kb_chunk DISABLE TRIGGER kb_chunkterm_update")
        cursor.execute("ALTER TABLE kb_chunk DISABLE TRIGGER kb_chunkterm_delete")
        cursor.execute(
            "UPDATE kb_chunk SET search_vector = to_tsvector('english', 'numbat burrow') "
            "WHERE id = %s",
            [first.pk],
        )
        cursor.execute("DELETE FROM kb_chunk WHERE id = %s", [second.pk])
        cursor.execute("UPDATE kb_chunkterm SET weight = 0 WHERE chunk_id = %s", [third.pk])
        wrong = cursor.rowcount
    assert wrong >= 1
    state = postings_state()
    assert state.disabled_triggers == ("kb_chunkterm_update", "kb_chunkterm_delete")
    assert state.stored != state.expected
    with pytest.raises(CommandError, match="kb_postings_repair"):
        call_command("kb_check", "--tenant", "alpha")
    capsys.readouterr()

    stale = len([p for p in _postings() if p[1] in (first.pk, second.pk)])
    call_command("kb_postings_repair", "--tenant", "alpha")
    out = capsys.readouterr().out
    assert "enabled triggers: kb_chunkterm_update, kb_chunkterm_delete" in out
    assert f"{stale + wrong} stale postings removed, {2 + wrong} added" in out
    assert _postings() == _expected()
    _weights_match()
    assert postings_state().problems == []
    call_command("kb_check", "--tenant", "alpha")  # healthy again
    # the triggers work again: the next write keeps the postings in step
    Chunk.objects.filter(pk=first.pk).delete()
    assert _postings() == _expected()


def test_repair_without_the_triggers_says_how_to_recreate_them(project):
    document_ingest(project=project, source_path="cache.md", content=DOC)
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("DROP TRIGGER kb_chunkterm_truncate ON kb_chunk")
    with pytest.raises(CommandError, match="kb_chunkterm_truncate; re-create them by migrating"):
        call_command("kb_postings_repair", "--tenant", "alpha")
