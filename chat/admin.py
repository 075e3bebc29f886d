"""Editors' console entries: content gaps to write next, the read-only chat log, answer
feedback, conflicts between documents to resolve, and the changes readers' thumbs-down
propose."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.views.decorators.http import require_POST

from chat.conflicts.selectors import conflict_resolutions, conflicts_for
from chat.conflicts.services import (
    REASON_MAX_CHARS,
    ConflictError,
    conflict_archive_other,
    conflict_deprecate_other,
    conflict_dismiss,
)
from chat.feedback import COMMENT_MAX_CHARS, feedback_resolve, feedback_resolve_one, gold_line
from chat.health import health_projects, health_report
from chat.models import (
    ChatLog,
    Conflict,
    ConflictState,
    ContentGap,
    Feedback,
    FeedbackReason,
    HealthCheck,
    Proposal,
    ProposalState,
)
from chat.proposals.selectors import proposal_answer_for, proposals_for
from chat.proposals.services import REASON_MAX_CHARS as PROPOSAL_REASON_MAX_CHARS
from chat.proposals.services import ProposalError, proposal_accept, proposal_reject
from chat.selectors import (
    chat_logs_for,
    content_gaps_for,
    document_feedback_counts,
    feedback_conversation,
    feedback_for_editor,
    message_question,
)
from chat.services import ChatInputError, content_gaps_resolve
from kb.models import Document
from portal.access.models import Project
from portal.admin_site import NotFoundOutOfScopeMixin, site
from portal.tenants.selectors import current_schema


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


class FeedbackReasonFilter(admin.SimpleListFilter):
    title = "reason"
    parameter_name = "reason"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return list(FeedbackReason.choices)

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        value = self.value()
        return queryset if value is None else queryset.filter(reasons__contains=[value])


@admin.register(Feedback, site=site)
class FeedbackAdmin(NotFoundOutOfScopeMixin, EditorScopedAdmin):
    """The editors' review queue: thumbs-down answers with their reasons and comment; an item's
    page shows the conversation up to the rated answer and resolves it with a note."""

    list_display = (
        "short_question",
        "rating",
        "reason_list",
        "short_comment",
        "projects",
        "created_at",
        "state",
    )
    list_filter = (FeedbackStateFilter, "rating", FeedbackReasonFilter, FeedbackProjectFilter)
    search_fields = ("comment", "message__content")
    ordering = ("resolved_at", "-created_at")
    # The conversation, the reader's verdict and the resolution are drawn by the page's
    # template (admin/chat/feedback/change_form.html); the form keeps the rest.
    readonly_fields = ("user", "projects", "created_at", "updated_at")
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

    @admin.display(description="reasons")
    def reason_list(self, obj: Feedback) -> str:
        return ", ".join(obj.reason_labels)

    @admin.display(description="comment")
    def short_comment(self, obj: Feedback) -> str:
        return obj.comment[:80]

    @admin.display(description="projects")
    def projects(self, obj: Feedback) -> str:
        return ", ".join(obj.project_keys)

    @admin.display(description="state")
    def state(self, obj: Feedback) -> str:
        return "resolved" if obj.resolved_at else "open"

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        feedback = self.get_object(request, unquote(object_id))
        context = {
            **(extra_context or {}),
            # who reads the page decides which turns and sources are shown
            "feedback_conversation": feedback_conversation(feedback=feedback, user=request.user),
            # the changes it proposes, those of projects this editor edits
            "feedback_proposals": (
                proposals_for(user=request.user).filter(feedback=feedback).order_by("pk")
                if feedback
                else []
            ),
            "note_max_chars": COMMENT_MAX_CHARS,
        }
        return super().change_view(request, object_id, form_url, context)

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
            path(
                "<path:object_id>/resolve/",
                self.admin_site.admin_view(require_POST(self.resolve_view)),
                name="chat_feedback_resolve",
            ),
            *super().get_urls(),
        ]

    def resolve_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """Resolve one item from its page, with the editor's note; back to the page."""
        feedback = self.get_object(request, unquote(object_id))  # out of scope: 404
        if not self.has_change_permission(request, feedback):
            raise PermissionDenied
        try:
            feedback_resolve_one(
                feedback=feedback, by=request.user, note=request.POST.get("note", "")
            )
        except ChatInputError as exc:
            errors = " ".join(" ".join(messages_) for messages_ in exc.errors.values())
            self.message_user(request, f"Not resolved: {errors}", messages.ERROR)
        else:
            self.message_user(request, "Feedback resolved.", messages.SUCCESS)
        return HttpResponseRedirect(reverse("admin:chat_feedback_change", args=[feedback.pk]))

    def documents_view(self, request: HttpRequest) -> HttpResponse:
        """Feedback counts per document, most thumbs-down first: documents that mislead."""
        context = {
            **self.admin_site.each_context(request),
            "title": "Documents by answer feedback",
            "rows": document_feedback_counts(user=request.user),
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "admin/chat/feedback/documents.html", context)


def state_filter(choices: Any) -> type[admin.SimpleListFilter]:
    """A list filter on a decision queue's `state` field, with the model's states."""

    class StateFilter(admin.SimpleListFilter):
        title = "state"
        parameter_name = "state"

        def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
            return list(choices)

        def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
            value = self.value()
            return queryset if value is None else queryset.filter(state=value)

    return StateFilter


class DecisionAdmin(NotFoundOutOfScopeMixin, EditorScopedAdmin):
    """A queue of things an editor decides (conflicts, proposals): the list opens on the open
    ones; an item's page is read-only but for its one-click decisions, posted to
    `<id>/<decide_path>/` (admin:chat_<model>_<decide_path>), which `decide` carries out
    through the services before going back to the page with what happened."""

    decide_path = "decide"
    page_title = ""

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self.admin_site.has_permission(request)

    def changelist_view(self, request: HttpRequest, extra_context: dict | None = None) -> Any:
        if request.method == "GET" and not request.GET:
            return HttpResponseRedirect("?state=open")  # the list opens on what needs doing
        return super().changelist_view(request, extra_context)

    def page_context(self, request: HttpRequest, obj: Any) -> dict[str, Any]:
        """What the item's page shows besides its fields (obj may be None: not found)."""
        return {}

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        obj = self.get_object(request, unquote(object_id))
        context = {
            **(extra_context or {}),
            "title": self.page_title,
            **self.page_context(request, obj),
            "show_save": False,
            "show_save_and_continue": False,
            "show_save_and_add_another": False,
        }
        return super().change_view(request, object_id, form_url, context)

    def get_urls(self) -> list:
        return [
            path(
                f"<path:object_id>/{self.decide_path}/",
                self.admin_site.admin_view(require_POST(self.decide_view)),
                name=f"chat_{self.model._meta.model_name}_{self.decide_path}",
            ),
            *super().get_urls(),
        ]

    def decide_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        obj = self.get_object(request, unquote(object_id))  # out of scope: 404
        if obj is None or not self.has_change_permission(request, obj):
            raise PermissionDenied
        self.decide(request, obj)
        name = f"admin:chat_{self.model._meta.model_name}_change"
        return HttpResponseRedirect(reverse(name, args=[obj.pk]))

    def decide(self, request: HttpRequest, obj: Any) -> None:
        raise NotImplementedError


# one-click resolutions: the form's `action` -> the service
CONFLICT_RESOLUTIONS: dict[str, tuple[Callable[..., Conflict], str]] = {
    "deprecate": (conflict_deprecate_other, "The other document is deprecated."),
    "archive": (conflict_archive_other, "The other document is archived."),
    "dismiss": (conflict_dismiss, "Conflict dismissed; this pair will not be raised again."),
}


@admin.register(Conflict, site=site)
class ConflictAdmin(DecisionAdmin):
    """Two documents of a project stating different values for the same thing, one of them an
    accepted record: both passages side by side, resolved with one click through the curation
    services (chat.conflicts.services), or dismissed with a reason."""

    list_display = (
        "values",
        "record_side",
        "other_side",
        "project",
        "created_at",
        "state",
    )
    list_filter = (state_filter(ConflictState.choices), "kind")
    search_fields = ("record_passage", "other_passage", "record__title", "other__title")
    ordering = ("-created_at",)
    readonly_fields = ("state", "reason", "resolved_by", "resolved_at")
    fields = readonly_fields
    decide_path = "resolve"
    page_title = "Conflict"

    def get_queryset(self, request: HttpRequest) -> QuerySet[Conflict]:
        return conflicts_for(user=request.user)

    @admin.display(description="values")
    def values(self, obj: Conflict) -> str:
        if obj.kind == "rule":
            return "opposite yes/no rules"
        return f"{obj.record_value} vs {obj.other_value}"

    @admin.display(description="accepted record")
    def record_side(self, obj: Conflict) -> str:
        return f"{obj.record.title}: {obj.record_passage[:90]}"

    @admin.display(description="other document")
    def other_side(self, obj: Conflict) -> str:
        status = obj.other.canonical_status or "uncurated"
        return f"{obj.other.title} ({status}): {obj.other_passage[:90]}"

    def page_context(self, request: HttpRequest, obj: Any) -> dict[str, Any]:
        return {
            "resolutions": conflict_resolutions(conflict=obj) if obj else None,
            "reason_max_chars": REASON_MAX_CHARS,
        }

    def decide(self, request: HttpRequest, obj: Any) -> None:
        """One resolution from the conflict's page."""
        chosen = CONFLICT_RESOLUTIONS.get(request.POST.get("action", ""))
        if chosen is None:
            self.message_user(request, "Choose a resolution.", messages.ERROR)
            return
        service, done = chosen
        try:
            service(conflict=obj, by=request.user, reason=request.POST.get("reason", ""))
        except ConflictError as exc:
            self.message_user(request, f"Not resolved: {exc}", messages.ERROR)
        else:
            self.message_user(request, done, messages.SUCCESS)


@admin.register(Proposal, site=site)
class ProposalAdmin(DecisionAdmin):
    """A change a reader's thumbs-down proposes (chat.proposals), with its evidence; accepted
    with one click through the curation services (audited), or rejected with a reason."""

    list_display = ("change", "target", "short_question", "project", "created_at", "state")
    list_filter = (state_filter(ProposalState.choices), "kind")
    search_fields = ("question", "answer", "document__title")
    ordering = ("-created_at",)
    readonly_fields = ("state", "reason", "decided_by", "decided_at")
    fields = readonly_fields
    page_title = "Proposal"

    def get_queryset(self, request: HttpRequest) -> QuerySet[Proposal]:
        return proposals_for(user=request.user)

    @admin.display(description="change")
    def change(self, obj: Proposal) -> str:
        return obj.get_kind_display()

    @admin.display(description="document")
    def target(self, obj: Proposal) -> str:
        if obj.document is None:
            return "-"
        if obj.successor is not None:
            return f"{obj.document.title} -> {obj.successor.title}"
        return obj.document.title

    @admin.display(description="question")
    def short_question(self, obj: Proposal) -> str:
        return obj.question[:100]

    def page_context(self, request: HttpRequest, obj: Any) -> dict[str, Any]:
        return {
            # the evidence as this editor may read it: cited documents they cannot see stay out
            "cited_documents": (
                Document.objects.visible_to(request.user)
                .filter(pk__in=obj.cited_document_ids)
                .order_by("title")
                if obj
                else []
            ),
            "evidence_answer": proposal_answer_for(user=request.user, proposal=obj) if obj else "",
            "reason_max_chars": PROPOSAL_REASON_MAX_CHARS,
        }

    def decide(self, request: HttpRequest, obj: Any) -> None:
        """Accept or reject from the proposal's page."""
        action = request.POST.get("action", "")
        try:
            if action == "accept":
                proposal_accept(proposal=obj, by=request.user)
                self.message_user(request, "Proposal accepted.", messages.SUCCESS)
            elif action == "reject":
                proposal_reject(
                    proposal=obj, by=request.user, reason=request.POST.get("reason", "")
                )
                self.message_user(request, "Proposal rejected.", messages.SUCCESS)
            else:
                self.message_user(request, "Choose accept or reject.", messages.ERROR)
        except ProposalError as exc:
            self.message_user(request, f"Not done: {exc}", messages.ERROR)


@admin.register(HealthCheck, site=site)
class HealthAdmin(EditorScopedAdmin):
    """Knowledge health per project (chat.health), for the projects an editor edits: the list
    names them, a project's page shows its review-due records, open conflicts and proposals,
    content gaps by how often they were asked, and the last fact check."""

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def changelist_view(self, request: HttpRequest, extra_context: dict | None = None) -> Any:
        projects = list(health_projects(user=request.user))
        checks = {c.project_id: c for c in HealthCheck.objects.filter(project__in=projects)}
        context = {
            **self.admin_site.each_context(request),
            "title": "Knowledge health",
            "rows": [(project, checks.get(project.pk)) for project in projects],
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "admin/chat/healthcheck/index.html", context)

    def get_urls(self) -> list:
        return [
            path(
                "project/<str:key>/",
                self.admin_site.admin_view(self.project_view),
                name="chat_health_project",
            ),
            path(
                "project/<str:key>/check/",
                self.admin_site.admin_view(require_POST(self.check_view)),
                name="chat_health_check",
            ),
            *super().get_urls(),
        ]

    def _project(self, request: HttpRequest, key: str) -> Project:
        project = health_projects(user=request.user).filter(key=key).first()
        if project is None:
            raise Http404  # another project's health is not shown, nor said to exist
        return project

    def project_view(self, request: HttpRequest, key: str) -> HttpResponse:
        project = self._project(request, key)
        context = {
            **self.admin_site.each_context(request),
            "title": f"Knowledge health: {project.name or project.key}",
            "report": health_report(user=request.user, project=project),
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "admin/chat/healthcheck/project.html", context)

    def check_view(self, request: HttpRequest, key: str) -> HttpResponse:
        """Queue a fresh fact check of the project (the worker runs it)."""
        from chat.tasks import kb_health_task

        project = self._project(request, key)
        kb_health_task.enqueue(schema_name=current_schema(), project_id=project.pk)
        self.message_user(request, "The check is queued; this page shows it once it ran.")
        return HttpResponseRedirect(reverse("admin:chat_health_project", args=[project.key]))
