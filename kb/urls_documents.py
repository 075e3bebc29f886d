"""Document API routes (mounted under /api/)."""

from django.urls import path

from kb.apis_documents import DocumentDetailApi, DocumentListApi

urlpatterns = [
    path("kb/documents", DocumentListApi.as_view(), name="kb-documents"),
    path("kb/documents/<int:document_id>", DocumentDetailApi.as_view(), name="kb-document-detail"),
]
