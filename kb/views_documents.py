"""Documents page for editors: upload many files, watch each job live, re-index and delete,
and see which documents are near-duplicates of which."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from kb.curation import AuditContext, ChangeSource
from kb.models import Document
from kb.selectors import document_list_sorted, document_sort, duplicate_groups
from kb.services import document_soft_delete
from kb.uploads import (
    TooManyFiles,
    UploadFile,
    ingest_job_get_visible,
    ingest_job_list,
    ingest_job_reindex,
    ingest_jobs_enqueue,
    upload_name,
    upload_problem,
    uploaded_files,
)
from portal.access.models import Project
from portal.access.selectors import project_first_editable, project_get_editable

PAGE = "kb/documents.html"


@dataclass(frozen=True, kw_only=True)
class SortHeader:
    """A column heading of the documents table: what it says, and how it sorts."""

    label: str
    column: str  # a key of DOCUMENT_SORTS, or "" for a column that does not sort
    direction: str = ""  # "ascending" | "descending" when the table is sorted by it
    next_sort: str = ""  # the sort its link asks for


# (label, column, the direction a first click sorts in: the most useful end first)
COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("Title", "title", ""),
    ("Type", "type", ""),
    ("Status", "status", ""),
    ("Chunks", "chunks", "-"),
    ("Size", "size", "-"),
    ("Updated", "updated", "-"),
    ("Uploaded by", "uploaded_by", ""),
)


def sort_headers(sort: str) -> list[SortHeader]:
    """The table's headings for the current (valid) sort."""
    headers = []
    for label, column, first in COLUMNS:
        if sort.removeprefix("-") == column:
            descending = sort.startswith("-")
            headers.append(
                SortHeader(
                    label=label,
                    column=column,
                    direction="descending" if descending else "ascending",
                    next_sort=column if descending else f"-{column}",
                )
            )
        else:
            headers.append(SortHeader(label=label, column=column, next_sort=f"{first}{column}"))
    return headers


def _context(request: HttpRequest, project: Project, **extra: Any) -> dict[str, Any]:
    sort = document_sort(request.GET.get("sort"))
    return {
        "project": project,
        "projects": Project.objects.editable_by(request.user).order_by("key"),
        "documents": list(
            document_list_sorted(user=request.user, project_key=project.key, sort=sort)
        ),
        "sort": sort,
        "sort_headers": sort_headers(sort),
        "duplicate_groups": duplicate_groups(user=request.user, project_key=project.key),
        "jobs": ingest_job_list(user=request.user, project=project),
        **extra,
    }


@login_required
@require_GET
def documents_index(request: HttpRequest) -> HttpResponse:
    """The first project the user edits; 404 for users who edit none."""
    project = project_first_editable(user=request.user)
    return HttpResponseRedirect(reverse("kb-documents-page", args=[project.key]))


@login_required
@require_GET
def documents_page(request: HttpRequest, project_key: str) -> HttpResponse:
    project = project_get_editable(user=request.user, key=project_key)
    return TemplateResponse(request, PAGE, _context(request, project))


@login_required
@require_GET
def document_list_fragment(request: HttpRequest, project_key: str) -> HttpResponse:
    project = project_get_editable(user=request.user, key=project_key)
    return TemplateResponse(request, f"{PAGE}#document-list", _context(request, project))


@login_required
@require_POST
def documents_upload(request: HttpRequest, project_key: str) -> HttpResponse:
    """Queue every acceptable file; refused ones come back as failed rows with the reason."""
    project = project_get_editable(user=request.user, key=project_key)
    refused: list[dict[str, str]] = []
    files: list[UploadFile] = []
    try:
        files_sent = uploaded_files(request)
    except TooManyFiles as exc:
        files_sent = []
        refused.append({"name": "(all files)", "error": str(exc)})
    for upload in files_sent:
        name = upload_name(upload.name or "")
        problem = upload_problem(name=name, size=upload.size or 0, read=upload.read)
        if problem is not None:
            refused.append({"name": name, "error": problem.message})
            continue
        upload.seek(0)
        files.append(UploadFile(name=name, data=upload.read()))
    if not files and not refused:
        refused.append({"name": "(nothing)", "error": "choose or drop at least one file"})
    jobs = ingest_jobs_enqueue(project=project, user=request.user, files=files) if files else []
    return TemplateResponse(
        request, f"{PAGE}#new-jobs", {"project": project, "new_jobs": jobs, "refused": refused}
    )


@login_required
@require_GET
def job_row(request: HttpRequest, project_key: str, job_id: int) -> HttpResponse:
    """One job's row; polled while the job runs. A finished job refreshes the document list."""
    project = project_get_editable(user=request.user, key=project_key)
    job = ingest_job_get_visible(request.user, job_id)
    if job.project_id != project.pk:
        raise Http404
    response = TemplateResponse(request, f"{PAGE}#job-row", {"project": project, "job": job})
    if job.is_finished:
        response["HX-Trigger"] = "documents-changed"
    return response


@login_required
@require_POST
def document_reindex(request: HttpRequest, project_key: str, document_id: int) -> HttpResponse:
    project = project_get_editable(user=request.user, key=project_key)
    document = _document_in(request, project, document_id)
    job = ingest_job_reindex(document=document, user=request.user)
    refused = []
    if job is None:
        refused.append(
            {
                "name": document.title,
                "error": "no uploaded file to re-index from (ingested from the command line: "
                "run kb_ingest again)",
            }
        )
    return TemplateResponse(
        request,
        f"{PAGE}#new-jobs",
        {"project": project, "new_jobs": [job] if job else [], "refused": refused},
    )


@login_required
@require_POST
def document_delete(request: HttpRequest, project_key: str, document_id: int) -> HttpResponse:
    project = project_get_editable(user=request.user, key=project_key)
    document_soft_delete(
        document=_document_in(request, project, document_id),
        origin=AuditContext(actor=request.user, source=ChangeSource.SERVICE),
    )
    return TemplateResponse(request, f"{PAGE}#document-list", _context(request, project))


def _document_in(request: HttpRequest, project: Project, document_id: int) -> Document:
    document = (
        Document.objects.editable_by(request.user).filter(pk=document_id, project=project).first()
    )
    if document is None:
        raise Http404
    return document
