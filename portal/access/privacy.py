"""The personal data the portal holds about a user: profile, memberships, API tokens and
keys, and the console's log of their admin actions.

All of it goes with the user row on erasure (the foreign keys cascade).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib.admin.models import LogEntry
from rest_framework.authtoken.models import Token

from portal.access.models import ApiKey, Membership
from portal.access.tokens import token_expires_at

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def profile_export(user: User) -> dict[str, Any]:
    """The account itself (never the password hash)."""
    return {
        "id": user.pk,
        "username": user.get_username(),
        "first_name": user.first_name,
        "last_name": user.last_name,
        "email": user.email,
        "is_active": user.is_active,
        "is_superuser": user.is_superuser,
        "date_joined": user.date_joined.isoformat(),
        "last_login": user.last_login.isoformat() if user.last_login else None,
    }


def memberships_export(user: User) -> list[dict[str, Any]]:
    """The user's projects and roles."""
    return [
        {"project_key": key, "project_name": name, "role": role, "since": since.isoformat()}
        for key, name, role, since in Membership.objects.filter(user=user)
        .order_by("project__key")
        .values_list("project__key", "project__name", "role", "created_at")
    ]


def api_tokens_export(user: User) -> list[dict[str, Any]]:
    """That the user has an API token, and since when (never the key itself)."""
    return [
        {"created": created.isoformat()}
        for created in Token.objects.filter(user=user).values_list("created", flat=True)
    ]


def api_keys_export(user: User) -> list[dict[str, Any]]:
    """The user's named API keys: name, first characters, scopes, dates (never the secret)."""
    return [
        {
            "name": key.name,
            "prefix": key.prefix,
            "scopes": list(key.scopes),
            "created": key.created.isoformat(),
            "last_used_at": key.last_used_at.isoformat() if key.last_used_at else None,
            "expires_at": expires_at.isoformat() if (expires_at := token_expires_at(key)) else None,
        }
        for key in ApiKey.objects.filter(user=user).order_by("created", "id")
    ]


def console_actions_export(user: User) -> list[dict[str, Any]]:
    """The console's own log of what the user added, changed or deleted there."""
    return [
        {
            "at": entry.action_time.isoformat(),
            "action": entry.get_action_flag_display(),
            "object": entry.object_repr,
            "model": entry.content_type.model if entry.content_type else "",
            "change": entry.get_change_message(),
        }
        for entry in LogEntry.objects.filter(user=user)
        .select_related("content_type")
        .order_by("action_time", "id")
    ]
