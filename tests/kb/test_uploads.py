"""Multipart upload -> queued jobs -> the worker ingests them for the right tenant."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection

from kb.models import Chunk, Document, IngestJob
from kb.worker import run_queued_tasks
from portal.access.services import project_ensure
from tests.conftest import make_user, token_for

URL = "/api/kb/documents"
SAMPLES = Path(__file__).parent / "samples"
NOTE = b"# Pager duty\n\nThe pager rotates every Monday at nine.\n"


def sample(name: str) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, (SAMPLES / name).read_bytes())


@pytest.fixture
def editor(alpha):
    project_ensure(key="ops")
    project_ensure(key="secret")
    return make_user(alpha, "up-editor", projects={"ops": "editor", "secret": "reader"})


def api(info, user):
    return info.client(HTTP_AUTHORIZATION=f"Token {token_for(info, user)}")


def upload(client, project_key: str, *files: SimpleUploadedFile):
    return client.post(URL, {"project_key": project_key, "files": list(files)})


def test_upload_many_files_answers_202_with_jobs_and_the_worker_ingests_them(alpha, editor):
    client = api(alpha, editor)
    response = upload(
        client,
        "ops",
        sample("handbook.pdf"),
        sample("incident-guide.docx"),
        SimpleUploadedFile("pager.md", NOTE),
    )
    assert response.status_code == 202, response.content
    jobs = response.json()["jobs"]
    assert [job["state"] for job in jobs] == ["queued"] * 3
    assert [job["source_path"] for job in jobs] == [
        "handbook.pdf",
        "incident-guide.docx",
        "pager.md",
    ]

    assert run_queued_tasks() == 3

    states = {job["id"]: client.get(f"/api/kb/jobs/{job['id']}").json() for job in jobs}
    assert {state["state"] for state in states.values()} == {"done"}, states
    pdf_job = states[jobs[0]["id"]]
    assert pdf_job["outcome"] == "created"
    assert pdf_job["progress_done"] == pdf_job["progress_total"] > 0
    pdf = Document.objects.get(pk=pdf_job["document_id"])
    assert (pdf.source_type, pdf.title) == ("pdf", "Storage operations handbook")
    assert pdf.metadata["pages"] == 3
    vault = Chunk.objects.get(document=pdf, text__contains="Kestrel backup vault")
    assert vault.heading_path.endswith("Page 3")
    assert "| Kestrel | 400 days | 45 days |" in vault.text  # the table stayed a table
    word = Document.objects.get(pk=states[jobs[1]["id"]]["document_id"])
    assert word.source_type == "docx"
    assert Chunk.objects.filter(
        document=word, heading_path__endswith="Paging > Escalation"
    ).exists()
    assert Document.objects.filter(project__key="ops", source_path="pager.md").exists()


def test_upload_one_file_then_the_same_file_again_is_skipped(alpha, editor):
    client = api(alpha, editor)
    first = upload(client, "ops", SimpleUploadedFile("pager.md", NOTE)).json()["jobs"][0]
    run_queued_tasks()
    second = upload(client, "ops", SimpleUploadedFile("pager.md", NOTE)).json()["jobs"][0]
    run_queued_tasks()
    assert client.get(f"/api/kb/jobs/{first['id']}").json()["outcome"] == "created"
    again = client.get(f"/api/kb/jobs/{second['id']}").json()
    assert (again["state"], again["outcome"]) == ("done", "skipped")
    assert Document.objects.filter(project__key="ops", source_path="pager.md").count() == 1


def test_a_job_runs_in_its_own_tenant(alpha, beta, editor):
    beta_editor = make_user(beta, "beta-up", projects={"ops": "editor"})
    with beta.scope():
        project_ensure(key="ops")
    response = upload(api(beta, beta_editor), "ops", SimpleUploadedFile("beta-only.md", NOTE))
    assert response.status_code == 202
    with beta.scope():
        job_id = response.json()["jobs"][0]["id"]
    with alpha.scope():
        run_queued_tasks()
        assert connection.schema_name == "alpha"  # the worker gave the caller its tenant back
        assert not Document.objects.filter(source_path="beta-only.md").exists()
    with beta.scope():
        job = IngestJob.objects.get(pk=job_id)
        assert job.state == "done"
        assert job.document.project.key == "ops"
    # alpha's editor cannot read beta's job (ids are per schema: whatever alpha has is alpha's)
    assert api(alpha, editor).get("/api/kb/jobs/987654").status_code == 404


@pytest.mark.parametrize(
    ("name", "content", "code", "status"),
    [
        ("tool.exe", b"MZ\x90\x00binary", "unsupported_type", 415),
        ("empty.md", b"", "empty", 400),
        ("encrypted.pdf", None, "encrypted", 422),
        ("scanned.pdf", None, "no_text", 422),
        ("fake.pdf", b"%PDF-1.4 not really", "unreadable", 422),
        ("fake.docx", b"PK not a zip", "unreadable", 422),
    ],
)
def test_refused_files_get_a_clear_4xx_and_nothing_is_queued(
    alpha, editor, name, content, code, status, settings
):
    # a scan without Tesseract (an unfindable command); with it: tests/kb/test_ocr.py
    settings.KB = {**settings.KB, "OCR_TESSERACT_CMD": "/nonexistent/bin/tesseract"}
    file = sample(name) if content is None else SimpleUploadedFile(name, content)
    response = upload(api(alpha, editor), "ops", file, SimpleUploadedFile("fine.md", NOTE))
    assert response.status_code == status, response.content
    body = response.json()
    assert [entry["code"] for entry in body["files"]] == [code]
    assert name in body["detail"]
    assert not IngestJob.objects.exists()


def test_a_file_over_the_size_limit_is_413(alpha, editor, settings):
    settings.KB = {**settings.KB, "UPLOAD_MAX_FILE_BYTES": 100}
    response = upload(api(alpha, editor), "ops", SimpleUploadedFile("big.md", b"x" * 101))
    assert response.status_code == 413
    assert "limit is 100 bytes" in response.json()["detail"]


def test_more_files_than_the_limit_is_the_documented_json_refusal(alpha, editor, settings):
    """Django's own file count limit (the same setting) used to answer first, with its HTML
    400 page; one over the limit or many over, the refusal is the upload's JSON."""
    limit = settings.KB["UPLOAD_MAX_FILES"]
    assert settings.DATA_UPLOAD_MAX_NUMBER_FILES == limit == 100
    client = api(alpha, editor)
    for count in (limit + 1, limit + 50):
        files = [SimpleUploadedFile(f"n{i}.md", NOTE) for i in range(count)]
        response = upload(client, "ops", *files)
        assert response.status_code == 400, response.content[:300]
        assert response.json() == {
            "detail": f"At most {limit} files per request (KB_UPLOAD_MAX_FILES).",
            "files": [],
        }
    assert not IngestJob.objects.exists()
    files = [SimpleUploadedFile(f"n{i}.md", NOTE + str(i).encode()) for i in range(limit)]
    assert upload(client, "ops", *files).status_code == 202


def test_readers_get_403_and_strangers_404_and_the_json_ingest_still_works(alpha, editor):
    client = api(alpha, editor)
    assert upload(client, "secret", SimpleUploadedFile("a.md", NOTE)).status_code == 403
    assert upload(client, "nowhere", SimpleUploadedFile("a.md", NOTE)).status_code == 404
    assert client.post(URL, {"project_key": "ops"}).status_code == 400  # no files
    response = client.post(
        URL,
        {"project_key": "ops", "source_path": "j.md", "content": "# J\n\nJson still works.\n"},
        content_type="application/json",
    )
    assert response.status_code == 201


def test_jobs_of_other_projects_are_404(alpha, editor):
    other = make_user(alpha, "up-other", projects={"secret": "editor"})
    job = upload(api(alpha, editor), "ops", SimpleUploadedFile("a.md", NOTE)).json()["jobs"][0]
    assert api(alpha, other).get(f"/api/kb/jobs/{job['id']}").status_code == 404
    reader = make_user(alpha, "up-reader", projects={"ops": "reader"})
    assert api(alpha, reader).get(f"/api/kb/jobs/{job['id']}").status_code == 404


def test_the_schema_documents_uploads_and_their_refusals(alpha, editor):
    schema = api(alpha, editor).get("/api/schema/", HTTP_ACCEPT="application/json").json()
    create = schema["paths"]["/api/kb/documents"]["post"]
    assert "multipart/form-data" in create["requestBody"]["content"]
    assert {"202", "400", "413", "415", "422"} <= set(create["responses"])
    assert "/api/kb/jobs/{job_id}" in schema["paths"]
