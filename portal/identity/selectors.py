"""Reads of the tenant's sign-in settings."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Prefetch, QuerySet

from portal.access.models import AnyUser
from portal.access.tokens import api_key_hash
from portal.identity.models import (
    SCIM_ISSUER,
    ExternalIdentity,
    IdentityProvider,
    ScimGroup,
    ScimToken,
)
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
    """The tenant's users as SCIM lists them (each with its externalId link in `scim_links`),
    optionally where `field` equals `value`: case-insensitively, as SCIM compares userName
    and emails; `external_id` exactly (it is case-exact)."""
    users = (
        get_user_model()
        .objects.order_by("pk")
        .prefetch_related(
            Prefetch(
                "external_identities",
                queryset=ExternalIdentity.objects.filter(issuer=SCIM_ISSUER),
                to_attr="scim_links",
            )
        )
    )
    if field == "external_id":
        users = users.filter(
            external_identities__issuer=SCIM_ISSUER, external_identities__subject=value
        )
    elif field:
        users = users.filter(**{f"{field}__iexact": value})
    return users


def scim_external_id(user: Any) -> str | None:
    """The SCIM externalId of a user read through `scim_users` (None when it has none)."""
    links = user.scim_links
    return links[0].subject if links else None


def scim_user_get(user_id: str) -> Any:
    """The user with this SCIM id; ScimError 404 otherwise."""
    user = scim_users().filter(pk=int(user_id)).first() if user_id.isdigit() else None
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
