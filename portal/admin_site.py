"""The editors' console: Django admin, opened to project editors/admins as well as superusers."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.contrib import admin
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import resolve_url
from django.template.response import TemplateResponse
from django.urls import URLPattern, URLResolver
from django.utils.http import url_has_allowed_host_and_scheme

from portal.access.models import Project


class NotFoundOutOfScopeMixin:
    """Out-of-scope (or missing) object URLs are 404s, not the admin's redirect to the index."""

    def get_object(self, request: HttpRequest, object_id: str, from_field: str | None = None):
        obj = super().get_object(request, object_id, from_field)  # type: ignore[misc]
        if obj is None:
            raise Http404
        return obj


class ReadOnlyAdminMixin:
    """A console page that only shows rows (audit trails, provisioned data): nobody adds,
    changes or deletes them there."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


def _safe_next(request: HttpRequest) -> str:
    """`?next=` when it stays on this host (Django's login-view rule), else ''."""
    target = request.GET.get("next", "")
    allowed = url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return target if allowed else ""


class EditorAdminSite(admin.AdminSite):
    site_header = "Groundwork curation"
    site_title = "Groundwork curation"
    index_title = "Knowledge curation"

    def has_permission(self, request: HttpRequest) -> bool:
        """Superusers, and users who are editor or admin of at least one project."""
        user = request.user
        if not (user.is_active and user.is_authenticated):
            return False
        return user.is_superuser or Project.objects.editable_by(user).exists()

    def get_urls(self) -> list[URLPattern | URLResolver]:
        """Admin URLs without the "view on site" shortcut (/admin/r/<type>/<id>/): it looks up
        any object of any type outside the visibility rule, and no model here needs it."""
        return [
            pattern
            for pattern in super().get_urls()
            if getattr(pattern, "name", "") != "view_on_site"
        ]

    def login(self, request: HttpRequest, extra_context: dict | None = None) -> HttpResponse:
        """One sign-in page (rate-limited) for the whole tenant; readers get a clear 403."""
        if request.user.is_authenticated:
            if self.has_permission(request):
                return HttpResponseRedirect(_safe_next(request) or resolve_url("admin:index"))
            return TemplateResponse(
                request,
                "portal/no_curation_access.html",
                {"site_header": self.site_header},
                status=403,
            )
        next_url = _safe_next(request) or resolve_url("admin:index")
        return HttpResponseRedirect(f"{resolve_url('login')}?{urlencode({'next': next_url})}")


site = EditorAdminSite(name="admin")
