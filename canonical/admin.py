"""The editors' console: canonical records and their history (access is in portal.access).

Editors are not Django staff and hold no model permissions, so every permission here is
decided by project roles (`Document.objects.editable_by(user)`), never by django.contrib.auth
permissions. Out-of-scope objects are 404s, like everywhere else.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.core.exceptions import PermissionDenied
from django.db.models import Q, QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html
from django.views.decorators.http import require_GET, require_POST

from canonical import selectors, services
from canonical.models import CanonicalRecord, RecordChange
from canonical.transitions import CurationError, change_errors, check_reason
from kb.curation import AuditContext, ChangeSource
from kb.drift import citing_count
from kb.models import Document, Edge, EdgeType
from kb.selectors import document_version_list, document_versions_compare
from portal.access.models import Project
from portal.admin_site import NotFoundOutOfScopeMixin, ReadOnlyAdminMixin, site

CURATABLE_EDGE_TYPES = [
    (value, label)
    for value, label in EdgeType.choices
    if value not in {EdgeType.SUPERSEDES, EdgeType.INVALIDATED_BY}
]


def _by(request: HttpRequest, reason: str = "") -> AuditContext:
    """The audit context of a change made in the console."""
    return AuditContext(actor=request.user, source=ChangeSource.ADMIN, reason=reason)


# --- Canonical records -------------------------------------------------------------------


BULK_LABELS = {
    "accept_records": "Accept",
    "deprecate_records": "Deprecate",
    "archive_records": "Archive",
    "restore_records": "Restore",
}
WORKFLOW_FIELDS = ("canonical_type", "canonical_status", "retrieval_priority")


class RecordFormMixin:
    """Validation through the workflow rules (canonical.transitions), before anything is saved."""

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()  # type: ignore[misc]
        instance = self.instance  # type: ignore[attr-defined]
        changes = {
            name: cleaned.get(name)
            for name in WORKFLOW_FIELDS
            if name in self.changed_data  # type: ignore[attr-defined]
        }
        errors = change_errors(
            canonical_type=instance.canonical_type,
            canonical_status=instance.canonical_status,
            changes=changes,
            reason=cleaned.get("reason") or "",
        )
        for field, error in errors.items():
            if field in self.fields:  # type: ignore[attr-defined]
                self.add_error(field, str(error))  # type: ignore[attr-defined]
            else:
                self.add_error(None, str(error))  # type: ignore[attr-defined]
        return cleaned


class RecordChangeListForm(RecordFormMixin, forms.ModelForm):
    class Meta:
        model = CanonicalRecord
        fields = ["canonical_status", "retrieval_priority"]


RECORD_FIELDS = [
    "title",
    "summary",
    "tags",
    "owners",
    "canonical_type",
    "canonical_status",
    "retrieval_priority",
]


class RecordForm(RecordFormMixin, forms.ModelForm):
    reason = forms.CharField(
        required=False,  # required with a status change: the workflow rule says so (clean)
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 2, "cols": 60}),
        help_text="Why you changed this record; kept in its history. Required to change the status.",
    )

    class Meta:
        model = CanonicalRecord
        fields = RECORD_FIELDS


class SupersedeForm(forms.Form):
    successor = forms.ModelChoiceField(queryset=Document.objects.none(), empty_label=None)
    reason = forms.CharField(
        required=False, max_length=2000, widget=forms.Textarea(attrs={"rows": 3, "cols": 60})
    )

    def clean_reason(self) -> str:
        reason = self.cleaned_data.get("reason") or ""
        try:
            check_reason(reason)
        except CurationError as exc:
            raise forms.ValidationError(str(exc)) from exc
        return reason

    def __init__(self, *args: Any, candidates: QuerySet[Document], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        successor = cast(forms.ModelChoiceField, self.fields["successor"])
        successor.queryset = candidates
        successor.label_from_instance = lambda obj: (  # type: ignore[method-assign]
            f"{obj.title} ({obj.slug}, {obj.canonical_status or 'no status'})"
        )


class BulkStatusForm(forms.Form):
    """The confirmation page of a bulk status change: why (the workflow requires a reason)."""

    reason = forms.CharField(
        required=False, max_length=2000, widget=forms.Textarea(attrs={"rows": 3, "cols": 60})
    )
    clean_reason = SupersedeForm.clean_reason


class EdgeAddForm(forms.Form):
    edge_type = forms.ChoiceField(choices=CURATABLE_EDGE_TYPES)
    target = forms.ModelChoiceField(queryset=Document.objects.none())
    reason = forms.CharField(required=False, max_length=2000)

    def __init__(self, *args: Any, candidates: QuerySet[Document], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        target = cast(forms.ModelChoiceField, self.fields["target"])
        target.queryset = candidates
        target.label_from_instance = lambda obj: f"{obj.title} ({obj.slug})"  # type: ignore[method-assign]


class ProjectFilter(admin.SimpleListFilter):
    """Projects the user curates (never lists projects they cannot see)."""

    title = "project"
    parameter_name = "project"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        keys = Project.objects.editable_by(request.user).order_by("key")
        return [(key, key) for key in keys.values_list("key", flat=True)]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        if self.value():
            return queryset.filter(project__key=self.value())
        return queryset


class ReviewDueFilter(admin.SimpleListFilter):
    """Stale knowledge: accepted records nobody has curated for a while (a setting)."""

    title = "review"
    parameter_name = "review"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        months = settings.CURATION_STALE_AFTER_MONTHS
        return [("due", f"Accepted, not reviewed for {months}+ months")]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        if self.value() == "due":
            return selectors.records_review_due(
                queryset, months=settings.CURATION_STALE_AFTER_MONTHS
            )
        return queryset


class CurationPermissionsMixin:
    """Role-based permissions: editors/admins of the record's project, and superusers."""

    admin_site: admin.AdminSite

    def _may_curate(self, request: HttpRequest, obj: Document | None = None) -> bool:
        if obj is None:
            return self.admin_site.has_permission(request)
        document_id = getattr(obj, "document_id", None) or obj.pk
        return Document.objects.editable_by(request.user).filter(pk=document_id).exists()

    def has_module_permission(self, request: HttpRequest) -> bool:
        return self._may_curate(request)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self._may_curate(request, obj)


@admin.register(CanonicalRecord, site=site)
class CanonicalRecordAdmin(NotFoundOutOfScopeMixin, CurationPermissionsMixin, admin.ModelAdmin):
    form = RecordForm
    change_form_template = "admin/canonical/canonicalrecord/change_form.html"
    change_list_template = "admin/canonical/canonicalrecord/change_list.html"
    list_display = [
        "title",
        "slug",
        "canonical_type",
        "canonical_status",
        "retrieval_priority",
        "project",
        "updated",
    ]
    list_display_links = ["title"]
    # Status changes need a reason, which an inline list edit cannot give: the record page
    # and the bulk actions (with their confirmation page) ask for one.
    list_editable = ["retrieval_priority"]
    list_filter = [
        "canonical_type",
        "canonical_status",
        ProjectFilter,
        ReviewDueFilter,
        "evidence_tier",
    ]
    list_select_related = ["project"]
    search_fields = ["title", "slug"]
    ordering = ["project__key", "slug"]
    list_per_page = 50
    readonly_fields = [
        "project",
        "slug",
        "doc_id",
        "source_path",
        "source_type",
        "evidence_tier",
        "generation_source",
        "created_at",
        "updated_at",
    ]
    fieldsets = [
        (None, {"fields": ["title", "project", "slug", "summary", "tags", "owners"]}),
        (
            "Curation",
            {
                "fields": [
                    "canonical_type",
                    "canonical_status",
                    "retrieval_priority",
                    "reason",
                    "evidence_tier",
                    "generation_source",
                ]
            },
        ),
        (
            "Source",
            {
                "classes": ["collapse"],
                "fields": ["doc_id", "source_path", "source_type", "created_at", "updated_at"],
            },
        ),
    ]
    actions = [
        "accept_records",
        "deprecate_records",
        "archive_records",
        "supersede_records",
        "restore_records",
        "promote_records",
    ]

    @admin.display(description="updated", ordering="updated_at")
    def updated(self, record: Document) -> str:
        return timezone.localtime(record.updated_at).strftime("%Y-%m-%d %H:%M")

    # Permissions: role based (editors are not staff and have no model permissions).
    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self._may_curate(request, obj)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # records are created by ingestion

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # soft delete goes through the documents API

    def get_queryset(self, request: HttpRequest) -> QuerySet[Document]:
        return CanonicalRecord.objects.editable_by(request.user).select_related("project")

    def get_changelist_form(self, request: HttpRequest, **kwargs: Any) -> type[forms.ModelForm]:
        return RecordChangeListForm

    # Saving: every change goes through the services, which audit it.
    def save_model(
        self, request: HttpRequest, obj: Document, form: forms.ModelForm, change: bool
    ) -> None:
        data = form.cleaned_data
        changes = {name: data[name] for name in form.changed_data if name in RECORD_FIELDS}
        services.record_apply_changes(
            document=Document.objects.get(pk=obj.pk),
            changes=changes,
            by=_by(request, data.get("reason", "")),
        )
        # The admin's own log and redirect read `obj`; give it the saved values.
        obj.refresh_from_db()

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        return None  # no many-to-many or inlines: nothing else to save

    # Bulk actions.
    def _bulk(
        self,
        request: HttpRequest,
        queryset: QuerySet[Document],
        service: Callable[..., Document],
        verb: str,
        reason: str = "",
    ) -> None:
        done, failed = 0, []
        for document in queryset:
            try:
                service(document=document, by=_by(request, reason))
            except CurationError as exc:
                failed.append(f"{document.slug}: {exc}")
            else:
                done += 1
        if done:
            self.message_user(request, f"{verb.capitalize()} {done} record(s).", messages.SUCCESS)
        for failure in failed:
            self.message_user(request, f"Not {verb}: {failure}", messages.WARNING)

    def _bulk_confirmed(
        self,
        request: HttpRequest,
        queryset: QuerySet[Document],
        service: Callable[..., Document],
        *,
        action: str,
        verb: str,
    ) -> HttpResponse | None:
        """A status change of many records: a confirmation page with the reason, then apply."""
        records = list(queryset.order_by("project__key", "slug"))
        if "apply" in request.POST:
            form = BulkStatusForm(request.POST)
            if form.is_valid():
                self._bulk(request, queryset, service, verb, reason=form.cleaned_data["reason"])
                return None
        else:
            form = BulkStatusForm()
        context = {
            **self.admin_site.each_context(request),
            "title": f"{BULK_LABELS[action]} {len(records)} record(s)?",
            "verb": verb,
            "label": BULK_LABELS[action].lower(),
            "action": action,
            "opts": self.model._meta,
            "records": records,
            "citing": citing_count([doc.pk for doc in records]),
            "form": form,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/canonical/bulk_confirm.html", context)

    @admin.action(description="Accept selected records…", permissions=["change"])
    def accept_records(
        self, request: HttpRequest, queryset: QuerySet[Document]
    ) -> HttpResponse | None:
        return self._bulk_confirmed(
            request, queryset, services.record_accept, action="accept_records", verb="accepted"
        )

    @admin.action(description="Deprecate selected records…", permissions=["change"])
    def deprecate_records(
        self, request: HttpRequest, queryset: QuerySet[Document]
    ) -> HttpResponse | None:
        return self._bulk_confirmed(
            request,
            queryset,
            services.record_deprecate,
            action="deprecate_records",
            verb="deprecated",
        )

    @admin.action(description="Archive selected records…", permissions=["change"])
    def archive_records(
        self, request: HttpRequest, queryset: QuerySet[Document]
    ) -> HttpResponse | None:
        return self._bulk_confirmed(
            request, queryset, services.record_archive, action="archive_records", verb="archived"
        )

    @admin.action(description="Restore selected records…", permissions=["change"])
    def restore_records(
        self, request: HttpRequest, queryset: QuerySet[Document]
    ) -> HttpResponse | None:
        return self._bulk_confirmed(
            request, queryset, services.record_restore, action="restore_records", verb="restored"
        )

    @admin.action(description="Promote selected auto records to human", permissions=["change"])
    def promote_records(self, request: HttpRequest, queryset: QuerySet[Document]) -> None:
        self._bulk(request, queryset, services.record_promote, "promoted")

    @admin.action(description="Supersede selected records…", permissions=["change"])
    def supersede_records(
        self, request: HttpRequest, queryset: QuerySet[Document]
    ) -> HttpResponse | None:
        records = list(queryset.order_by("slug"))
        if len({doc.project_id for doc in records}) != 1:
            self.message_user(
                request, "Supersede records of one project at a time.", messages.ERROR
            )
            return None
        candidates = selectors.successor_candidates(user=request.user, documents=records)
        if "apply" in request.POST:
            form = SupersedeForm(request.POST, candidates=candidates)
            if form.is_valid():
                successor = form.cleaned_data["successor"]
                reason = form.cleaned_data["reason"]
                done = 0
                for document in records:
                    try:
                        services.record_supersede(
                            old=document,
                            new=successor,
                            by=_by(request, reason),
                        )
                    except CurationError as exc:
                        self.message_user(
                            request, f"Not superseded: {document.slug}: {exc}", messages.WARNING
                        )
                    else:
                        done += 1
                if done:
                    self.message_user(
                        request,
                        f"Superseded {done} record(s) by {successor.slug}.",
                        messages.SUCCESS,
                    )
                return None
        else:
            form = SupersedeForm(candidates=candidates)
        context = {
            **self.admin_site.each_context(request),
            "title": "Supersede records",
            "opts": self.model._meta,
            "records": records,
            "citing": citing_count([doc.pk for doc in records]),
            "form": form,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            "has_candidates": candidates.exists(),
        }
        return TemplateResponse(request, "admin/canonical/supersede.html", context)

    # The record page: content, edges, history and the neighbourhood graph.
    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        document = self.get_object(request, object_id)
        content, content_html = selectors.record_content_html(document=document)
        edges = selectors.record_edges(user=request.user, document=document)
        candidates = (
            Document.objects.visible_to(request.user)
            .filter(project_id=document.project_id)
            .exclude(pk=document.pk)
            .order_by("title")
        )
        context = {
            **(extra_context or {}),
            "record_content": content,
            "record_content_html": content_html,
            "record_edges_out": [row for row in edges if row.direction == "out"],
            "record_edges_in": [row for row in edges if row.direction == "in"],
            "record_graph_svg": selectors.record_neighbourhood_svg(document=document, edges=edges),
            "record_history": selectors.record_history(user=request.user, document=document)[:200],
            "edge_add_form": EdgeAddForm(candidates=candidates),
            "record_readers": selectors.record_readers(document=document),
            "versions": document_version_list(user=request.user, document_id=document.pk)[:50],
            "versions_url": reverse("admin:canonical_canonicalrecord_versions", args=[document.pk]),
        }
        return super().change_view(request, object_id, form_url, context)

    def get_urls(self) -> list:
        wrap = self.admin_site.admin_view
        return [
            path(
                "<path:object_id>/edges/add/",
                wrap(require_POST(self.edge_add_view)),
                name="canonical_canonicalrecord_edge_add",
            ),
            path(
                "<path:object_id>/edges/<int:edge_id>/remove/",
                wrap(require_POST(self.edge_remove_view)),
                name="canonical_canonicalrecord_edge_remove",
            ),
            path(
                "<path:object_id>/versions/",
                wrap(require_GET(self.versions_view)),
                name="canonical_canonicalrecord_versions",
            ),
            path(
                "<path:object_id>/versions/<int:number>/restore/",
                wrap(require_POST(self.version_restore_view)),
                name="canonical_canonicalrecord_version_restore",
            ),
            *super().get_urls(),
        ]

    def _record_page(self, document: Document) -> HttpResponseRedirect:
        url = reverse("admin:canonical_canonicalrecord_change", args=[document.pk])
        return HttpResponseRedirect(url + "#record-edges")

    def edge_add_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        document = self.get_object(request, object_id)
        candidates = Document.objects.visible_to(request.user).filter(
            project_id=document.project_id
        )
        form = EdgeAddForm(request.POST, candidates=candidates)
        if not form.is_valid():
            errors = "; ".join(f"{k}: {', '.join(map(str, v))}" for k, v in form.errors.items())
            self.message_user(request, f"Edge not added: {errors}", messages.ERROR)
            return self._record_page(document)
        try:
            services.record_edge_add(
                document=document,
                target=form.cleaned_data["target"],
                edge_type=form.cleaned_data["edge_type"],
                by=_by(request, form.cleaned_data["reason"]),
            )
        except CurationError as exc:
            self.message_user(request, f"Edge not added: {exc}", messages.ERROR)
        else:
            self.message_user(request, "Edge added.", messages.SUCCESS)
        return self._record_page(document)

    def _versions_page(
        self,
        request: HttpRequest,
        document: Document,
        *,
        a: str | None,
        b: str | None,
        error: str = "",
        reason: str = "",
    ) -> HttpResponse:
        """The record's versions: history, the diff of `a` to `b`, the restore form for `a`."""
        compare = document_versions_compare(user=request.user, document=document, a=a, b=b)
        error = error or compare.error
        status = 400 if error else 200
        context = {
            **self.admin_site.each_context(request),
            "title": f"Versions of {document.title}",
            "opts": self.model._meta,
            "original": document,
            "versions": compare.versions,
            "numbers": compare.numbers,
            "diff": compare.diff,
            "error": error,
            "reason": reason,
            "versions_url": reverse("admin:canonical_canonicalrecord_versions", args=[document.pk]),
        }
        return TemplateResponse(
            request, "admin/canonical/canonicalrecord/versions.html", context, status=status
        )

    def versions_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        document = self.get_object(request, object_id)
        return self._versions_page(
            request, document, a=request.GET.get("a"), b=request.GET.get("b")
        )

    def version_restore_view(
        self, request: HttpRequest, object_id: str, number: int
    ) -> HttpResponse:
        document = self.get_object(request, object_id)
        reason = request.POST.get("reason", "")
        try:
            services.record_version_restore(
                document=document, number=number, by=_by(request, reason)
            )
        except CurationError as exc:
            return self._versions_page(
                request, document, a=str(number), b=None, error=str(exc), reason=reason
            )
        self.message_user(
            request,
            f"Version {number} restored: it is now version {document.current_version}.",
            messages.SUCCESS,
        )
        url = reverse("admin:canonical_canonicalrecord_versions", args=[document.pk])
        return HttpResponseRedirect(url)

    def edge_remove_view(self, request: HttpRequest, object_id: str, edge_id: int) -> HttpResponse:
        document = self.get_object(request, object_id)
        edge = (
            Edge.objects.filter(pk=edge_id)
            .filter(Q(from_document=document) | Q(to_document=document))
            .select_related("from_document")
            .first()
        )
        if edge is None:
            raise Http404
        if not Document.objects.editable_by(request.user).filter(pk=edge.from_document_id).exists():
            raise PermissionDenied
        if edge.edge_type in {EdgeType.SUPERSEDES, EdgeType.INVALIDATED_BY}:
            self.message_user(
                request,
                "Restore the superseded record to remove its successor link.",
                messages.ERROR,
            )
            return self._record_page(document)
        services.record_edge_remove(edge=edge, by=_by(request))
        self.message_user(request, "Edge removed.", messages.SUCCESS)
        return self._record_page(document)


@admin.register(RecordChange, site=site)
class RecordChangeAdmin(
    ReadOnlyAdminMixin, NotFoundOutOfScopeMixin, CurationPermissionsMixin, admin.ModelAdmin
):
    """The audit trail, read-only."""

    list_display = [
        "at",
        "record",
        "field",
        "from_value",
        "to_value",
        "reason",
        "actor_name",
        "source",
    ]
    list_filter = ["field", "source"]
    search_fields = ["document__slug", "document__title", "actor_name", "reason"]
    list_select_related = ["document"]
    date_hierarchy = "at"

    def get_queryset(self, request: HttpRequest) -> QuerySet[RecordChange]:
        return RecordChange.objects.filter(
            document__in=Document.objects.editable_by(request.user)
        ).select_related("document")

    @admin.display(description="record", ordering="document__slug")
    def record(self, change: RecordChange) -> str:
        url = reverse("admin:canonical_canonicalrecord_change", args=[change.document_id])
        return format_html('<a href="{}">{}</a>', url, change.document.slug)
