"""URLs of the public host (no tenant)."""

from django.urls import path

from portal import views

urlpatterns = [
    path("", views.landing, name="landing"),
    path("healthz", views.healthz, name="healthz"),
]
