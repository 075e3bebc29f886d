"""Document API routes (mounted under /api/)."""

from django.urls import path

from kb.apis_documents import DocumentDetailApi, DocumentListApi
from kb.apis_uploads import IngestJobDetailApi
from kb.apis_versions import (
    DocumentVersionDetailApi,
    DocumentVersionDiffApi,
    DocumentVersionListApi,
)

urlpatterns = [
    path("kb/documents", DocumentListApi.as_view(), name="kb-documents"),
    path("kb/documents/<int:document_id>", DocumentDetailApi.as_view(), name="kb-document-detail"),
    path(
        "kb/documents/<int:document_id>/versions",
        DocumentVersionListApi.as_view(),
        name="kb-document-versions",
    ),
    path(
        "kb/documents/<int:document_id>/versions/<int:number>",
        DocumentVersionDetailApi.as_view(),
        name="kb-document-version",
    ),
    path(
        "kb/documents/<int:document_id>/versions/<int:a>/diff/<int:b>",
        DocumentVersionDiffApi.as_view(),
        name="kb-document-version-diff",
    ),
    path("kb/jobs/<int:job_id>", IngestJobDetailApi.as_view(), name="kb-job-detail"),
]
