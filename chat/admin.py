"""Editors' console entries: content gaps to write next, and the read-only chat log."""

from __future__ import annotations

import json
from typing import Any

from django.contrib import admin, messages
from django.contrib.auth.models import AnonymousUser
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path
from django.utils.html import format_html, format_html_join

from chat.feedback import feedback_resolve, gold_line
from chat.models import ChatLog, ContentGap, Feedback
from chat.selectors import (
    chat_logs_for,
    content_gaps_for,
    document_feedback_counts,
    feedback_for_editor,
    message_question,
)
from chat.services import content_gaps_resolve
from kb.models import Document
from portal.admin_site import NotFoundOutOfScopeMixin, site


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


class FeedbackProjectFilter(admin.SimpleListFilter):
    """The review queue per project: feedback whose answer searched or cited that project."""

    title = "project"
    parameter_name = "project"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        keys: set[str] = set()
        for row in model_admin.get_queryset(request).values_list("project_keys", flat=True):
            keys.update(row or [])
        return [(key, key) for key in sorted(keys)]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        value = self.value()
        return queryset if value is None else queryset.filter(project_keys__contains=[value])


class FeedbackStateFilter(admin.SimpleListFilter):
    title = "state"
    parameter_name = "state"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("open", "Open"), ("resolved", "Resolved")]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        if self.value() == "open":
            return queryset.filter(resolved_at__isnull=True)
        if self.value() == "resolved":
            return queryset.filter(resolved_at__isnull=False)
        return queryset


@admin.register(Feedback, site=site)
class FeedbackAdmin(NotFoundOutOfScopeMixin, EditorScopedAdmin):
    """The editors' review queue: thumbs-down answers with question, answer, sources, comment."""

    list_display = ("short_question", "rating", "short_comment", "projects", "created_at", "state")
    list_filter = (FeedbackStateFilter, "rating", FeedbackProjectFilter)
    search_fields = ("comment", "message__content")
    ordering = ("resolved_at", "-created_at")
    readonly_fields = (
        "question",
        "answer",
        "cited_sources",
        "rating",
        "comment",
        "user",
        "projects",
        "created_at",
        "resolved_at",
        "resolved_by",
    )
    fieldsets = (
        (None, {"fields": readonly_fields}),
        (
            "Turn into a gold question",
            {
                "description": (
                    "Fill these, save, then use the action “Export as gold questions” on the "
                    "list: the answer harness (chat_benchmark) reads the file it downloads."
                ),
                "fields": ("gold_facts", "gold_slugs", "gold_refuse"),
            },
        ),
    )
    actions = ["mark_resolved", "export_gold"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Feedback]:
        return feedback_for_editor(user=request.user).select_related(
            "message", "user", "resolved_by"
        )

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self.admin_site.has_permission(request)

    @admin.display(description="question")
    def short_question(self, obj: Feedback) -> str:
        return message_question(obj.message)[:100]

    @admin.display(description="question")
    def question(self, obj: Feedback) -> str:
        return message_question(obj.message)

    @admin.display(description="answer")
    def answer(self, obj: Feedback) -> str:
        reason = f" (refused: {obj.message.refusal_reason})" if obj.message.refusal_reason else ""
        return obj.message.content + reason

    @admin.display(description="comment")
    def short_comment(self, obj: Feedback) -> str:
        return obj.comment[:80]

    @admin.display(description="projects")
    def projects(self, obj: Feedback) -> str:
        return ", ".join(obj.project_keys)

    @admin.display(description="state")
    def state(self, obj: Feedback) -> str:
        return "resolved" if obj.resolved_at else "open"

    @admin.display(description="cited sources")
    def cited_sources(self, obj: Feedback) -> str:
        # Only sources the editor can see are named (the one visibility rule).
        visible = set(
            Document.objects.visible_to(getattr(obj, "viewer", None) or AnonymousUser())
            .filter(pk__in=obj.document_ids)
            .values_list("pk", flat=True)
        )
        items = [
            format_html("<li>[{}] {} <code>{}</code></li>", c["n"], c["title"], c["slug"])
            for c in obj.message.citations or []
            if c.get("document_id") in visible
        ]
        if not items:
            return "(none)"
        return format_html("<ul>{}</ul>", format_html_join("", "{}", ((i,) for i in items)))

    def get_object(self, request: HttpRequest, object_id: str, from_field: str | None = None):
        obj = super().get_object(request, object_id, from_field)
        obj.viewer = request.user  # who reads the page decides which sources are named
        return obj

    def changelist_view(self, request: HttpRequest, extra_context: dict | None = None) -> Any:
        if request.method == "GET" and not request.GET:
            # The queue opens on what needs doing: open thumbs-down feedback.
            return HttpResponseRedirect("?state=open&rating__exact=down")
        return super().changelist_view(request, extra_context)

    @admin.action(description="Mark selected feedback resolved")
    def mark_resolved(self, request: HttpRequest, queryset: QuerySet[Feedback]) -> None:
        count = feedback_resolve(feedback=queryset, by=request.user)
        self.message_user(request, f"{count} feedback item(s) marked resolved.", messages.SUCCESS)

    @admin.action(description="Export as gold questions (JSONL for the answer harness)")
    def export_gold(self, request: HttpRequest, queryset: QuerySet[Feedback]) -> HttpResponse:
        lines = [json.dumps(gold_line(row), ensure_ascii=False) for row in queryset]
        response = HttpResponse("\n".join(lines) + "\n", content_type="application/x-ndjson")
        response["Content-Disposition"] = 'attachment; filename="gold-from-feedback.jsonl"'
        return response

    def get_urls(self) -> list:
        return [
            path(
                "documents/",
                self.admin_site.admin_view(self.documents_view),
                name="chat_feedback_documents",
            ),
            *super().get_urls(),
        ]

    def documents_view(self, request: HttpRequest) -> HttpResponse:
        """Feedback counts per document, most thumbs-down first: documents that mislead."""
        context = {
            **self.admin_site.each_context(request),
            "title": "Documents by answer feedback",
            "rows": document_feedback_counts(user=request.user),
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "admin/chat/feedback/documents.html", context)
