"""The user's account page and their personal data download."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.response import TemplateResponse
from django.utils import timezone
from django.views.decorators.http import require_GET

from portal.access.selectors import project_roles_for
from privacy.retention import retention_periods
from privacy.services import user_data_export


def export_filename(username: str) -> str:
    return f"groundwork-{username}-{timezone.now():%Y%m%d}.json"


@login_required
@require_GET
def account(request: HttpRequest) -> HttpResponse:
    """Profile page: who you are, your projects, and the download of your data."""
    return TemplateResponse(
        request,
        "privacy/account.html",
        {"projects": project_roles_for(user=request.user), "retention": retention_periods()},
    )


@login_required
@require_GET
def account_export(request: HttpRequest) -> HttpResponse:
    """Everything the tenant holds about the signed-in user, as a JSON attachment."""
    response = JsonResponse(
        user_data_export(user=request.user),  # type: ignore[arg-type]  # login_required
        json_dumps_params={"indent": 2, "ensure_ascii": False},
    )
    filename = export_filename(request.user.get_username())
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
