"""Editor pages of the knowledge base (mounted under /documents/)."""

from django.urls import path

from kb import views_documents as views

urlpatterns = [
    path("", views.documents_index, name="kb-documents-index"),
    path("<str:project_key>/", views.documents_page, name="kb-documents-page"),
    path("<str:project_key>/list", views.document_list_fragment, name="kb-documents-list"),
    path("<str:project_key>/upload", views.documents_upload, name="kb-documents-upload"),
    path("<str:project_key>/jobs/<int:job_id>", views.job_row, name="kb-documents-job"),
    path(
        "<str:project_key>/<int:document_id>/reindex",
        views.document_reindex,
        name="kb-documents-reindex",
    ),
    path(
        "<str:project_key>/<int:document_id>/delete",
        views.document_delete,
        name="kb-documents-delete",
    ),
]
