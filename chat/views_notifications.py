"""The asker's notifications of answer drift: the list, mark one or all read."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from chat.notifications import (
    notification_list,
    notification_mark_read,
    notification_unread_count,
    notifications_mark_all_read,
)

PAGE = "chat/notifications.html"


def _context(request: HttpRequest) -> dict[str, object]:
    return {
        "notifications": notification_list(user=request.user),
        "unread_notifications": notification_unread_count(user=request.user),
    }


@login_required
@require_GET
def notifications_page(request: HttpRequest) -> HttpResponse:
    """Answers whose sources changed since: each with what changed and a one-click re-ask."""
    return TemplateResponse(request, PAGE, _context(request))


def _after_write(request: HttpRequest) -> HttpResponse:
    if getattr(request, "htmx", False):
        return TemplateResponse(request, f"{PAGE}#notifications", _context(request))
    return HttpResponseRedirect(reverse("chat-notifications"))


@login_required
@require_POST
def notification_read(request: HttpRequest, notification_id: int) -> HttpResponse:
    """Mark one of the user's notifications read (another user's: 404)."""
    notification_mark_read(user=request.user, notification_id=notification_id)
    return _after_write(request)


@login_required
@require_POST
def notifications_read_all(request: HttpRequest) -> HttpResponse:
    """Mark all of the user's notifications read."""
    notifications_mark_all_read(user=request.user)
    return _after_write(request)
