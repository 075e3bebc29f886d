"""The personal data of enterprise sign-in: the person's link to the identity provider, their
provisioned groups, and the audit of their sign-ins, provisioning and role changes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from portal.identity.models import ExternalIdentity, IdentityEvent, ScimGroup

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def identity_export(user: User) -> dict[str, Any]:
    """The provider subjects the account is linked to, and the provisioned groups it is in."""
    return {
        "links": [
            {
                "issuer": link.issuer,
                "subject": link.subject,
                "linked_at": link.created_at.isoformat(),
                "last_sign_in_at": (
                    link.last_sign_in_at.isoformat() if link.last_sign_in_at else None
                ),
            }
            for link in ExternalIdentity.objects.filter(user=user).order_by("created_at", "id")
        ],
        "groups": list(
            ScimGroup.objects.filter(members=user).values_list("display_name", flat=True)
        ),
    }


def identity_events_export(user: User) -> list[dict[str, Any]]:
    """Sign-ins, failed sign-ins (under the account's name), provisioning and role changes."""
    events = IdentityEvent.objects.filter(user=user) | IdentityEvent.objects.filter(
        user__isnull=True, username=user.get_username()
    )
    return [
        {
            "at": event.at.isoformat(),
            "event": event.get_kind_display(),
            "through": event.get_source_display(),
            "detail": event.detail,
            "address": event.address,
        }
        for event in events.order_by("at", "id")
    ]


def identity_events_erase(user: User) -> int:
    """Delete the events about the person (the row would otherwise keep their name)."""
    deleted, _ = (
        IdentityEvent.objects.filter(user=user)
        | IdentityEvent.objects.filter(user__isnull=True, username=user.get_username())
    ).delete()
    return deleted
