"""The tenant home page (mounted at /): it reads chat, kb and access data, so it lives here."""

from django.urls import path

from chat import views_home

urlpatterns = [path("", views_home.home, name="home")]
