"""The personal data portal.access holds about a user: profile, memberships, API tokens.

All of it goes with the user row on erasure (the foreign keys cascade).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rest_framework.authtoken.models import Token

from portal.access.models import Membership

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
