"""Sources API routes (mounted under /api/)."""

from django.urls import path

from sources.apis import SourceDetailApi, SourceListApi, SourceRunApi

urlpatterns = [
    path("sources", SourceListApi.as_view(), name="sources"),
    path("sources/<int:source_id>", SourceDetailApi.as_view(), name="source-detail"),
    path("sources/<int:source_id>/run", SourceRunApi.as_view(), name="source-run"),
]
