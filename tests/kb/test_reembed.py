"""kb_reembed: search answers during a re-embed, uses the new model after the switch, a killed
run resumes, other tenants are untouched, a size mismatch is a clear error. And the HNSW
index: built as the model declares it, also after a switch, and rebuilt both ways by its
migration while search keeps its results.

The re-embed builds an index CONCURRENTLY and changes the chunk table, so these tests run
on committed data in a tenant of their own (dropped at the end), outside a test transaction.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import IntegrityError, connection
from django_tenants.utils import schema_context

from kb.embeddings import SpaceSpec, build_embedder, get_embedder, reset_embedders
from kb.embeddings.hashing import HashEmbedder
from kb.embeddings.spaces import stored_dimensions
from kb.ingestion.chunk import ChunkDraft
from kb.models import Chunk, Document, EmbeddingSpace, SpaceState, chunk_hnsw_index
from kb.reembed import NEXT_COLUMN, ReembedError, count_chunks, reembed_abort, tenant_reembed
from kb.retrieval import search
from kb.services import IngestItem, document_ingest, documents_ingest_many
from kb.tasks import run_ingest_job
from kb.uploads import UploadFile, ingest_jobs_enqueue
from portal.access.models import Project
from portal.access.services import project_ensure
from tests.conftest import TenantInfo, drop_tenant, ensure_tenant, make_user

SCHEMA = "reembed"
PROJECT = "handbook"
OLD = SpaceSpec(provider="hash", dimensions=384)
NEW = SpaceSpec(provider="hash", dimensions=256)
QUERY = "how do we rotate the database credentials"
TOPICS = [
    "database credentials rotation with the vault agent",
    "rotating TLS certificates on the load balancer",
    "backup restore drill for the billing database",
    "on-call handover checklist and paging rules",
    "deploying the web frontend with blue green releases",
    "kafka consumer lag alerts and their runbook",
    "password policy for service accounts and humans",
    "cost report for the storage buckets per team",
    "incident review template and the five whys",
    "database connection pool sizing and timeouts",
    "feature flags lifecycle from launch to removal",
    "log retention periods for audit and debugging",
]


def _document(index: int, topic: str) -> str:
    return (
        f"# {topic.title()}\n\n{topic} is described here in detail.\n\n"
        f"## Steps\n\nFirst step of {topic}. Then check the result and write it down.\n\n"
        f"## Owners\n\nTeam {index} owns {topic}.\n"
    )


def _cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def _embed_texts() -> dict[int, str]:
    """chunk id -> the text ingestion embedded for it."""
    return {
        chunk.pk: ChunkDraft(
            chunk_order=chunk.chunk_order,
            heading_path=chunk.heading_path,
            text=chunk.text,
            overlap_chars=chunk.overlap_chars,
            token_count=chunk.token_count,
        ).embed_text
        for chunk in Chunk.objects.all()
    }


def _assert_cosines_from(spec: SpaceSpec, result, texts: dict[int, str]) -> None:
    """Every hit's cosine is what `spec`'s model gives for the query and that chunk."""
    embedder = build_embedder(spec)
    query = embedder.embed_query(QUERY)
    assert result.primary
    for hit in result.primary:
        expected = _cosine(query, embedder.embed_documents([texts[hit.chunk_id]])[0])
        assert hit.cosine == pytest.approx(expected, abs=1e-5)


class CountingEmbedder:
    """The target model, counting the texts it embeds (what a resumed run re-does)."""

    def __init__(self, spec: SpaceSpec) -> None:
        self.inner = build_embedder(spec)
        self.name = self.inner.name
        self.dimensions = self.inner.dimensions
        self.embedded = 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.embedded += len(texts)
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)


@pytest.fixture(scope="module")
def tenant(tenants, django_db_blocker) -> Iterator[TenantInfo]:
    """A tenant of this module's own with a committed handbook, dropped afterwards."""
    with django_db_blocker.unblock():
        info = ensure_tenant(SCHEMA, f"{SCHEMA}.localhost")
        with info.scope():
            project = project_ensure(key=PROJECT)
            for index, topic in enumerate(TOPICS):
                outcome = document_ingest(
                    project=project, source_path=f"{index}.md", content=_document(index, topic)
                )
                assert outcome.status == "created", outcome.error
        make_user(info, "reader", projects={PROJECT: "reader"})
    yield info
    with django_db_blocker.unblock():
        drop_tenant(SCHEMA)


@pytest.fixture
def space(tenant, django_db_blocker, settings) -> Iterator[TenantInfo]:
    """The tenant in its first space (hash, 384-d, no record), outside a test transaction."""
    settings.KB = {**settings.KB, "EMBEDDING_PROVIDER": "hash", "EMBEDDING_DIMENSIONS": 0}
    reset_embedders()
    with django_db_blocker.unblock(), tenant.scope():
        yield tenant
        # back to where the next test starts: no re-embed pending, 384-d vectors, no record
        reembed_abort()
        if stored_dimensions() != OLD.dimensions:
            tenant_reembed(target=OLD, batch_size=500)
        EmbeddingSpace.objects.all().delete()
        Document.objects.exclude(source_path__in=[f"{i}.md" for i in range(len(TOPICS))]).delete()
    reset_embedders()


def _index_build() -> tuple[dict[str, str], bool]:
    """The live HNSW index's build parameters (its reloptions) and whether it is valid."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.reloptions, i.indisvalid FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid "
            "WHERE c.oid = to_regclass(%s)",
            [chunk_hnsw_index().name],
        )
        options, valid = cursor.fetchone()
    return dict(option.split("=", 1) for option in options), valid


DECLARED = {
    "m": str(chunk_hnsw_index().m),
    "ef_construction": str(chunk_hnsw_index().ef_construction),
}


def _reader(info: TenantInfo):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.get(username="reader")


def test_search_answers_during_the_reembed_and_uses_the_new_model_after_the_switch(space):
    reader = _reader(space)
    texts = _embed_texts()
    before = search(user=reader, query=QUERY, mode="dense")
    _assert_cosines_from(OLD, before, texts)
    during = []

    def between_batches(count: int) -> None:
        # another request meanwhile: answered from the old column with the old model
        during.append(search(user=reader, query=QUERY, mode="dense"))
        during.append(search(user=reader, query=QUERY, mode="hybrid"))

    report = tenant_reembed(target=NEW, batch_size=5, on_batch=between_batches)
    assert report.chunks == len(texts) and report.embedded == len(texts)
    assert len(during) >= 2 * math.ceil(len(texts) / 5)
    for result in during:
        assert result.primary[0].slug == before.primary[0].slug
        if result.meta["mode"] == "dense":
            _assert_cosines_from(OLD, result, texts)

    after = search(user=reader, query=QUERY, mode="dense")
    assert stored_dimensions() == NEW.dimensions
    _assert_cosines_from(NEW, after, texts)
    # the ranking is the new model's: the best chunk by the new model's cosine comes first
    new = build_embedder(NEW)
    query = new.embed_query(QUERY)
    ids = list(texts)
    scores = [_cosine(query, vector) for vector in new.embed_documents([texts[i] for i in ids])]
    best = ids[max(range(len(ids)), key=scores.__getitem__)]
    assert after.primary[0].chunk_id == best
    assert [hit.cosine for hit in after.primary] == sorted(
        (hit.cosine for hit in after.primary), reverse=True
    )
    # every process embeds in the recorded space now, whatever the settings say
    assert get_embedder().dimensions == NEW.dimensions
    active = EmbeddingSpace.objects.get(state=SpaceState.ACTIVE)
    assert (active.provider, active.dimensions) == ("hash", 256)
    retired = EmbeddingSpace.objects.get(state=SpaceState.RETIRED)
    assert (retired.provider, retired.dimensions) == ("hash", 384)
    assert stored_dimensions(NEXT_COLUMN) == 0  # the old vectors are gone, no leftovers
    # the switched-in index was built with the model's parameters, like the one it replaced
    assert _index_build() == (DECLARED, True)


def test_a_query_embedded_in_the_old_space_just_before_the_switch_is_redone(
    space, settings, monkeypatch
):
    # Another process learns of the switch only when its cached lookup expires: emulated
    # here by a long cache and a switch that does not tell this process.
    settings.KB = {**settings.KB, "EMBEDDING_SPACE_CACHE_SECONDS": 600.0}
    monkeypatch.setattr("kb.reembed.forget_active_spaces", lambda schema=None: None)
    reader = _reader(space)
    _assert_cosines_from(OLD, search(user=reader, query=QUERY, mode="dense"), _embed_texts())
    tenant_reembed(target=NEW, batch_size=50)
    for mode in ("dense", "hybrid", "keyword"):
        result = search(user=reader, query=QUERY, mode=mode)  # 384-d query, 256-d column
        assert result.primary and not result.meta["degraded"]
    _assert_cosines_from(NEW, search(user=reader, query=QUERY, mode="dense"), _embed_texts())


def test_documents_ingested_during_the_reembed_are_in_the_new_space_after_it(space):
    reader = _reader(space)
    project = Project.objects.get(key=PROJECT)
    added = []

    def ingest_meanwhile(count: int) -> None:
        if not added:  # written in the old space, picked up by a later batch or the switch
            outcome = document_ingest(
                project=project,
                source_path="late.md",
                content="# Credential escrow\n\nThe database credentials escrow lives in vault.\n",
            )
            assert outcome.status == "created", outcome.error
            added.append(outcome.document)

    tenant_reembed(target=NEW, batch_size=5, on_batch=ingest_meanwhile)
    assert added
    late = Chunk.objects.filter(document=added[0])
    assert late and all(len(chunk.embedding) == NEW.dimensions for chunk in late)
    result = search(user=reader, query="credentials escrow in vault", mode="dense")
    assert result.primary[0].slug == added[0].slug
    _assert_cosines_from(NEW, search(user=reader, query=QUERY, mode="dense"), _embed_texts())
    # ingestion after the switch embeds in the new space too, single and bulk (whose model
    # runs on a worker thread, outside the tenant's connection)
    outcome = document_ingest(project=project, source_path="after.md", content="# After\n\nText.\n")
    assert outcome.status == "created", outcome.error
    assert len(Chunk.objects.filter(document=outcome.document)[0].embedding) == NEW.dimensions
    items = [
        IngestItem(source_path=f"bulk-{i}.md", content=f"# Bulk {i}\n\nText {i}.\n")
        for i in range(3)
    ]
    outcomes = documents_ingest_many(project=project, items=items, batch_chunks=2)
    assert [o.status for o in outcomes] == ["created"] * 3, [o.error for o in outcomes]
    bulk = Chunk.objects.filter(document__source_path__startswith="bulk-")
    assert bulk.count() == 3 and {len(chunk.embedding) for chunk in bulk} == {NEW.dimensions}
    # and an upload's background job (the worker's path, with its progress wrapper)
    [job] = ingest_jobs_enqueue(
        project=project, user=None, files=[UploadFile(name="job.md", data=b"# Job\n\nText.\n")]
    )
    assert run_ingest_job(job_id=job.pk)["state"] == "done"
    job_chunks = Chunk.objects.filter(document__source_path="job.md")
    assert job_chunks and {len(chunk.embedding) for chunk in job_chunks} == {NEW.dimensions}


def test_a_killed_run_resumes_without_embedding_done_chunks_again(space):
    reader = _reader(space)
    batches = []

    def killed_after_two_batches(count: int) -> None:
        batches.append(count)
        if len(batches) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        tenant_reembed(target=NEW, batch_size=4, on_batch=killed_after_two_batches)
    total, done = count_chunks()
    assert done == 8 and total > done
    # meanwhile nothing changed for search: old column, old model
    assert stored_dimensions() == OLD.dimensions
    _assert_cosines_from(OLD, search(user=reader, query=QUERY, mode="dense"), _embed_texts())
    # a different target is refused while one is half done
    with pytest.raises(ReembedError, match="--abort"):
        tenant_reembed(target=SpaceSpec(provider="hash", dimensions=128), batch_size=4)

    counting = CountingEmbedder(NEW)
    report = tenant_reembed(target=NEW, batch_size=4, embedder=counting)
    assert report.already_done == 8
    assert counting.embedded == report.embedded == total - 8
    assert stored_dimensions() == NEW.dimensions
    _assert_cosines_from(NEW, search(user=reader, query=QUERY, mode="dense"), _embed_texts())


def test_abort_drops_an_unfinished_reembed(space):
    def killed(count: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        tenant_reembed(target=NEW, batch_size=4, on_batch=killed)
    assert stored_dimensions(NEXT_COLUMN) == NEW.dimensions
    assert reembed_abort() is True
    assert stored_dimensions(NEXT_COLUMN) == 0
    assert not EmbeddingSpace.objects.filter(state=SpaceState.BUILDING).exists()
    assert reembed_abort() is False
    with pytest.raises(ReembedError, match="already in the space"):
        tenant_reembed(target=OLD, batch_size=4)


def _wait_for_backend_exit(pid: int, timeout: float = 10.0) -> None:
    import time

    deadline = time.monotonic() + timeout
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %s", [pid])
            if cursor.fetchone() is None:
                return
            time.sleep(0.02)
    raise AssertionError(f"backend {pid} still running {timeout} s after its client closed")


def test_one_run_per_tenant_at_a_time(space):
    from django.db import connections

    other = connections.create_connection("default")  # another kb_reembed's session
    try:
        with other.cursor() as cursor:
            cursor.execute(f"SET search_path = {SCHEMA}, public")
            cursor.execute("SELECT pg_advisory_lock(hashtext('kb_reembed:' || current_schema()))")
            cursor.execute("SELECT pg_backend_pid()")
            other_pid = cursor.fetchone()[0]
        with pytest.raises(ReembedError, match="Another kb_reembed is running"):
            tenant_reembed(target=NEW, batch_size=50)
        with pytest.raises(ReembedError, match="stop it first"):
            reembed_abort()
    finally:
        other.close()
    _wait_for_backend_exit(other_pid)  # PostgreSQL ends a closed session's backend asynchronously
    assert stored_dimensions(NEXT_COLUMN) == 0  # the refused run changed nothing
    tenant_reembed(target=NEW, batch_size=50)  # the lock went with the other session
    assert stored_dimensions() == NEW.dimensions


def test_other_tenants_are_untouched(space, tenants):
    tenant_reembed(target=NEW, batch_size=50)
    assert stored_dimensions() == NEW.dimensions
    with schema_context("beta"):
        assert stored_dimensions() == OLD.dimensions
        assert not EmbeddingSpace.objects.exists()
        assert get_embedder().dimensions == OLD.dimensions
    with schema_context("alpha"):
        assert stored_dimensions() == OLD.dimensions


def test_the_command_shows_progress_switches_and_kb_check_agrees(space, capsys):
    call_command(
        "kb_reembed",
        "--tenant",
        SCHEMA,
        "--provider",
        "hash",
        "--dimensions",
        "256",
        "--batch",
        "7",
    )
    out = capsys.readouterr()
    assert "switched" in out.out and "hash:-:native" in out.out and "hash:-:256" in out.out
    assert "re-embedding" in out.err  # the progress bar
    call_command("kb_check", "--tenant", SCHEMA, "--json")
    report = json.loads(capsys.readouterr().out)
    assert report["ok"], report["problems"]
    assert report["dimension"] == report["expected_dimension"] == 256
    assert report["indexes"]["hnsw_embedding_cosine"] is True
    assert report["embedding_space"]["recorded"] is True
    with pytest.raises(CommandError, match="already in the space"):
        call_command("kb_reembed", "--tenant", SCHEMA, "--provider", "hash", "--dimensions", "256")


def test_a_model_of_another_size_than_the_stored_vectors_is_a_clear_error(alpha, settings):
    # a tenant never re-embedded follows the settings; a 768-d model does not fit vector(384).
    # (In a test transaction: this test also makes pytest-django set the database up when
    # the module runs alone; the others reach it through committed session fixtures.)
    reader = make_user(alpha, "reembed-reader", projects={PROJECT: "reader"})
    project = project_ensure(key=PROJECT)
    document_ingest(project=project, source_path="a.md", content=_document(0, TOPICS[0]))
    settings.KB = {**settings.KB, "EMBEDDING_DIMENSIONS": 768}
    reset_embedders()
    result = search(user=reader, query=QUERY)
    assert result.meta["embedding_available"] is False  # keyword-only, not a 500
    assert result.primary
    outcome = document_ingest(project=project, source_path="x.md", content="# X\n\nText.\n")
    assert outcome.status == "failed"
    assert "768" in outcome.error and "vector(384)" in outcome.error
    assert "kb_reembed --tenant alpha" in outcome.error
    with pytest.raises(CommandError, match="768"):
        call_command("kb_check", "--tenant", "alpha")
    reset_embedders()


class _HashEndpoint(BaseHTTPRequestHandler):
    """An OpenAI-compatible /v1/embeddings answering with 64-d hash vectors."""

    model = HashEmbedder(dimensions=64)

    def do_POST(self) -> None:  # noqa: N802 - http.server API
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        vectors = self.model.embed_documents(list(body["input"]))
        data = [{"index": i, "embedding": vector} for i, vector in enumerate(vectors)]
        payload = json.dumps({"data": data}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        pass


def test_reembed_into_an_openai_compatible_endpoint_learns_its_size(space, capsys):
    server = HTTPServer(("127.0.0.1", 0), _HashEndpoint)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base_url = f"http://127.0.0.1:{server.server_port}/v1"
    try:
        call_command(
            "kb_reembed", "--tenant", SCHEMA, "--provider", "openai", "--base-url", base_url,
            "--model", "hash-64", "--json",
        )  # fmt: skip
        report = json.loads(capsys.readouterr().out)
        assert report["dimensions"] == 64 and report["target"].startswith("openai:")
        assert stored_dimensions() == 64
        # queries now go to the endpoint: the cosines are its model's
        _assert_cosines_from(
            SpaceSpec(provider="hash", dimensions=64),
            search(user=_reader(space), query=QUERY, mode="dense"),
            _embed_texts(),
        )
    finally:
        server.shutdown()


def _migrate_kb(*target: str) -> None:
    call_command("migrate_schemas", "kb", *target, schema_name=SCHEMA, verbosity=0)
    connection.set_schema(SCHEMA)  # type: ignore[attr-defined]  # django-tenants; the command left public


def _other_copies() -> list[str]:
    """Indexes of this schema named after the HNSW index besides itself."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT relname FROM pg_class WHERE relkind = 'i' AND relname LIKE %s AND relname <> %s "
            "AND relnamespace = current_schema()::regnamespace",
            [chunk_hnsw_index().name + "%", chunk_hnsw_index().name],
        )
        return [name for (name,) in cursor.fetchall()]


def test_the_index_migrations_run_both_ways_and_search_keeps_its_results(space):
    reader = _reader(space)
    assert DECLARED == {"m": "16", "ef_construction": "200"}
    assert _index_build() == (DECLARED, True)  # what kb 0004 left in this new tenant
    before = search(user=reader, query=QUERY, mode="dense")
    keyword_before = search(user=reader, query=QUERY, mode="keyword")
    assert before.primary and keyword_before.primary
    try:
        _migrate_kb("0003_embedding_space")
        assert _index_build() == ({"m": "16", "ef_construction": "64"}, True)
        back = search(user=reader, query=QUERY, mode="dense")
        assert [hit.chunk_id for hit in back.primary] == [hit.chunk_id for hit in before.primary]
        # what an interrupted REINDEX CONCURRENTLY leaves behind: an invalid copy of the index
        with pytest.raises(IntegrityError), connection.cursor() as cursor:
            cursor.execute(
                f"CREATE UNIQUE INDEX CONCURRENTLY {chunk_hnsw_index().name}_ccnew "
                f"ON {Chunk._meta.db_table} ((1))"
            )
        assert _other_copies() == [f"{chunk_hnsw_index().name}_ccnew"]
    finally:
        _migrate_kb()
    assert _index_build() == (DECLARED, True)
    assert _other_copies() == []  # the rerun dropped the leftover before rebuilding
    after = search(user=reader, query=QUERY, mode="dense")
    assert [hit.chunk_id for hit in after.primary] == [hit.chunk_id for hit in before.primary]
    # kb 0005 was rolled back with it (its table dropped) and backfilled the postings again
    keyword_after = search(user=reader, query=QUERY, mode="keyword")
    assert [(hit.chunk_id, hit.score) for hit in keyword_after.primary] == [
        (hit.chunk_id, hit.score) for hit in keyword_before.primary
    ]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT (SELECT count(*) FROM kb_chunkterm), "
            "(SELECT coalesce(sum(length(search_vector)), 0) FROM kb_chunk)"
        )
        postings, lexemes = cursor.fetchone()
    assert postings == lexemes > 0
