"""Editors' console entries: content gaps to write next, and the read-only chat log."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from chat.models import ChatLog, ContentGap
from chat.selectors import chat_logs_for, content_gaps_for
from chat.services import content_gaps_resolve
from portal.admin_site import site


class EditorScopedAdmin(admin.ModelAdmin):
    """Editors see rows of the projects they edit; superusers see all. Nobody adds rows."""

    # The console's own rule (editors of any project, superusers) decides who sees these.
    def has_module_permission(self, request: HttpRequest) -> bool:
        return self.admin_site.has_permission(request)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self.admin_site.has_permission(request)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return bool(request.user.is_superuser)


class ProjectKeyFilter(admin.SimpleListFilter):
    title = "project"
    parameter_name = "project"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        keys = model_admin.get_queryset(request).values_list("project_key", flat=True)
        return [(key or "-", key or "(all projects)") for key in sorted(set(keys))]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        value = self.value()
        if value is None:
            return queryset
        return queryset.filter(project_key="" if value == "-" else value)


@admin.register(ContentGap, site=site)
class ContentGapAdmin(EditorScopedAdmin):
    list_display = ("normalised_question", "project_key", "count", "last_seen", "resolved")
    list_filter = ("resolved", ProjectKeyFilter)
    search_fields = ("normalised_question", "example_question")
    ordering = ("-count", "-last_seen")
    readonly_fields = (
        "project_key",
        "normalised_question",
        "example_question",
        "count",
        "first_seen",
        "last_seen",
    )
    fields = readonly_fields + ("resolved",)
    actions = ["mark_resolved"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[ContentGap]:
        return content_gaps_for(user=request.user)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self.admin_site.has_permission(request)

    @admin.action(description="Mark selected gaps resolved")
    def mark_resolved(self, request: HttpRequest, queryset: QuerySet[ContentGap]) -> None:
        count = content_gaps_resolve(gap_ids=list(queryset.values_list("pk", flat=True)))
        self.message_user(request, f"{count} gap(s) marked resolved.", messages.SUCCESS)


@admin.register(ChatLog, site=site)
class ChatLogAdmin(EditorScopedAdmin):
    list_display = ("at", "user", "short_question", "provider", "latency_ms", "refusal_reason")
    list_filter = ("provider", "refusal_reason")
    search_fields = ("question", "answer")
    ordering = ("-at",)
    date_hierarchy = "at"

    def get_queryset(self, request: HttpRequest) -> QuerySet[ChatLog]:
        return chat_logs_for(user=request.user).select_related("user")

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description="question")
    def short_question(self, obj: ChatLog) -> str:
        return obj.question[:100]
