"""The Sources page of a project (its editors): list with the last sync, add, edit, pause,
run now, delete. Forms post and redirect; run, pause and delete answer htmx with the list."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from rest_framework import serializers

from portal.access.models import Project
from portal.access.selectors import project_first_editable, project_get_editable
from sources.connectors import KINDS
from sources.connectors.base import GlobsField
from sources.models import MAX_INTERVAL_MINUTES, MIN_INTERVAL_MINUTES, Source, SyncState
from sources.selectors import (
    source_get_visible,
    source_list,
    source_secrets_set,
)
from sources.services import (
    SourceError,
    source_create,
    source_delete,
    source_run_now,
    source_settings_clean,
    source_update,
)

PAGE = "sources/page.html"
EDIT_PAGE = "sources/edit.html"
SETTING_PREFIX = "setting-"
DEFAULT_INTERVAL = 60


@dataclass(frozen=True, kw_only=True)
class SettingInput:
    """One setting of a kind as a form input."""

    name: str
    label: str
    help: str
    widget: str  # "text" | "textarea" | "password"
    value: str
    required: bool
    errors: list[str]
    is_set: bool = False  # a secret that holds a value (shown as such, never the value)


@dataclass(frozen=True, kw_only=True)
class SourceRow:
    source: Source
    kind_label: str
    where: str  # the repository's URL or the folder's path
    active: bool  # queued or running: the list refreshes itself


def _rows(sources: list[Source]) -> list[SourceRow]:
    return [
        SourceRow(
            source=source,
            kind_label=KINDS[source.kind].label if source.kind in KINDS else source.kind,
            where=str(source.settings.get("url") or source.settings.get("path") or ""),
            active=source.state in (SyncState.QUEUED, SyncState.RUNNING),
        )
        for source in sources
    ]


@dataclass(frozen=True, kw_only=True)
class KindForm:
    kind: str
    label: str
    inputs: list[SettingInput]
    values: dict[str, Any]  # name and interval_minutes as posted (the form being added)
    errors: dict[str, list[str]]


def _inputs(
    kind: str, values: dict[str, Any], errors: dict[str, list[str]], source: Source | None = None
) -> list[SettingInput]:
    connector_kind = KINDS[kind]
    set_names = source_secrets_set(source) if source is not None else []
    inputs = []
    for name, field in connector_kind.settings_serializer().fields.items():
        secret = name in connector_kind.secret_fields
        value = values.get(name, field.default if field.default is not serializers.empty else "")
        if isinstance(value, list):
            value = "\n".join(value)
        inputs.append(
            SettingInput(
                name=name,
                label=str(field.label or name.replace("_", " ").capitalize()),
                help=str(field.help_text or ""),
                widget="password"
                if secret
                else "textarea"
                if isinstance(field, GlobsField)
                else "text",
                value="" if secret else str(value or ""),
                required=bool(field.required),
                errors=errors.get(f"settings.{name}", []),
                is_set=name in set_names,
            )
        )
    return inputs


def _posted_settings(request: HttpRequest, kind: str) -> dict[str, Any]:
    """The kind's settings from the form; a secret left blank is left out (kept on edit)."""
    names: list[str] = list(KINDS[kind].settings_serializer().fields.keys())
    given = {
        name: request.POST.get(f"{SETTING_PREFIX}{name}", "")
        for name in names
        if f"{SETTING_PREFIX}{name}" in request.POST
    }
    return {
        name: value
        for name, value in given.items()
        if value != "" or name not in KINDS[kind].secret_fields
    }


def _interval(request: HttpRequest) -> tuple[int | None, list[str]]:
    raw = request.POST.get("interval_minutes", "").strip()
    try:
        minutes = int(raw)
    except ValueError:
        return None, ["Give a whole number of minutes."]
    if not MIN_INTERVAL_MINUTES <= minutes <= MAX_INTERVAL_MINUTES:
        return None, [
            f"Between {MIN_INTERVAL_MINUTES} and {MAX_INTERVAL_MINUTES} minutes (a week)."
        ]
    return minutes, []


def _form_errors(
    request: HttpRequest, kind: str, source: Source | None = None
) -> tuple[int | None, dict[str, list[str]]]:
    """The interval, and every error of the form at once (name, settings, interval)."""
    errors: dict[str, list[str]] = {}
    interval, interval_errors = _interval(request)
    if interval_errors:
        errors["interval_minutes"] = interval_errors
    if not request.POST.get("name", "").strip():
        errors["name"] = ["Give the source a name."]
    try:
        source_settings_clean(kind=kind, given=_posted_settings(request, kind), current=source)
    except SourceError as exc:
        errors.update(exc.errors)
    return interval, errors


def _context(
    request: HttpRequest,
    project: Project,
    *,
    adding: str = "",
    values: dict[str, Any] | None = None,
    errors: dict[str, list[str]] | None = None,
) -> dict[str, Any]:
    values = values or {}
    errors = errors or {}
    rows = _rows(source_list(user=request.user, project=project))
    return {
        "project": project,
        "projects": Project.objects.editable_by(request.user).order_by("key"),
        "rows": rows,
        "refreshing": any(row.active for row in rows),
        "kind_forms": [
            KindForm(
                kind=name,
                label=kind.label,
                inputs=_inputs(
                    name, values if adding == name else {}, errors if adding == name else {}
                ),
                values=values if adding == name else {"interval_minutes": DEFAULT_INTERVAL},
                errors=errors if adding == name else {},
            )
            for name, kind in KINDS.items()
        ],
        "adding": adding,
        "min_interval": MIN_INTERVAL_MINUTES,
        "max_interval": MAX_INTERVAL_MINUTES,
    }


def _page_url(project: Project) -> str:
    return reverse("sources-page", args=[project.key])


def _list_or_redirect(request: HttpRequest, project: Project, notice: str) -> HttpResponse:
    if request.htmx:  # type: ignore[attr-defined]  # django-htmx's middleware
        return TemplateResponse(
            request, f"{PAGE}#source-list", {**_context(request, project), "notice": notice}
        )
    messages.success(request, notice)
    return HttpResponseRedirect(_page_url(project))


@login_required
@require_GET
def sources_index(request: HttpRequest) -> HttpResponse:
    """The first project the user edits; 404 for users who edit none."""
    project = project_first_editable(user=request.user)
    return HttpResponseRedirect(_page_url(project))


@login_required
@require_GET
def sources_page(request: HttpRequest, project_key: str) -> HttpResponse:
    project = project_get_editable(user=request.user, key=project_key)
    return TemplateResponse(request, PAGE, _context(request, project))


@login_required
@require_GET
def source_list_fragment(request: HttpRequest, project_key: str) -> HttpResponse:
    """The list alone (the page refreshes it while a sync is queued or running)."""
    project = project_get_editable(user=request.user, key=project_key)
    return TemplateResponse(request, f"{PAGE}#source-list", _context(request, project))


@login_required
@require_POST
def source_add(request: HttpRequest, project_key: str) -> HttpResponse:
    """Add a source of the posted kind and queue its first sync; the form's errors (400)."""
    project = project_get_editable(user=request.user, key=project_key)
    kind = request.POST.get("kind", "")
    if kind not in KINDS:
        raise Http404
    values = {
        "name": request.POST.get("name", "").strip(),
        **_posted_settings(request, kind),
        "interval_minutes": request.POST.get("interval_minutes", ""),
    }
    interval, errors = _form_errors(request, kind)
    if not errors:
        assert interval is not None
        try:
            source = source_create(
                project=project,
                name=values["name"],
                kind=kind,
                settings=_posted_settings(request, kind),
                interval_minutes=interval,
            )
        except SourceError as exc:
            errors = exc.errors
        else:
            messages.success(request, f"Source “{source.name}” added; its first sync is queued.")
            return HttpResponseRedirect(_page_url(project))
    context = _context(request, project, adding=kind, values=values, errors=errors)
    return TemplateResponse(request, PAGE, context, status=400)


@login_required
@require_http_methods(["GET", "POST"])
def source_edit(request: HttpRequest, project_key: str, source_id: int) -> HttpResponse:
    """Edit a source's name, settings (a secret left blank is kept) and schedule."""
    project = project_get_editable(user=request.user, key=project_key)
    source = _source_of(request, project, source_id)
    values: dict[str, Any] = {
        "name": source.name,
        "interval_minutes": source.interval_minutes,
        **source.settings,
    }
    errors: dict[str, list[str]] = {}
    if request.method == "POST":
        given = _posted_settings(request, source.kind)
        values = {
            "name": request.POST.get("name", "").strip(),
            "interval_minutes": request.POST.get("interval_minutes", ""),
            **given,
        }
        interval, errors = _form_errors(request, source.kind, source)
        if not errors:
            assert interval is not None
            try:
                source_update(
                    source=source, name=values["name"], settings=given, interval_minutes=interval
                )
            except SourceError as exc:
                errors = exc.errors
            else:
                messages.success(request, f"Source “{source.name}” saved.")
                return HttpResponseRedirect(_page_url(project))
    context = {
        "project": project,
        "source": source,
        "inputs": _inputs(source.kind, values, errors, source),
        "values": values,
        "errors": errors,
        "min_interval": MIN_INTERVAL_MINUTES,
        "max_interval": MAX_INTERVAL_MINUTES,
    }
    return TemplateResponse(request, EDIT_PAGE, context, status=400 if errors else 200)


def _source_of(request: HttpRequest, project: Project, source_id: int) -> Source:
    source = source_get_visible(request.user, source_id)
    if source.project_id != project.pk:
        raise Http404
    return source


@login_required
@require_POST
def source_run(request: HttpRequest, project_key: str, source_id: int) -> HttpResponse:
    project = project_get_editable(user=request.user, key=project_key)
    source = source_run_now(source=_source_of(request, project, source_id))
    return _list_or_redirect(request, project, f"A sync of “{source.name}” is queued.")


@login_required
@require_POST
def source_pause(request: HttpRequest, project_key: str, source_id: int) -> HttpResponse:
    """Pause the schedule (paused=1) or resume it (paused=0)."""
    project = project_get_editable(user=request.user, key=project_key)
    source = _source_of(request, project, source_id)
    paused = request.POST.get("paused") == "1"
    source_update(source=source, paused=paused)
    verb = "paused" if paused else "resumed"
    return _list_or_redirect(request, project, f"Source “{source.name}” {verb}.")


@login_required
@require_POST
def source_remove(request: HttpRequest, project_key: str, source_id: int) -> HttpResponse:
    project = project_get_editable(user=request.user, key=project_key)
    source = _source_of(request, project, source_id)
    name = source.name
    count = source_delete(source=source)
    return _list_or_redirect(
        request, project, f"Source “{name}” deleted; its {count} documents were removed."
    )
