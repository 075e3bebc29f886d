"""Search API routes (mounted under /api/)."""

from django.urls import path

from kb.apis_search import SearchApi

urlpatterns = [
    path("kb/search", SearchApi.as_view(), name="kb-search"),
]
