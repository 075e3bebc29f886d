"""Template context of every page that chat adds: the notification bell's unread count."""

from __future__ import annotations

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from chat.notifications import notification_unread_count


def notifications(request: HttpRequest) -> dict[str, object]:
    """The signed-in user's unread notifications, counted only when a page shows the bell."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {"unread_notifications": SimpleLazyObject(lambda: notification_unread_count(user=user))}
