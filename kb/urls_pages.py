"""Page routes of the knowledge base: the search page and the editors' Documents pages."""

from django.urls import path

from kb import views, views_documents

urlpatterns = [
    path("search/", views.search_page, name="search"),
    path("documents/", views_documents.documents_index, name="kb-documents-index"),
    path("documents/<str:project_key>/", views_documents.documents_page, name="kb-documents-page"),
    path(
        "documents/<str:project_key>/list",
        views_documents.document_list_fragment,
        name="kb-documents-list",
    ),
    path(
        "documents/<str:project_key>/upload",
        views_documents.documents_upload,
        name="kb-documents-upload",
    ),
    path(
        "documents/<str:project_key>/jobs/<int:job_id>",
        views_documents.job_row,
        name="kb-documents-job",
    ),
    path(
        "documents/<str:project_key>/<int:document_id>/reindex",
        views_documents.document_reindex,
        name="kb-documents-reindex",
    ),
    path(
        "documents/<str:project_key>/<int:document_id>/delete",
        views_documents.document_delete,
        name="kb-documents-delete",
    ),
]
