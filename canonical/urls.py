"""API routes of the canonical app (mounted under /api/ before kb.urls, so they win)."""

from django.urls import path

from canonical.apis import RecordDetailApi, RecordHistoryApi, RecordSupersedeApi

urlpatterns = [
    path(
        "kb/documents/<int:document_id>",
        RecordDetailApi.as_view(),
        name="kb-document-detail-canonical",
    ),
    path(
        "kb/documents/<int:document_id>/supersede",
        RecordSupersedeApi.as_view(),
        name="kb-document-supersede",
    ),
    path(
        "kb/documents/<int:document_id>/history",
        RecordHistoryApi.as_view(),
        name="kb-document-history",
    ),
]
