"""The start page (mounted at /); the URL keeps the name "home" that sign-in redirects to."""

from django.urls import path

from chat import views_start

urlpatterns = [path("", views_start.start_page, name="home")]
