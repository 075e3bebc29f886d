"""The identity tests' providers (real django-oauth-toolkit processes, one per module) and the
tenant settings that point at them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from portal.access.services import project_ensure
from portal.identity.models import GroupRoleMapping, IdentityProvider
from portal.secrets import encrypt
from tests.identity.oidc_provider import Provider, provider_process

ALPHA_CALLBACK = "http://alpha.localhost/login/oidc/callback"
BETA_CALLBACK = "http://beta.localhost/login/oidc/callback"
PASSWORD = "provider-pw-1"
USERS: list[dict[str, Any]] = [
    {
        "username": "ann",
        "password": PASSWORD,
        "email": "ann@acme.test",
        "groups": ["eng", "ops-admins"],
    },
    {"username": "bob", "password": PASSWORD, "email": "bob@acme.test", "groups": ["sales"]},
    {
        "username": "cat",
        "password": PASSWORD,
        "email": "cat@acme.test",
        "groups": ["eng"],
        "verified": False,
    },
]


@pytest.fixture(scope="module")
def provider_a() -> Iterator[Provider]:
    """Alpha's provider, with a second client (another application of the same company)."""
    clients = [
        {
            "client_id": "alpha-client",
            "client_secret": "alpha-secret",
            "redirect_uris": [ALPHA_CALLBACK],
        },
        {
            "client_id": "other-app",
            "client_secret": "other-secret",
            "redirect_uris": [ALPHA_CALLBACK],
        },
    ]
    with provider_process(users=USERS, clients=clients) as provider:
        yield provider


@pytest.fixture(scope="module")
def provider_b() -> Iterator[Provider]:
    """Beta's provider: another issuer with keys of its own."""
    clients = [
        {
            "client_id": "beta-client",
            "client_secret": "beta-secret",
            "redirect_uris": [BETA_CALLBACK, ALPHA_CALLBACK],
        }
    ]
    with provider_process(users=USERS, clients=clients) as provider:
        yield provider


def configure(
    provider: Provider, *, client_id: str = "alpha-client", secret: str = "alpha-secret", **options
):
    """The current tenant's provider settings, with eng -> docs:reader, ops-admins -> ops:admin."""
    settings_row = IdentityProvider.objects.create(
        name="Acme SSO",
        issuer=options.pop("issuer", provider.issuer),
        client_id=client_id,
        client_secret_encrypted=encrypt(secret),
        allow_user_creation=options.pop("allow_user_creation", True),
        passwords_allowed=options.pop("passwords_allowed", True),
        **options,
    )
    docs, ops = project_ensure(key="docs"), project_ensure(key="ops")
    GroupRoleMapping.objects.create(group="eng", project=docs, role="reader")
    GroupRoleMapping.objects.create(group="ops-admins", project=ops, role="admin")
    GroupRoleMapping.objects.create(group="ops-admins", project=docs, role="editor")
    return settings_row
