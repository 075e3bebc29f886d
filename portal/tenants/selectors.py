"""Reads on tenants."""

from __future__ import annotations

from contextlib import AbstractContextManager

from django.db import connection
from django_tenants.utils import get_public_schema_name, tenant_context

from portal.tenants.models import Tenant
from portal.tenants.services import TenantError


def tenant_get(*, schema_name: str) -> Tenant:
    """The (non-public) tenant with `schema_name`, or TenantError with a hint."""
    tenant = Tenant.objects.filter(schema_name=schema_name).first()
    if tenant is None or schema_name == get_public_schema_name():
        raise TenantError(f"No tenant with schema {schema_name!r}. Create it with tenant_create.")
    return tenant


def tenant_scope(schema_name: str) -> AbstractContextManager[None]:
    """Context manager that routes queries to the tenant's schema (for commands)."""
    return tenant_context(tenant_get(schema_name=schema_name))


def current_schema() -> str:
    """The tenant schema this connection routes to (the public one outside a tenant)."""
    return str(getattr(connection, "schema_name", get_public_schema_name()))
