"""API routes of the knowledge base (mounted under /api/)."""

from django.urls import include, path

urlpatterns = [
    path("", include("kb.urls_documents")),
    path("", include("kb.urls_search")),
]
