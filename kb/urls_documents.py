"""Document API routes (mounted under /api/)."""

from django.urls import path

from kb.apis_documents import DocumentDetailApi, DocumentListApi
from kb.apis_uploads import IngestJobDetailApi

urlpatterns = [
    path("kb/documents", DocumentListApi.as_view(), name="kb-documents"),
    path("kb/documents/<int:document_id>", DocumentDetailApi.as_view(), name="kb-document-detail"),
    path("kb/jobs/<int:job_id>", IngestJobDetailApi.as_view(), name="kb-job-detail"),
]
