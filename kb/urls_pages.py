"""Page routes of the knowledge base (mounted under /search/)."""

from django.urls import path

from kb import views

urlpatterns = [path("", views.search_page, name="search")]
