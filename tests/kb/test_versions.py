"""Document versions (issue 28 part 1): every write path keeps one, the diff, restore, the
pages, the API, retention and the backfill of existing documents."""

from __future__ import annotations

import datetime as dt
import importlib

import pytest
import time_machine
from django.apps import apps
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command

from canonical import services
from canonical.models import RecordChange
from canonical.transitions import CurationError
from kb.curation import AuditContext, ChangeSource
from kb.models import Chunk, Document, DocumentVersion, IngestJob, VersionText
from kb.retrieval import search
from kb.services import document_ingest
from kb.versions import text_digest, version_content, version_diff, versions_purge
from kb.worker import run_queued_tasks
from portal.access.services import project_ensure
from privacy.retention import retention_purge
from tests.canonical.conftest import make_doc
from tests.conftest import make_user, token_for

KEY = "ver"
DOC = """---
type: decision
status: accepted
slug: dec-queue
retrieval_priority: 60
tags: [queue]
related: [rb-queue]
---

# Queue decision

## Context

We need a durable queue for the billing events.

## Decision

Use RabbitMQ quorum queues for billing events.
"""
DOC_V2 = DOC.replace(
    "Use RabbitMQ quorum queues for billing events.",
    "Use Kafka topics with three replicas for billing events.",
)


@pytest.fixture
def project(alpha):
    return project_ensure(key=KEY)


@pytest.fixture
def people(alpha, project):
    project_ensure(key="ver-other")
    return {
        "editor": make_user(alpha, "ver-editor", projects={KEY: "editor"}),
        "reader": make_user(alpha, "ver-reader", projects={KEY: "reader"}),
        "outsider": make_user(alpha, "ver-outsider", projects={"ver-other": "editor"}),
    }


def ingest(project, content=DOC, path="decisions/dec-queue.md", **kwargs):
    outcome = document_ingest(project=project, source_path=path, content=content, **kwargs)
    assert outcome.status != "failed", outcome.error
    return outcome


def versions_of(document: Document) -> list[DocumentVersion]:
    return list(DocumentVersion.objects.filter(document=document).order_by("number"))


def by(user, reason="", source=ChangeSource.ADMIN) -> AuditContext:
    return AuditContext(actor=user, source=source, reason=reason)


def client_of(info, user):
    client = info.client()
    client.force_login(user)
    return client


def api_of(info, user):
    return info.client(HTTP_AUTHORIZATION=f"Token {token_for(info, user)}")


# --- every write path keeps a version -------------------------------------------------------


def test_a_new_document_is_version_1_and_a_change_keeps_the_previous_text(alpha, project, people):
    document = ingest(project).document
    [first] = versions_of(document)
    assert (first.number, document.current_version) == (1, 1)
    assert "RabbitMQ quorum queues" in version_content(first)
    assert first.canonical_status == "accepted" and first.tags == ["queue"]
    assert first.edges == [["related_to", "rb-queue"]]
    chunk_rows = list(Chunk.objects.filter(document=document).order_by("chunk_order"))
    assert first.chunk_ids == [chunk.pk for chunk in chunk_rows]
    assert [entry["text"] for entry in first.text.chunks] == [c.text for c in chunk_rows]
    assert all(len(entry["hash"]) == 64 for entry in first.text.chunks)

    api = api_of(alpha, people["editor"])
    response = api.post(
        "/api/kb/documents",
        {"project_key": KEY, "source_path": "decisions/dec-queue.md", "content": DOC_V2},
        content_type="application/json",
    )
    assert response.status_code == 200, response.content
    document.refresh_from_db()
    old, new = versions_of(document)
    assert document.current_version == 2
    assert "RabbitMQ quorum queues" in version_content(old)  # the previous text is kept
    assert "Kafka topics" in version_content(new) and "RabbitMQ" not in version_content(new)
    assert (new.actor, new.actor_name, new.source) == (
        people["editor"],
        "ver-editor",
        ChangeSource.API,
    )
    assert old.chunk_ids != new.chunk_ids  # the chunk rows were replaced


def test_an_unchanged_reingest_or_reindex_keeps_no_new_version(project):
    document = ingest(project).document
    assert ingest(project).status == "skipped"
    # a forced re-index (the stored hash forgotten) rewrites the chunks, not the document
    Document.objects.filter(pk=document.pk).update(content_hash="")
    assert ingest(project).status == "updated"
    [only] = versions_of(document)
    document.refresh_from_db()
    assert document.current_version == 1
    # ... and the version now names the new chunk rows, so new citations find their passage
    assert only.chunk_ids == list(
        Chunk.objects.filter(document=document).order_by("chunk_order").values_list("pk", flat=True)
    )


def test_the_bulk_path_and_the_cli_keep_versions(alpha, project, tmp_path, capsys):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "dec-queue.md").write_text(DOC)
    (folder / "notes.md").write_text("# Notes\n\nFirst words.\n")
    (folder / "kept.md").write_text("# Kept\n\nNever changes.\n")
    call_command("kb_ingest", "--tenant", "alpha", "--project", KEY, str(folder))
    documents = {d.slug: d for d in Document.objects.filter(project=project)}
    assert {slug: d.current_version for slug, d in documents.items()} == {
        "dec-queue": 1,
        "notes": 1,
        "kept": 1,
    }
    # two changed documents: the set-based write of a batch keeps their versions too
    (folder / "dec-queue.md").write_text(DOC_V2)
    (folder / "notes.md").write_text("# Notes\n\nSecond words.\n")
    call_command("kb_ingest", "--tenant", "alpha", "--project", KEY, str(folder))
    queue = Document.objects.get(pk=documents["dec-queue"].pk)
    assert queue.current_version == 2
    assert [v.source for v in versions_of(queue)] == ["cli", "cli"]
    assert "Kafka topics" in version_content(versions_of(queue)[1])
    notes = versions_of(documents["notes"])
    assert ["First words" in version_content(v) for v in notes] == [True, False]
    assert Document.objects.get(pk=documents["kept"].pk).current_version == 1  # unchanged


def test_an_upload_run_by_the_worker_keeps_a_version_named_after_the_uploader(
    alpha, project, people
):
    api = api_of(alpha, people["editor"])
    for content in (DOC, DOC_V2):
        response = api.post(
            "/api/kb/documents",
            {"project_key": KEY, "files": [SimpleUploadedFile("dec-queue.md", content.encode())]},
        )
        assert response.status_code == 202, response.content
        assert run_queued_tasks() == 1
    job = IngestJob.objects.filter(project=project).order_by("-id").first()
    assert job is not None and job.state == "done"
    versions = versions_of(job.document)
    assert [v.number for v in versions] == [1, 2]
    assert versions[1].actor_name == "ver-editor"
    assert "Kafka" in version_content(versions[1])


def test_curation_in_the_console_keeps_versions_one_per_edit(alpha, project, people):
    document = ingest(project).document
    client = client_of(alpha, people["editor"])
    form = {
        "title": "Queue for billing",
        "summary": "",
        "tags": "queue, billing",
        "owners": "",
        "canonical_type": "decision",
        "canonical_status": "deprecated",
        "retrieval_priority": "75",
        "reason": "Billing moves to streams",
        "_save": "Save",
    }
    url = f"/admin/canonical/canonicalrecord/{document.pk}/change/"
    assert client.post(url, form).status_code == 302
    versions = versions_of(document)
    assert [v.number for v in versions] == [1, 2]  # title, tags, priority and status: one edit
    edited = versions[1]
    assert (edited.title, edited.tags, edited.retrieval_priority, edited.canonical_status) == (
        "Queue for billing",
        ["queue", "billing"],
        75,
        "deprecated",
    )
    assert (edited.reason, edited.source, edited.actor_name) == (
        "Billing moves to streams",
        ChangeSource.ADMIN,
        "ver-editor",
    )
    assert edited.text_id == versions[0].text_id  # a field change shares the text: no copy
    assert VersionText.objects.filter(document=document).count() == 1


def test_status_supersede_priority_and_restore_services_each_keep_a_version(project, people):
    editor = people["editor"]
    old = ingest(project).document
    new = ingest(
        project, DOC_V2.replace("dec-queue", "dec-streams"), path="dec-streams.md"
    ).document
    services.record_set_priority(document=old, priority=90, by=by(editor, "more weight"))
    services.record_supersede(old=old, new=new, by=by(editor, "streams replace queues"))
    services.record_restore(document=old, by=by(editor, "streams were rolled back"))
    old.refresh_from_db()
    versions = versions_of(old)
    assert [(v.retrieval_priority, v.canonical_status, v.reason) for v in versions] == [
        (60, "accepted", ""),
        (90, "accepted", "more weight"),
        (90, "superseded", "streams replace queues"),
        (90, "accepted", "streams were rolled back"),
    ]
    assert old.current_version == 4
    # an unchanged priority keeps no version
    services.record_set_priority(document=old, priority=90, by=by(editor, "same"))
    assert len(versions_of(old)) == 4


def test_a_second_supersede_keeps_a_version_naming_the_new_successor(alpha, project, people):
    editor = people["editor"]
    old = ingest(project).document
    streams = ingest(
        project, DOC_V2.replace("dec-queue", "dec-streams"), path="dec-streams.md"
    ).document
    pulsar = ingest(
        project, DOC_V2.replace("dec-queue", "dec-pulsar"), path="dec-pulsar.md"
    ).document
    services.record_supersede(old=old, new=streams, by=by(editor, "streams replace queues"))
    # the status stays superseded; the successor it points to is what changes
    services.record_supersede(old=old, new=pulsar, by=by(editor, "pulsar replaces streams"))
    old.refresh_from_db()
    versions = versions_of(old)
    assert [(v.canonical_status, v.superseded_by, v.reason) for v in versions] == [
        ("accepted", "", ""),
        ("superseded", "dec-streams", "streams replace queues"),
        ("superseded", "dec-pulsar", "pulsar replaces streams"),
    ]
    assert old.current_version == 3
    assert [
        (f.label, f.before, f.after) for f in version_diff(versions[1], versions[2]).fields
    ] == [("Superseded by", "dec-streams", "dec-pulsar")]
    api = api_of(alpha, editor).get(f"/api/kb/documents/{old.pk}/versions/3")
    assert api.status_code == 200 and api.json()["superseded_by"] == "dec-pulsar"
    # restored to its live status: it points at no successor any more
    services.record_restore(document=old, by=by(editor, "rolled back"))
    assert versions_of(old)[-1].superseded_by == ""


def test_the_metadata_patch_of_the_api_keeps_a_version(alpha, project, people):
    document = ingest(project).document
    response = api_of(alpha, people["editor"]).patch(
        f"/api/kb/documents/{document.pk}",
        {"summary": "Why billing uses a queue"},
        content_type="application/json",
    )
    assert response.status_code == 200, response.content
    assert response.json()["current_version"] == 2
    assert versions_of(document)[-1].summary == "Why billing uses a queue"


def test_a_failed_change_keeps_no_version(project, people):
    document = ingest(project).document
    with pytest.raises(CurationError):
        services.record_set_status(document=document, status="archived", by=by(people["editor"]))
    assert len(versions_of(document)) == 1  # no reason: nothing changed, nothing kept


def test_a_version_that_cannot_be_written_undoes_its_change(project, people, monkeypatch):
    document = ingest(project).document

    def disk_full(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(DocumentVersion.objects, "bulk_create", disk_full)
    with pytest.raises(RuntimeError):
        services.record_set_priority(document=document, priority=5, by=by(people["editor"], "x"))
    with pytest.raises(RuntimeError):
        ingest(project, DOC_V2)
    document.refresh_from_db()
    assert (document.retrieval_priority, document.current_version) == (60, 1)
    assert not RecordChange.objects.filter(document=document).exists()
    chunks = Chunk.objects.filter(document=document)
    assert chunks.filter(text__contains="RabbitMQ").exists()
    assert not chunks.filter(text__contains="Kafka").exists()
    assert VersionText.objects.filter(document=document).count() == 1


def test_documents_from_before_versions_get_version_1_before_their_first_change(project, people):
    document = make_doc(KEY, "legacy-record")  # a row written without the services
    assert document.current_version == 0
    services.record_set_priority(document=document, priority=10, by=by(people["editor"], "low"))
    first, second = versions_of(document)
    assert (first.retrieval_priority, first.actor_name) == (50, "system")
    assert (second.retrieval_priority, second.number) == (10, 2)


def test_the_backfill_migration_gives_every_document_its_version_1(project):
    kept = ingest(project).document
    legacy = make_doc(KEY, "legacy-backfill")
    Chunk.objects.create(
        document=legacy, chunk_order=0, text="# Legacy\n\nOld words.", overlap_chars=0
    )
    migration = importlib.import_module("kb.migrations.0007_backfill_versions")
    migration.backfill(apps, None)
    legacy.refresh_from_db()
    assert (legacy.current_version, kept.current_version) == (1, 1)
    [version] = versions_of(legacy)
    assert version_content(version) == "# Legacy\n\nOld words."
    assert version.text.digest == text_digest(version.text.chunks)
    assert version.created_at == legacy.updated_at  # dated when the document last changed
    assert len(versions_of(kept)) == 1  # documents with versions are left alone


def test_the_migration_names_the_successor_of_superseded_versions(project, people):
    old = ingest(project).document
    new = ingest(
        project, DOC_V2.replace("dec-queue", "dec-streams"), path="dec-streams.md"
    ).document
    services.record_supersede(old=old, new=new, by=by(people["editor"], "streams"))
    DocumentVersion.objects.filter(document=old).update(superseded_by="")
    migration = importlib.import_module("kb.migrations.0010_documentversion_superseded_by")
    migration.backfill(apps, None)
    assert [v.superseded_by for v in versions_of(old)] == ["", "dec-streams"]


# --- the diff -------------------------------------------------------------------------------


def test_the_diff_marks_changed_passages_and_fields(project, people):
    document = ingest(project).document
    ingest(project, DOC_V2.replace("tags: [queue]", "tags: [queue, kafka]"))
    old, new = versions_of(document)
    diff = version_diff(old, new)
    removed = [line.text for line in diff.lines if line.kind == "removed"]
    added = [line.text for line in diff.lines if line.kind == "added"]
    assert removed == ["Use RabbitMQ quorum queues for billing events."]
    assert added == ["Use Kafka topics with three replicas for billing events."]
    assert diff.lines[0].kind == "hunk" and diff.text_changed
    assert "-Use RabbitMQ" in diff.unified and "+Use Kafka" in diff.unified
    assert {(f.label, f.before, f.after) for f in diff.fields} >= {
        ("Tags", "queue", "queue, kafka")
    }
    assert "Source hash" in {f.label for f in diff.fields}
    same = version_diff(new, new)
    assert (same.lines, same.fields, same.text_changed) == ((), (), False)


def test_the_versions_page_shows_an_escaped_diff_to_editors_only(alpha, project, people):
    document = ingest(project).document
    ingest(project, DOC_V2 + "\n<script>alert('x')</script>\n")
    url = f"/chat/documents/{document.pk}/versions/"
    page = client_of(alpha, people["editor"]).get(url)
    assert page.status_code == 200
    html = page.content.decode()
    assert "Changes from version 1 to version 2" in html
    assert '<div class="diff-line diff-added">' in html and "Added: </span>" in html
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in html
    assert "<script>alert" not in html
    assert f'action="/chat/documents/{document.pk}/versions/1/restore/"' in html
    # any two versions, and a clear error for one it does not have
    assert client_of(alpha, people["editor"]).get(f"{url}?a=2&b=1").status_code == 200
    missing = client_of(alpha, people["editor"]).get(f"{url}?a=7&b=1")
    assert missing.status_code == 400
    assert "There is no version 7 (versions kept: 1–2)." in missing.content.decode()
    # a reader of the project: 403 that says who may; anyone else: the one 404
    denied = client_of(alpha, people["reader"]).get(url)
    assert denied.status_code == 403
    assert "Only editors and admins of this project may see its versions" in denied.content.decode()
    assert client_of(alpha, people["outsider"]).get(url).status_code == 404
    assert (
        client_of(alpha, people["editor"]).get("/chat/documents/999999/versions/").status_code
        == 404
    )


def test_the_document_page_lists_versions_for_editors_only(alpha, project, people):
    document = ingest(project).document
    ingest(project, DOC_V2)
    url = f"/chat/documents/{document.pk}/"
    editor_html = client_of(alpha, people["editor"]).get(url).content.decode()
    assert 'id="versions"' in editor_html
    assert f"/chat/documents/{document.pk}/versions/?a=1&amp;b=2" in editor_html
    reader_html = client_of(alpha, people["reader"]).get(url).content.decode()
    assert 'id="versions"' not in reader_html and "/versions/" not in reader_html


# --- restore --------------------------------------------------------------------------------


def test_restore_goes_through_the_ingest_path_and_is_audited(alpha, project, people):
    document = ingest(project).document
    first_signature = Document.objects.get(pk=document.pk).minhash
    ingest(project, DOC_V2)
    services.record_set_status(
        document=document, status="deprecated", by=by(people["editor"], "streams now")
    )
    document.refresh_from_db()
    assert document.current_version == 3
    url = f"/chat/documents/{document.pk}/versions/1/restore/"
    client = client_of(alpha, people["editor"])
    refused = client.post(url, {"reason": "  "})
    assert refused.status_code == 400
    assert "Give a reason for restoring this version" in refused.content.decode()
    assert Document.objects.get(pk=document.pk).current_version == 3  # nothing written

    response = client.post(url, {"reason": "Kafka was a mistake"})
    assert response.status_code == 302
    document.refresh_from_db()
    restored = versions_of(document)[-1]
    assert (document.current_version, restored.restored_from, restored.reason) == (
        4,
        1,
        "Kafka was a mistake",
    )
    assert (document.canonical_status, restored.canonical_status) == ("accepted", "accepted")
    assert restored.text_id == versions_of(document)[0].text_id  # the same text as version 1
    chunks = Chunk.objects.filter(document=document)
    assert chunks.filter(text__contains="RabbitMQ quorum queues").exists()
    assert not chunks.filter(text__contains="Kafka topics").exists()
    assert not chunks.filter(embedding__isnull=True).exists()  # embedded again
    assert restored.chunk_ids == sorted(chunks.values_list("pk", flat=True))
    assert document.minhash == first_signature  # its near-duplicate signature restored too
    hits = search(user=people["editor"], query="RabbitMQ quorum queues billing").primary
    assert hits and hits[0].document_id == document.pk  # searchable at once
    audit = RecordChange.objects.filter(document=document).order_by("-at", "-id")
    assert audit.filter(field="version", reason="Kafka was a mistake").get().to_value == (
        "4 (restored from version 1)"
    )
    status = audit.filter(field="canonical_status").first()
    assert status is not None
    assert (status.from_value, status.to_value, status.reason) == (
        "deprecated",
        "accepted",
        "Kafka was a mistake",
    )
    page = client.get(f"/chat/documents/{document.pk}/versions/")
    assert "Version 1 restored: it is now version 4." in page.content.decode()


def test_restore_is_for_editors_and_refuses_the_current_version(alpha, project, people):
    document = ingest(project).document
    ingest(project, DOC_V2)
    url = f"/chat/documents/{document.pk}/versions/1/restore/"
    assert client_of(alpha, people["reader"]).post(url, {"reason": "x"}).status_code == 403
    assert client_of(alpha, people["outsider"]).post(url, {"reason": "x"}).status_code == 404
    with pytest.raises(CurationError, match="already the current version"):
        services.record_version_restore(
            document=document, number=2, by=by(people["editor"], "again")
        )
    with pytest.raises(CurationError, match="no version 9"):
        services.record_version_restore(
            document=document, number=9, by=by(people["editor"], "again")
        )
    assert Document.objects.get(pk=document.pk).current_version == 2


def test_the_console_shows_versions_diff_and_restores(alpha, project, people):
    document = ingest(project).document
    ingest(project, DOC_V2)
    client = client_of(alpha, people["editor"])
    record = client.get(f"/admin/canonical/canonicalrecord/{document.pk}/change/")
    assert 'id="record-versions"' in record.content.decode()
    base = f"/admin/canonical/canonicalrecord/{document.pk}/versions/"
    page = client.get(f"{base}?a=1&b=2")
    assert page.status_code == 200
    html = page.content.decode()
    assert "Changes from version 1 to version 2" in html and "Restore version 1" in html
    refused = client.post(f"{base}1/restore/", {"reason": ""})
    assert refused.status_code == 400 and "Give a reason" in refused.content.decode()
    done = client.post(f"{base}1/restore/", {"reason": "back to queues"})
    assert done.status_code == 302
    document.refresh_from_db()
    assert document.current_version == 3
    assert versions_of(document)[-1].source == ChangeSource.ADMIN
    other = make_doc("ver-other", "other-record")
    assert client.get(f"/admin/canonical/canonicalrecord/{other.pk}/versions/").status_code == 404


# --- the API --------------------------------------------------------------------------------


def test_the_versions_api_lists_reads_and_diffs(alpha, project, people):
    document = ingest(project).document
    ingest(project, DOC_V2)
    api = api_of(alpha, people["editor"])
    base = f"/api/kb/documents/{document.pk}/versions"
    listed = api.get(base)
    assert listed.status_code == 200
    assert [(row["number"], row["is_current"]) for row in listed.json()] == [(2, True), (1, False)]
    assert listed.json()[0]["changed"][0] == "Text"
    one = api.get(f"{base}/1").json()
    assert (one["number"], one["canonical_status"], one["is_current"]) == (1, "accepted", False)
    assert "RabbitMQ quorum queues" in one["content"]
    assert one["chunks"][0]["chunk_id"] is not None and len(one["chunks"][0]["hash"]) == 64
    diff = api.get(f"{base}/1/diff/2").json()
    assert (diff["a"], diff["b"], diff["text_changed"]) == (1, 2, True)
    assert {
        "kind": "added",
        "text": "Use Kafka topics with three replicas for billing events.",
    } in (diff["lines"])
    assert api.get(f"{base}/3").status_code == 404
    assert api.get(f"{base}/1/diff/3").status_code == 404


def test_the_versions_api_answers_403_to_readers_and_404_to_anyone_else(
    alpha, beta, project, people
):
    document = ingest(project).document
    base = f"/api/kb/documents/{document.pk}/versions"
    for path in (base, f"{base}/1", f"{base}/1/diff/1"):
        denied = api_of(alpha, people["reader"]).get(path)
        assert denied.status_code == 403, path
        assert "Only editors and admins of this project" in denied.json()["detail"]
        missing = api_of(alpha, people["outsider"]).get(path)
        assert (missing.status_code, missing.json()) == (404, {"detail": "Not found."})
    stranger = make_user(beta, "ver-beta-admin", superuser=True)
    assert api_of(beta, stranger).get(base).status_code == 404  # another tenant


# --- retention ------------------------------------------------------------------------------


def test_retention_purges_old_versions_but_never_the_current_one(alpha, project, people, settings):
    settings.RETENTION = {**settings.RETENTION, "VERSION_DAYS": 30}
    now = dt.datetime(2026, 11, 1, 12, 0, tzinfo=dt.UTC)
    with time_machine.travel(now - dt.timedelta(days=100), tick=False):
        stale = ingest(project, "# Stale\n\nNever changed.\n", path="stale.md").document
        document = ingest(project).document
    with time_machine.travel(now - dt.timedelta(days=40), tick=False):
        ingest(project, DOC_V2)
    with time_machine.travel(now - dt.timedelta(days=10), tick=False):
        services.record_set_priority(document=document, priority=70, by=by(people["editor"], "x"))
    with time_machine.travel(now, tick=False):
        assert retention_purge(dry_run=True)["document_versions"] == 2
        assert retention_purge()["document_versions"] == 2
    assert [v.number for v in versions_of(document)] == [3]  # 1 and 2 are past 30 days
    assert [v.number for v in versions_of(stale)] == [1]  # old, but current: kept
    # the texts only the purged versions used went with them; the current one's stayed
    assert VersionText.objects.filter(document=document).count() == 1
    assert "Kafka topics" in version_content(versions_of(document)[0])
    with time_machine.travel(now, tick=False):
        assert versions_purge(older_than=now) == 0


def test_retention_of_versions_is_off_by_default(alpha, project, settings):
    assert settings.RETENTION["VERSION_DAYS"] is None
    document = ingest(project).document
    ingest(project, DOC_V2)
    assert "document_versions" not in retention_purge()
    assert len(versions_of(document)) == 2
