"""Reads of the tenant's sign-in settings."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import QuerySet

from portal.access.models import AnyUser
from portal.access.tokens import api_key_hash
from portal.identity.models import IdentityProvider, ScimGroup, ScimToken
from portal.identity.oidc import ClientSettings
from portal.identity.scim import not_found
from portal.secrets import decrypt


@dataclass(frozen=True, kw_only=True)
class SignInOptions:
    """What the sign-in page offers: the provider's button (its name) and/or the password form."""

    provider_name: str | None
    passwords_allowed: bool


def provider_get() -> IdentityProvider | None:
    """The tenant's identity provider, enabled or not; None when it has none."""
    return IdentityProvider.objects.first()


def provider_enabled() -> IdentityProvider | None:
    return IdentityProvider.objects.filter(enabled=True).first()


def client_settings(provider: IdentityProvider) -> ClientSettings:
    """The provider's client settings with the secret decrypted (SecretUnreadable otherwise)."""
    return ClientSettings(
        issuer=provider.issuer,
        client_id=provider.client_id,
        client_secret=decrypt(provider.client_secret_encrypted),
    )


def sign_in_options() -> SignInOptions:
    provider = provider_enabled()
    if provider is None:
        return SignInOptions(provider_name=None, passwords_allowed=True)
    return SignInOptions(provider_name=provider.name, passwords_allowed=provider.passwords_allowed)


def password_sign_in_allowed(user: AnyUser) -> bool:
    """The one rule of password sign-in: allowed unless the tenant's enabled provider turns
    passwords off; superusers keep theirs (to repair a broken provider setting)."""
    return sign_in_options().passwords_allowed or bool(user.is_superuser)


def scim_token_find(secret: str) -> ScimToken | None:
    """The tenant's SCIM token whose secret this is, None for any other string."""
    return ScimToken.objects.filter(token_hash=api_key_hash(secret)).first()


def scim_users(*, field: str | None = None, value: str = "") -> QuerySet[Any]:
    """The tenant's users as SCIM lists them, optionally where `field` equals `value`
    (case-insensitively, as SCIM compares userName and emails)."""
    users = get_user_model().objects.order_by("pk")
    if field:
        users = users.filter(**{f"{field}__iexact": value})
    return users


def scim_user_get(user_id: str) -> Any:
    """The user with this SCIM id; ScimError 404 otherwise."""
    user = get_user_model().objects.filter(pk=int(user_id)).first() if user_id.isdigit() else None
    if user is None:
        raise not_found()
    return user


def scim_groups(*, field: str | None = None, value: str = "") -> QuerySet[ScimGroup]:
    groups = ScimGroup.objects.prefetch_related("members").order_by("pk")
    if field:
        groups = groups.filter(**{field: value})
    return groups


def scim_group_get(group_id: str) -> ScimGroup:
    group = scim_groups().filter(pk=int(group_id)).first() if group_id.isdigit() else None
    if group is None:
        raise not_found()
    return group
