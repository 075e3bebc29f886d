"""Reads of the tenant's sign-in settings."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import QuerySet

from portal.access.models import AnyUser
from portal.identity.models import IdentityEvent, IdentityProvider
from portal.identity.oidc import ClientSettings
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


def events_of(user: AnyUser) -> QuerySet[IdentityEvent]:
    """The audit events about `user`, newest first."""
    return IdentityEvent.objects.filter(user_id=user.pk)
