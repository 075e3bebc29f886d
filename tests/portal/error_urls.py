"""A tenant URLconf for tests/portal/test_error_bodies.py: the portal's own URLs and error
handlers, plus views that fail the way a bug would (no such view exists in the product)."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied, SuspiciousOperation
from django.http import HttpRequest, HttpResponse
from django.urls import path

from portal import urls as portal_urls

# the portal's own handlers (Django's defaults where it has none)
handler400 = getattr(portal_urls, "handler400", "django.views.defaults.bad_request")
handler403 = getattr(portal_urls, "handler403", "django.views.defaults.permission_denied")
handler404 = getattr(portal_urls, "handler404", "django.views.defaults.page_not_found")
handler500 = getattr(portal_urls, "handler500", "django.views.defaults.server_error")

__all__ = ["handler400", "handler403", "handler404", "handler500", "urlpatterns"]


def crash(request: HttpRequest) -> HttpResponse:
    raise RuntimeError(f"bug with a secret in {__file__}")


def denied(request: HttpRequest) -> HttpResponse:
    raise PermissionDenied("internal reason")


def suspicious(request: HttpRequest) -> HttpResponse:
    raise SuspiciousOperation("DATA_UPLOAD_MAX_MEMORY_SIZE exceeded")


urlpatterns = [
    path("boom/", crash),
    path("api/boom", crash),
    path("denied/", denied),
    path("api/denied", denied),
    path("suspicious/", suspicious),
    path("api/suspicious", suspicious),
    *portal_urls.urlpatterns,
]
