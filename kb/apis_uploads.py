"""Multipart upload to the documents endpoint (queued, 202 with job ids) and job state."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from kb.models import IngestJob
from kb.uploads import (
    TooManyFiles,
    UploadFile,
    UploadProblem,
    ingest_job_get_visible,
    ingest_jobs_enqueue,
    upload_name,
    upload_problem,
    uploaded_files,
)
from portal.access.models import PROJECT_KEY_VALIDATOR, KeyScope
from portal.access.selectors import project_get_visible, user_can_edit


@extend_schema_serializer(component_name="KbDocumentUploadInput")
class UploadInputSerializer(serializers.Serializer):
    project_key = serializers.CharField(max_length=63, validators=[PROJECT_KEY_VALIDATOR])
    files = serializers.ListField(
        child=serializers.FileField(allow_empty_file=True),
        allow_empty=False,
        help_text=(
            "one or more files (.md, .markdown, .txt, .html, .htm, .pdf, .docx); each at most "
            "KB_UPLOAD_MAX_FILE_BYTES, at most KB_UPLOAD_MAX_FILES per request"
        ),
    )


@extend_schema_serializer(component_name="KbIngestJob")
class IngestJobOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    project_key = serializers.CharField(source="project.key")
    source_path = serializers.CharField()
    source_type = serializers.CharField()
    size = serializers.IntegerField()
    state = serializers.ChoiceField(choices=["queued", "extracting", "embedding", "done", "failed"])
    progress_done = serializers.IntegerField(
        help_text="chunks embedded so far (while extracting: scanned pages read by OCR)"
    )
    progress_total = serializers.IntegerField(
        help_text="chunks to embed, or scanned pages to read by OCR (0 until known)"
    )
    outcome = serializers.CharField(help_text="created | updated | skipped once done")
    error = serializers.CharField(help_text="why the job failed ('' otherwise)")
    warnings = serializers.ListField(child=serializers.CharField())
    attempts = serializers.IntegerField()
    document_id = serializers.IntegerField(allow_null=True)
    url = serializers.SerializerMethodField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)

    def get_url(self, job: IngestJob) -> str:
        return f"/api/kb/jobs/{job.pk}"


@extend_schema_serializer(component_name="KbUploadAccepted")
class UploadAcceptedSerializer(serializers.Serializer):
    jobs = IngestJobOutputSerializer(many=True)


@extend_schema_serializer(component_name="KbUploadRefused")
class UploadRefusedSerializer(serializers.Serializer):
    detail = serializers.CharField()
    files = serializers.ListField(
        child=serializers.DictField(child=serializers.CharField()),
        help_text="one entry per refused file: {name, code, error}",
    )


UPLOAD_RESPONSES = {
    202: UploadAcceptedSerializer,
    400: OpenApiResponse(
        UploadRefusedSerializer, description="Empty file, missing files or field errors"
    ),
    413: OpenApiResponse(UploadRefusedSerializer, description="A file is over the size limit"),
    415: OpenApiResponse(UploadRefusedSerializer, description="Unsupported file type"),
    422: OpenApiResponse(
        UploadRefusedSerializer,
        description=(
            "Encrypted or unreadable PDF; a text-less (scanned) PDF when Tesseract is not "
            "installed (no_text) or with more scanned pages than KB_OCR_MAX_PAGES (ocr_limit); "
            "unreadable Word file; a PDF or Word file whose parts inflate far beyond their "
            "stored size (decompression_bomb)"
        ),
    ),
}


def documents_upload(request: Request) -> Response:
    """Check every file, then queue them all (or none): 202 with one job per file."""
    try:
        files_sent = uploaded_files(request)
    except TooManyFiles as exc:
        return Response({"detail": str(exc), "files": []}, status=status.HTTP_400_BAD_REQUEST)
    serializer = UploadInputSerializer(
        data={"project_key": request.POST.get("project_key"), "files": files_sent}
    )
    serializer.is_valid(raise_exception=True)
    project = project_get_visible(user=request.user, key=serializer.validated_data["project_key"])
    if not user_can_edit(user=request.user, project=project):
        raise PermissionDenied("Only editors and admins of this project may add documents.")
    uploads = serializer.validated_data["files"]
    problems: list[UploadProblem] = []
    files: list[UploadFile] = []
    for upload in uploads:
        name = upload_name(upload.name or "")
        problem = upload_problem(name=name, size=upload.size or 0, read=upload.read)
        if problem is not None:
            problems.append(problem)
            continue
        upload.seek(0)
        files.append(UploadFile(name=name, data=upload.read()))
    if problems:
        codes = {problem.status for problem in problems}
        return Response(
            {
                "detail": "Nothing was queued: "
                + "; ".join(problem.message for problem in problems),
                "files": [
                    {"name": problem.name, "code": problem.code, "error": problem.message}
                    for problem in problems
                ],
            },
            status=codes.pop() if len(codes) == 1 else status.HTTP_400_BAD_REQUEST,
        )
    jobs = ingest_jobs_enqueue(project=project, user=request.user, files=files)
    return Response(
        {"jobs": IngestJobOutputSerializer(jobs, many=True).data}, status=status.HTTP_202_ACCEPTED
    )


class IngestJobDetailApi(APIView):
    """State and progress of one ingest job (editors of its project)."""

    key_scopes = {"GET": KeyScope.READ}

    @extend_schema(
        operation_id="kb_job_retrieve",
        responses={
            200: IngestJobOutputSerializer,
            404: OpenApiResponse(description="Not yours to see (or missing)"),
        },
        summary="State and progress of an upload's ingest job",
    )
    def get(self, request: Request, job_id: int) -> Response:
        job = ingest_job_get_visible(request.user, job_id)
        return Response(IngestJobOutputSerializer(job).data)
