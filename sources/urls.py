"""Page routes of sources: the Sources page of each project."""

from django.urls import path

from sources import views

urlpatterns = [
    path("sources/", views.sources_index, name="sources-index"),
    path("sources/<str:project_key>/", views.sources_page, name="sources-page"),
    path("sources/<str:project_key>/list", views.source_list_fragment, name="sources-list"),
    path("sources/<str:project_key>/add", views.source_add, name="sources-add"),
    path("sources/<str:project_key>/<int:source_id>/edit", views.source_edit, name="sources-edit"),
    path("sources/<str:project_key>/<int:source_id>/run", views.source_run, name="sources-run"),
    path(
        "sources/<str:project_key>/<int:source_id>/pause", views.source_pause, name="sources-pause"
    ),
    path(
        "sources/<str:project_key>/<int:source_id>/delete",
        views.source_remove,
        name="sources-delete",
    ),
]
