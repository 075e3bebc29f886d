"""Personal data in the console: tenant superusers export or erase a user's data."""

from __future__ import annotations

import json
from typing import Any

from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse

from portal.admin_site import NotFoundOutOfScopeMixin, site
from privacy.models import DataSubject
from privacy.services import user_data_export, user_erase
from privacy.views import export_filename


@admin.register(DataSubject, site=site)
class DataSubjectAdmin(NotFoundOutOfScopeMixin, admin.ModelAdmin):
    list_display = ["username", "email", "is_active", "is_superuser", "last_login"]
    search_fields = ["username", "email", "first_name", "last_name"]
    actions = ["export_data", "erase_data"]
    fields = readonly_fields = ("username", "email", "first_name", "last_name", "last_login")

    # Tenant superusers only: an export reveals everything about a person.
    def has_module_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.is_active and request.user.is_superuser)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self.has_module_permission(request)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # erasure (below) is the delete: it also keeps the audit trail whole

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        # the actions are this console's whole point; they follow the view permission
        actions = super().get_actions(request)
        return actions if self.has_module_permission(request) else {}

    @admin.action(description="Export personal data (JSON)")
    def export_data(self, request: HttpRequest, queryset: QuerySet[DataSubject]) -> HttpResponse:
        users = list(queryset.order_by("username"))
        exports = [user_data_export(user=user) for user in users]
        body: Any = exports[0] if len(exports) == 1 else {"exports": exports}
        response = HttpResponse(
            json.dumps(body, indent=2, ensure_ascii=False), content_type="application/json"
        )
        name = export_filename(users[0].username if len(users) == 1 else "users")
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        return response

    @admin.action(description="Erase personal data (cannot be undone)")
    def erase_data(
        self, request: HttpRequest, queryset: QuerySet[DataSubject]
    ) -> HttpResponse | None:
        users = list(queryset.order_by("username"))
        if any(user.pk == request.user.pk for user in users):
            self.message_user(request, "You cannot erase your own account here.", messages.ERROR)
            return None
        if request.POST.get("confirm") != "yes":
            return TemplateResponse(
                request,
                "admin/privacy/erase_confirm.html",
                {
                    **self.admin_site.each_context(request),
                    "title": "Erase personal data?",
                    "users": users,
                    "opts": self.model._meta,
                    "action_checkbox_name": ACTION_CHECKBOX_NAME,
                },
            )
        for user in users:
            user_erase(user=user)
        names = ", ".join(user.username for user in users)
        self.message_user(request, f"Erased the personal data of {names}.", messages.SUCCESS)
        return None
