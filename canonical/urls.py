"""API routes of the canonical app (mounted under /api/; kb.urls has the document itself)."""

from django.urls import path

from canonical.apis import RecordHistoryApi, RecordSupersedeApi

urlpatterns = [
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
