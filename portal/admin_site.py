"""The editors' console: Django admin, opened to project editors/admins as well as superusers."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from portal.access.models import Project


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


site = EditorAdminSite(name="admin")
