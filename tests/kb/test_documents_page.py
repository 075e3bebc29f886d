"""The editors' Documents page: upload, live job rows, the document list, re-index, delete."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from kb.models import Document, IngestJob
from kb.worker import run_queued_tasks
from portal.access.services import project_ensure
from tests.conftest import make_user

NOTE = b"# Pager duty\n\nThe pager rotates every Monday at nine.\n"
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def editor_client(alpha):
    project_ensure(key="ops")
    project_ensure(key="secret")
    make_user(alpha, "page-editor", projects={"ops": "editor", "secret": "reader"})
    client = alpha.client()
    client.login(username="page-editor", password="pw-secret-123")
    return client


def _upload(client, *files):
    return client.post("/documents/ops/upload", {"files": list(files)}, **HTMX)


def test_an_editor_uploads_and_watches_the_job_reach_done(alpha, editor_client):
    page = editor_client.get("/documents/ops/")
    assert page.status_code == 200
    assert b'id="upload-form"' in page.content and b"No documents yet" in page.content

    response = _upload(
        editor_client, SimpleUploadedFile("pager.md", NOTE), SimpleUploadedFile("x.exe", b"MZ")
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" not in html  # the new rows only
    assert "x.exe" in html and "unsupported file type" in html and "not queued" in html
    job = IngestJob.objects.get(source_path="pager.md")
    assert f'id="job-{job.pk}"' in html and 'hx-trigger="every 1s"' in html  # it polls
    assert job.uploaded_by.username == "page-editor"

    running = editor_client.get(f"/documents/ops/jobs/{job.pk}", **HTMX)
    assert 'data-state="queued"' in running.content.decode()
    assert "HX-Trigger" not in running

    run_queued_tasks()
    done = editor_client.get(f"/documents/ops/jobs/{job.pk}", **HTMX)
    row = done.content.decode()
    assert 'data-state="done"' in row and "every 1s" not in row  # polling stops
    assert done["HX-Trigger"] == "documents-changed"  # the document list reloads

    listing = editor_client.get("/documents/ops/list", **HTMX).content.decode()
    assert listing.startswith('\n<section class="card" id="document-list"') or (
        'id="document-list"' in listing and "<html" not in listing
    )
    assert "Pager duty" in listing and "page-editor" in listing and "Re-index" in listing


def test_reindex_embeds_the_same_file_again_and_delete_hides_it(alpha, editor_client):
    _upload(editor_client, SimpleUploadedFile("pager.md", NOTE))
    run_queued_tasks()
    document = Document.objects.get(source_path="pager.md")
    response = editor_client.post(f"/documents/ops/{document.pk}/reindex", **HTMX)
    assert response.status_code == 200
    job = IngestJob.objects.filter(document=document, force=True).get()
    run_queued_tasks()
    job.refresh_from_db()
    assert (job.state, job.outcome) == ("done", "updated")  # re-embedded, not skipped

    response = editor_client.post(f"/documents/ops/{document.pk}/delete", **HTMX)
    assert response.status_code == 200
    assert "Pager duty" not in response.content.decode()
    document.refresh_from_db()
    assert document.deleted_at is not None


def test_a_document_from_the_cli_cannot_be_reindexed_here(alpha, editor_client):
    from kb.services import document_ingest

    document = document_ingest(
        project=project_ensure(key="ops"), source_path="cli.md", content="# CLI\n\nFrom a shell.\n"
    ).document
    page = editor_client.get("/documents/ops/").content.decode()
    assert "CLI" in page
    response = editor_client.post(f"/documents/ops/{document.pk}/reindex", **HTMX)
    assert "run kb_ingest again" in response.content.decode()
    assert not IngestJob.objects.exists()


def test_readers_and_other_projects_get_404(alpha, beta, editor_client):
    assert editor_client.get("/documents/secret/").status_code == 404  # reader there
    assert editor_client.post("/documents/secret/upload", {"files": []}).status_code == 404
    assert editor_client.get("/documents/nowhere/").status_code == 404
    assert editor_client.get("/documents/").status_code == 302  # to the project they edit

    make_user(alpha, "page-reader", projects={"ops": "reader"})
    reader = alpha.client()
    reader.login(username="page-reader", password="pw-secret-123")
    assert reader.get("/documents/").status_code == 404
    assert reader.get("/documents/ops/").status_code == 404
    assert b"Documents</a>" not in reader.get("/chat/").content  # not offered either

    job = IngestJob.objects.create(
        project=project_ensure(key="ops"), source_path="a.md", source_type="markdown", content=b"x"
    )
    assert reader.get(f"/documents/ops/jobs/{job.pk}").status_code == 404
    # another tenant: the same URL means nothing there
    stranger = make_user(beta, "page-editor", projects={"ops": "editor"})
    other = beta.client()
    with beta.scope():
        project_ensure(key="ops")
        other.force_login(stranger)
    assert other.get(f"/documents/ops/jobs/{job.pk}").status_code == 404


def test_anonymous_users_are_sent_to_login(alpha):
    response = alpha.client().get("/documents/ops/")
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_more_files_than_the_limit_on_the_page_is_a_refused_row(alpha, editor_client, settings):
    limit = settings.KB["UPLOAD_MAX_FILES"]
    files = [SimpleUploadedFile(f"n{i}.md", NOTE) for i in range(limit + 1)]
    response = _upload(editor_client, *files)
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" not in html and "not queued" in html
    assert f"At most {limit} files per request (KB_UPLOAD_MAX_FILES)." in html
    assert not IngestJob.objects.exists()
