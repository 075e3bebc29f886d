"""Access administration in the editors' console: users and groups (superusers), projects and
memberships (the project's admins, `Project.objects.administered_by`)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group
from django.db.models import QuerySet
from django.http import HttpRequest

from portal.access.models import Membership, Project, Role
from portal.access.services import membership_set
from portal.admin_site import NotFoundOutOfScopeMixin, site

site.register(get_user_model(), UserAdmin)
site.register(Group, GroupAdmin)


class ProjectAdminPermissionsMixin:
    def has_module_permission(self, request: HttpRequest) -> bool:
        return Project.objects.administered_by(request.user).exists()

    def _project_of(self, obj: Any) -> int | None:
        raise NotImplementedError

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if obj is None:
            return self.has_module_permission(request)
        project_id = self._project_of(obj)
        administered = Project.objects.administered_by(request.user)
        return project_id is not None and administered.filter(pk=project_id).exists()

    has_change_permission = has_view_permission


@admin.register(Project, site=site)
class ProjectAdmin(NotFoundOutOfScopeMixin, ProjectAdminPermissionsMixin, admin.ModelAdmin):
    list_display = ["key", "name", "created_at"]
    search_fields = ["key", "name"]

    def _project_of(self, obj: Project) -> int | None:
        return obj.pk

    def get_queryset(self, request: HttpRequest) -> QuerySet[Project]:
        return Project.objects.administered_by(request.user)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return [] if request.user.is_superuser or obj is None else ["key"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        """Superusers, and admins of a project (they become admin of what they create)."""
        return self.has_module_permission(request)

    def save_model(self, request: HttpRequest, obj: Project, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)
        user = request.user
        if not change and not user.is_superuser and isinstance(user, get_user_model()):
            # without a membership the creator could not see (or staff) the new project
            membership_set(user=user, project=obj, role=Role.ADMIN)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # projects own documents (PROTECT); retire them by removing members


@admin.register(Membership, site=site)
class MembershipAdmin(NotFoundOutOfScopeMixin, ProjectAdminPermissionsMixin, admin.ModelAdmin):
    list_display = ["user", "project", "role", "created_at"]
    list_filter = ["role"]
    search_fields = ["user__username", "project__key"]
    list_select_related = ["user", "project"]

    def _project_of(self, obj: Membership) -> int | None:
        return obj.project_id

    def get_queryset(self, request: HttpRequest) -> QuerySet[Membership]:
        return Membership.objects.filter(project__in=Project.objects.administered_by(request.user))

    def has_add_permission(self, request: HttpRequest) -> bool:
        return self.has_module_permission(request)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self.has_view_permission(request, obj)

    def formfield_for_foreignkey(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        if db_field.name == "project":
            kwargs["queryset"] = Project.objects.administered_by(request.user).order_by("key")
        return super().formfield_for_foreignkey(db_field, request, **kwargs)
