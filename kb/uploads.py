"""Uploads: check a file before it is queued, queue ingest jobs, re-index, read job state."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import TooManyFilesSent
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.http import Http404

from kb.ingestion.docx import docx_check
from kb.ingestion.extract import EXTENSION_TYPES, detect_source_type
from kb.ingestion.formats import ExtractionProblem
from kb.ingestion.pdf import pdf_check
from kb.models import Document, IngestJob
from portal.access.models import AnyUser, Project
from portal.tenants.selectors import current_schema

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.http import HttpRequest
    from rest_framework.request import Request


@dataclass(frozen=True, kw_only=True)
class UploadProblem:
    """Why a file is refused, with the HTTP status that says it best."""

    name: str
    # too_large | unsupported_type | empty | encrypted | no_text | ocr_limit | unreadable |
    # decompression_bomb
    code: str
    message: str
    status: int


@dataclass(frozen=True, kw_only=True)
class UploadFile:
    name: str
    data: bytes


class TooManyFiles(ValueError):
    """More files in one request than KB_UPLOAD_MAX_FILES."""


def uploaded_files(request: HttpRequest | Request) -> list[UploadedFile]:
    """The request's `files`; TooManyFiles over KB_UPLOAD_MAX_FILES. Django's own limit on
    files per request (DATA_UPLOAD_MAX_NUMBER_FILES) is that setting, so Django stops parsing
    there: its SuspiciousOperation becomes the upload's refusal, not Django's 400 page."""
    try:
        return list(request.FILES.getlist("files"))
    except TooManyFilesSent as exc:
        limit = int(settings.KB["UPLOAD_MAX_FILES"])
        raise TooManyFiles(f"At most {limit} files per request (KB_UPLOAD_MAX_FILES).") from exc


def upload_name(raw: str) -> str:
    """The file name without any client-side folders (browsers may send a path)."""
    name = PurePosixPath(raw.replace("\\", "/")).name.strip().replace("\x00", "")
    return name[:255] or "upload"


def upload_problem(*, name: str, size: int, read: Callable[[], bytes]) -> UploadProblem | None:
    """None when the file may be queued; checks size first so big files are never read."""
    limit = int(settings.KB["UPLOAD_MAX_FILE_BYTES"])
    if size > limit:
        return UploadProblem(
            name=name,
            code="too_large",
            message=f"{name} is {size} bytes; the limit is {limit} bytes (KB_UPLOAD_MAX_FILE_BYTES)",
            status=413,
        )
    kind = detect_source_type(name)
    if kind is None:
        return UploadProblem(
            name=name,
            code="unsupported_type",
            message=(
                f"{name}: unsupported file type; supported: {', '.join(sorted(EXTENSION_TYPES))}"
            ),
            status=415,
        )
    if size == 0:
        return UploadProblem(name=name, code="empty", message=f"{name} is empty", status=400)
    data = read()
    try:
        if kind == "pdf":
            pdf_check(data)
        elif kind == "docx":
            docx_check(data)
        elif not data.strip():
            return UploadProblem(
                name=name, code="empty", message=f"{name} has only whitespace", status=400
            )
    except ExtractionProblem as exc:
        return UploadProblem(name=name, code=exc.code, message=f"{name}: {exc}", status=422)
    return None


def _uploader(user: AnyUser | None) -> User | None:
    return None if user is None or isinstance(user, AnonymousUser) else user


def ingest_jobs_enqueue(
    *, project: Project, user: AnyUser | None, files: list[UploadFile]
) -> list[IngestJob]:
    """Store each file as a job and queue it, in one transaction with the queue row, so a job
    is never queued without its bytes nor stored without being queued."""
    with transaction.atomic():
        jobs = [
            IngestJob.objects.create(
                project=project,
                uploaded_by=_uploader(user),
                source_path=file.name,
                source_type=detect_source_type(file.name) or "text",
                content=file.data,
                size=len(file.data),
            )
            for file in files
        ]
        for job in jobs:
            _enqueue(job)
    return jobs


def ingest_job_reindex(*, document: Document, user: AnyUser | None) -> IngestJob | None:
    """Queue a forced re-ingest of the document's last uploaded file; None when it has none
    (documents ingested from the command line keep no source bytes)."""
    last = (
        IngestJob.objects.filter(document=document, state="done")
        .order_by("-created_at", "-id")
        .first()
    )
    if last is None:
        return None
    with transaction.atomic():
        job = IngestJob.objects.create(
            project=document.project,
            uploaded_by=_uploader(user),
            source_path=last.source_path,
            source_type=last.source_type,
            content=bytes(last.content),
            size=last.size,
            force=True,
            document=document,
        )
        _enqueue(job)
    return job


def _enqueue(job: IngestJob) -> None:
    from kb.tasks import ingest_job

    result = ingest_job.enqueue(schema_name=current_schema(), job_id=job.pk)
    job.task_id = str(result.id)
    job.save(update_fields=["task_id"])


def ingest_job_get_visible(user: AnyUser, job_id: int) -> IngestJob:
    """The job if the user edits its project; Http404 otherwise (one body, no oracle)."""
    job = (
        IngestJob.objects.visible_to(user)
        .select_related("project", "document")
        .defer("content")
        .filter(pk=job_id)
        .first()
    )
    if job is None:
        raise Http404
    return job


def ingest_job_list(*, user: AnyUser, project: Project, limit: int = 50) -> list[IngestJob]:
    """The project's most recent jobs the user may see, newest first."""
    return list(
        IngestJob.objects.visible_to(user)
        .filter(project=project)
        .select_related("document", "uploaded_by")
        .defer("content")[:limit]
    )
