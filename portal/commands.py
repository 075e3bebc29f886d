"""Helpers every tenant-scoped management command shares (one way to enter a tenant)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import CommandError

from portal.tenants.selectors import tenant_scope
from portal.tenants.services import TenantError


@contextmanager
def command_tenant(schema_name: str) -> Iterator[None]:
    """Run the block in the tenant's schema; an unknown (or the public) schema is a CommandError."""
    try:
        scope = tenant_scope(schema_name)
    except TenantError as exc:
        raise CommandError(str(exc)) from exc
    with scope:
        yield


def acting_user(username: str | None) -> Any:
    """The named user of the tenant, or an unsaved superuser-equivalent (sees every project)."""
    User = get_user_model()
    if username:
        user = User.objects.filter(username=username, is_active=True).first()
        if user is None:
            raise CommandError(f"No active user {username!r} in this tenant.")
        return user
    return User(username="kb-cli", is_superuser=True, is_active=True)
