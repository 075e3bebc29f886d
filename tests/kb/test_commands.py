"""kb_ingest and kb_check as an operator runs them."""

from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from kb.demo import DEMO_CORPUS_DIR
from kb.models import Chunk, ChunkTerm, Document, Edge
from portal.access.models import Project


def run(capsys, *args):
    call_command(*args)
    return capsys.readouterr()


def ingest_json(capsys, *args):
    return json.loads(run(capsys, "kb_ingest", "--tenant", "alpha", "--json", *args).out)


def test_ingest_demo_handbook_then_rerun_skips(alpha, capsys):
    summary = ingest_json(capsys, "--project", "handbook-cmd", str(DEMO_CORPUS_DIR))
    assert summary["created"] == 22 and summary["failed"] == [] and summary["warnings"] == []
    assert summary["documents"] == 22 and summary["chunks"] > 22
    project = Project.objects.get(key="handbook-cmd")
    docs = Document.objects.filter(project=project)
    assert docs.count() == 22
    assert set(docs.values_list("source_path", flat=True)) >= {"handbook/dec-cache-v2.md"}
    tiers = {
        tier: docs.filter(evidence_tier=tier).count() for tier in ("canonical", "auto", "document")
    }
    assert tiers == {"canonical": 18, "auto": 2, "document": 2}  # on-call/onboarding are plain
    # every wikilink/frontmatter edge between handbook docs is resolved
    edges = Edge.objects.filter(from_document__project=project)
    assert edges.exists() and not edges.filter(to_document__isnull=True).exists()

    again = ingest_json(capsys, "--project", "handbook-cmd", str(DEMO_CORPUS_DIR))
    assert (again["created"], again["updated"], again["skipped"]) == (0, 0, 22)
    assert again["chunks"] == summary["chunks"]


def test_ingest_reports_bad_files_and_keeps_going(alpha, capsys, tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "good.md").write_text("# Good\n\nFine.\n")
    (tmp_path / "docs" / "latin.txt").write_bytes("caf\xe9\n".encode("latin-1"))
    (tmp_path / "docs" / "image.md").write_bytes(b"\x89PNG\x00\x00")
    (tmp_path / "docs" / "sheet.xlsx").write_bytes(b"PK")  # not a supported type: ignored
    (tmp_path / "docs" / "broken.pdf").write_bytes(b"%PDF")  # supported, unreadable: skipped
    (tmp_path / "docs" / ".hidden.md").write_text("# Hidden\n")
    (tmp_path / "docs" / "sub").mkdir()
    (tmp_path / "docs" / "sub" / "page.html").write_text("<h1>Page</h1><p>x</p>")
    locked = tmp_path / "docs" / "locked.md"
    locked.write_text("# Locked\n")
    locked.chmod(0)
    args = ["kb_ingest", "--tenant", "alpha", "--project", "cmd-bad", "--json"]
    with pytest.raises(CommandError) as excinfo:
        call_command(*args, str(tmp_path / "docs"), str(tmp_path / "missing"))
    locked.chmod(0o644)
    assert excinfo.value.returncode == 1
    summary = json.loads(capsys.readouterr().out)
    failed = {f["path"]: f["error"] for f in summary["failed"]}
    assert str(tmp_path / "missing") in failed
    assert any(path.endswith("locked.md") for path in failed) or summary["created"] == 4
    assert summary["created"] >= 3 and summary["skipped"] == 2
    paths = set(
        Document.objects.filter(project__key="cmd-bad").values_list("source_path", flat=True)
    )
    assert {"docs/good.md", "docs/latin.txt", "docs/sub/page.html"} <= paths
    assert any("invalid UTF-8" in w for w in summary["warnings"])
    assert any("binary" in w for w in summary["warnings"])
    assert any(
        w.startswith("docs/broken.pdf: skipped: not a readable PDF") for w in summary["warnings"]
    )
    assert not any("sheet.xlsx" in w for w in summary["warnings"])


def test_ingest_human_output_and_quiet(alpha, capsys, tmp_path):
    (tmp_path / "a.md").write_text("# A\n\nText.\n")
    out = run(
        capsys, "kb_ingest", "--tenant", "alpha", "--project", "cmd-h", str(tmp_path / "a.md")
    )
    assert "1 documents (1 created, 0 updated, 0 skipped, 0 failed), 1 chunks" in out.out
    quiet = run(
        capsys, "kb_ingest", "--tenant", "alpha", "--project", "cmd-h", "--quiet", str(tmp_path)
    )
    assert quiet.out == "" and quiet.err == ""


def test_ingest_unknown_tenant_and_bad_project_key(alpha):
    with pytest.raises(CommandError, match="No tenant"):
        call_command("kb_ingest", "--tenant", "nope", "--project", "p", ".")
    with pytest.raises(CommandError, match="Invalid project key"):
        call_command("kb_ingest", "--tenant", "alpha", "--project", "Bad Key", ".")


def test_kb_check_reports_a_healthy_knowledge_base(alpha, capsys, tmp_path):
    (tmp_path / "a.md").write_text("# A\n\nText.\n")
    (tmp_path / "empty.md").write_text("")
    run(capsys, "kb_ingest", "--tenant", "alpha", "--project", "cmd-check", str(tmp_path))
    report = json.loads(run(capsys, "kb_check", "--tenant", "alpha", "--json").out)
    assert report["ok"] and report["problems"] == []
    assert report["chunks"] == report["embedded_chunks"] >= 1
    assert report["max_norm_deviation"] < 1e-6
    assert report["dimension"] == 384
    assert report["indexes"] == {"hnsw_embedding_cosine": True, "gin_search_vector": True}
    postings = report["keyword_postings"]
    assert postings["stored"] == postings["expected"] > 0
    assert {"project_key": "cmd-check", "slug": "empty"} in [
        {"project_key": d["project_key"], "slug": d["slug"]}
        for d in report["documents_without_chunks"]
    ]
    human = run(capsys, "kb_check", "--tenant", "alpha").out
    assert "OK" in human and "cmd-check/empty" in human


def test_kb_check_fails_on_unembedded_or_non_unit_vectors_and_missing_index(
    alpha, capsys, tmp_path
):
    (tmp_path / "a.md").write_text("# A\n\nOne.\n\n## B\n\nTwo.\n")
    run(capsys, "kb_ingest", "--tenant", "alpha", "--project", "cmd-broken", str(tmp_path))
    first, second = Chunk.objects.filter(document__project__key="cmd-broken").order_by(
        "chunk_order"
    )
    Chunk.objects.filter(pk=first.pk).update(embedding=None)
    Chunk.objects.filter(pk=second.pk).update(embedding=[0.5] * 384)
    with connection.cursor() as cursor:  # all rolled back with the test
        cursor.execute("DROP INDEX kb_chunk_embedding_hnsw")
        # a write with the postings' trigger off (a bulk load that disabled triggers)
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # Django's deferred foreign keys
        cursor.execute("ALTER TABLE kb_chunk DISABLE TRIGGER kb_chunkterm_update")
        cursor.execute(
            "UPDATE kb_chunk SET search_vector = to_tsvector('english', 'unposted words') "
            "WHERE id = %s",
            [first.pk],
        )
    with pytest.raises(CommandError) as excinfo:
        call_command("kb_check", "--tenant", "alpha", "--json")
    assert excinfo.value.returncode == 1
    report = json.loads(capsys.readouterr().out)
    assert not report["ok"] and report["unembedded_chunks"] == 1
    assert report["max_norm_deviation"] > 1
    assert report["indexes"]["hnsw_embedding_cosine"] is False
    assert report["keyword_postings"]["stored"] != report["keyword_postings"]["expected"]
    assert len(report["problems"]) == 5
    assert "triggers disabled on kb_chunk: kb_chunkterm_update" in " ".join(report["problems"])


def test_ingest_into_a_project_without_members_warns_how_to_add_one(alpha, capsys, tmp_path):
    from portal.access.services import user_upsert

    (tmp_path / "note.md").write_text("# Note\n\nHello.\n")
    out = run(capsys, "kb_ingest", "--tenant", "alpha", "--project", "lonely", str(tmp_path))
    assert "project 'lonely' has no members" in out.err
    assert "user_create NAME --tenant alpha --password PASSWORD --project lonely:editor" in out.err

    as_json = run(
        capsys, "kb_ingest", "--tenant", "alpha", "--project", "lonely", "--json", str(tmp_path)
    )
    json.loads(as_json.out)  # stdout stays machine output
    assert "has no members" in as_json.err

    user_upsert(
        username="lonely-editor", password="pw-123456", project_roles=[("lonely", "editor")]
    )
    again = run(capsys, "kb_ingest", "--tenant", "alpha", "--project", "lonely", str(tmp_path))
    assert "has no members" not in again.err


@pytest.mark.parametrize(
    "args",
    [
        ("kb_search", "cache", "--tenant"),
        ("kb_check", "--tenant"),
        ("kb_benchmark", "--goldset", "missing.jsonl", "--tenant"),
    ],
)
@pytest.mark.parametrize("schema", ["public", "nosuchtenant"])
def test_every_kb_command_enters_a_tenant_the_same_way(alpha, args, schema):
    """One helper: unknown schemas and the public schema are refused alike."""
    with pytest.raises(CommandError, match="No tenant with schema"):
        call_command(*args, schema)


def test_kb_prewarm_reads_every_chunk_of_the_tenant(alpha, capsys, tmp_path):
    (tmp_path / "a.md").write_text("# Alpha\n\nCache warming after a restart.\n")
    (tmp_path / "b.md").write_text("# Beta\n\nThe HNSW graph lives in shared buffers.\n")
    ingest_json(capsys, "--project", "prewarm", str(tmp_path))
    out = run(capsys, "kb_prewarm", "--tenant", "alpha").out
    chunks = Chunk.objects.count()
    assert chunks >= 2
    # the embedded server has no pg_prewarm: the heap pass reads every row of the tenant
    assert out.startswith("alpha: ")
    assert f"{chunks} rows read" in out or "pg_prewarm: " in out
    postings = ChunkTerm.objects.count()
    assert postings > chunks
    assert f"{postings} keyword postings read from their key" in out or "pg_prewarm: " in out
