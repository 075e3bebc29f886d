"""A document's versions for its editors: the history, the diff of any two, a restore.

Same rules as the API (kb.selectors): a document the user cannot see is a 404, its readers
get a 403 page that says who may.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from canonical.services import record_version_restore
from canonical.transitions import CurationError
from kb.curation import AuditContext, ChangeSource
from kb.models import Document
from kb.selectors import (
    VERSIONS_EDITORS_ONLY,
    document_get_editable,
    document_versions_compare,
)

PAGE = "chat/versions.html"


def _denied(request: HttpRequest, exc: PermissionDenied) -> HttpResponse:
    return TemplateResponse(request, "chat/versions_denied.html", {"message": str(exc)}, status=403)


def versions_context(
    request: HttpRequest, document: Document, *, a: str | None, b: str | None
) -> tuple[dict[str, Any], int]:
    """The versions page's history, the diff of `a` to `b` (kb.versions.diff_pair) or the
    error for a version the document does not have, and the response status."""
    compare = document_versions_compare(user=request.user, document=document, a=a, b=b)
    return {
        "document": document,
        "versions": compare.versions,
        "numbers": compare.numbers,
        "diff": compare.diff,
        "error": compare.error,
        "versions_url": reverse("chat-document-versions", args=[document.pk]),
    }, 400 if compare.error else 200


@login_required
@require_GET
def document_versions(request: HttpRequest, pk: int) -> HttpResponse:
    """The versions page: history, `?a=<n>&b=<m>` diff, and the restore form for `a`."""
    try:
        document = document_get_editable(request.user, pk, denied=VERSIONS_EDITORS_ONLY)
    except PermissionDenied as exc:
        return _denied(request, exc)
    context, status = versions_context(
        request, document, a=request.GET.get("a"), b=request.GET.get("b")
    )
    return TemplateResponse(request, PAGE, context, status=status)


@login_required
@require_POST
def document_version_restore(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """Restore version `number` (a reason is required); back to the versions page."""
    try:
        document = document_get_editable(request.user, pk, denied=VERSIONS_EDITORS_ONLY)
    except PermissionDenied as exc:
        return _denied(request, exc)
    reason = request.POST.get("reason", "")
    try:
        record_version_restore(
            document=document,
            number=number,
            by=AuditContext(actor=request.user, source=ChangeSource.SERVICE, reason=reason),
        )
    except CurationError as exc:
        context, _ = versions_context(request, document, a=str(number), b=None)
        context.update(error=str(exc), reason=reason)
        return TemplateResponse(request, PAGE, context, status=400)
    messages.success(
        request, f"Version {number} restored: it is now version {document.current_version}."
    )
    return HttpResponseRedirect(reverse("chat-document-versions", args=[pk]))
