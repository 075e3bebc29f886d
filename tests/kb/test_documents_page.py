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


def _ingest(path: str, content: str, updated: str) -> Document:
    import datetime as dt

    from kb.services import document_ingest

    document = document_ingest(
        project=project_ensure(key="ops"), source_path=path, content=content
    ).document
    assert document is not None
    when = dt.datetime.fromisoformat(updated).replace(tzinfo=dt.UTC)
    Document.objects.filter(pk=document.pk).update(updated_at=when)
    return document


def _order(html: str) -> list[int]:
    import re

    return [int(pk) for pk in re.findall(r'data-document-id="(\d+)"', html)]


@pytest.fixture
def three_documents(alpha):
    charlie = _ingest("c.md", "# Charlie\n\nNewest of the three.\n", "2025-03-03T10:00:00")
    alpha_doc = _ingest(
        "a.txt",
        "alpha\n\nA plain text note.\n",
        "2025-03-02T10:00:00",
    )
    bravo = _ingest(
        "b.md",
        "---\ntitle: Bravo\ntype: decision\nstatus: accepted\nslug: dec-bravo\n---\nOldest.\n",
        "2025-03-01T10:00:00",
    )
    return charlie.pk, alpha_doc.pk, bravo.pk


def test_documents_are_newest_first_and_every_column_sorts(alpha, editor_client, three_documents):
    charlie, alpha_doc, bravo = three_documents
    page = editor_client.get("/documents/ops/").content.decode()
    assert _order(page) == [charlie, alpha_doc, bravo]  # newest first by default
    assert 'aria-sort="descending"' in page and page.count("aria-sort=") == 1

    def order(sort: str) -> list[int]:
        response = editor_client.get("/documents/ops/", {"sort": sort})
        assert response.status_code == 200
        return _order(response.content.decode())

    assert order("title") == [alpha_doc, bravo, charlie]  # case does not matter
    assert order("-title") == [charlie, bravo, alpha_doc]
    assert order("updated") == [bravo, alpha_doc, charlie]
    assert order("status") == [bravo, charlie, alpha_doc]  # accepted < indexed (newest first)
    assert order("type") == [charlie, bravo, alpha_doc]  # Markdown < Plain text
    assert order("-type") == [alpha_doc, charlie, bravo]
    assert order("size") == order("-size") == [charlie, alpha_doc, bravo]  # no upload: last
    # a sort the page does not offer falls back to the default, no error page
    for bogus in ("colour", "-", "title;drop", "__class__", ""):
        assert order(bogus) == [charlie, alpha_doc, bravo]


def test_the_sorted_column_says_so_and_its_link_reverses_it(alpha, editor_client, three_documents):
    html = editor_client.get("/documents/ops/", {"sort": "title"}).content.decode()
    header = html.split('aria-sort="ascending"')[1].split("</th>")[0]
    assert "Title" in header and 'href="/documents/ops/?sort=-title"' in header
    assert html.count("aria-sort=") == 1
    assert 'href="/documents/ops/?sort=-updated"' in html  # another column: its first direction
    assert 'href="/documents/ops/?sort=status"' in html


def test_the_list_fragment_keeps_the_sort_for_htmx_and_after_a_delete(
    alpha, editor_client, three_documents
):
    charlie, alpha_doc, bravo = three_documents
    fragment = editor_client.get("/documents/ops/list", {"sort": "title"}, **HTMX)
    html = fragment.content.decode()
    assert "<html" not in html and _order(html) == [alpha_doc, bravo, charlie]
    # the list reloads itself (a job finished) with the same sort
    assert 'hx-get="/documents/ops/list?sort=title"' in html
    after_delete = editor_client.post(f"/documents/ops/{bravo}/delete?sort=title", **HTMX)
    assert _order(after_delete.content.decode()) == [alpha_doc, charlie]
