"""Writes on tenants: creating a tenant with its schema and host name."""

from __future__ import annotations

import re

from django.db import transaction
from django_tenants.utils import get_public_schema_name

from portal.tenants.models import Domain, Tenant

SCHEMA_NAME_RE = re.compile(r"^[a-z][a-z0-9_]{1,62}$")
RESERVED_SCHEMAS = {"public", "information_schema", "default"}
HOST_RE = re.compile(
    r"^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$"
)


class TenantError(ValueError):
    """A tenant operation that cannot proceed, with a message an operator can act on."""


def validate_schema_name(schema_name: str) -> None:
    """Raise TenantError unless `schema_name` is a usable, non-reserved schema name."""
    if not SCHEMA_NAME_RE.match(schema_name):
        raise TenantError(
            f"Invalid schema name {schema_name!r}: use 2-63 characters, lowercase letters, "
            "digits and underscores, starting with a letter."
        )
    if schema_name in RESERVED_SCHEMAS or schema_name.startswith("pg_"):
        raise TenantError(f"Schema name {schema_name!r} is reserved.")


def validate_host(host: str) -> None:
    """Raise TenantError unless `host` is a bare host name (no scheme, port or path)."""
    if not HOST_RE.match(host):
        raise TenantError(f"Invalid host name {host!r}: give a bare host such as acme.example.com.")


def public_tenant_ensure(*, domains: list[str]) -> Tenant:
    """Make sure the public schema's tenant row and its host names exist."""
    public_name = get_public_schema_name()
    tenant, _ = Tenant.objects.get_or_create(schema_name=public_name, defaults={"name": "Public"})
    for index, host in enumerate(domains):
        Domain.objects.get_or_create(
            domain=host, defaults={"tenant": tenant, "is_primary": index == 0}
        )
    return tenant


@transaction.atomic
def tenant_create(*, schema_name: str, domain: str, name: str = "") -> Tenant:
    """Create a tenant schema (migrated) and its primary host name."""
    validate_schema_name(schema_name)
    domain = domain.strip().lower()
    validate_host(domain)
    if Tenant.objects.filter(schema_name=schema_name).exists():
        raise TenantError(f"Tenant {schema_name!r} already exists.")
    if Domain.objects.filter(domain=domain).exists():
        raise TenantError(f"Host {domain!r} already belongs to a tenant.")
    tenant = Tenant(schema_name=schema_name, name=name or schema_name)
    tenant.save()  # creates and migrates the schema
    Domain.objects.create(domain=domain, tenant=tenant, is_primary=True)
    return tenant
