"""Shared fixtures: tenants are created once per session; each test runs in a rolled-back transaction."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django_tenants.utils import schema_context
from rest_framework.authtoken.models import Token

from portal.access.services import user_upsert
from portal.tenants.models import Tenant
from portal.tenants.services import public_tenant_ensure, tenant_create

PUBLIC_HOST = "localhost"


@dataclass(frozen=True)
class TenantInfo:
    tenant: Tenant
    schema: str
    host: str

    def client(self, **extra: Any) -> Client:
        return Client(HTTP_HOST=self.host, **extra)

    @contextmanager
    def scope(self) -> Iterator[None]:
        with schema_context(self.schema):
            yield


def ensure_tenant(schema: str, host: str) -> TenantInfo:
    tenant = Tenant.objects.filter(schema_name=schema).first()
    if tenant is None:
        tenant = tenant_create(schema_name=schema, domain=host, name=schema.title())
    return TenantInfo(tenant=tenant, schema=schema, host=host)


def drop_tenant(schema: str) -> None:
    """Drop a test module's own tenant: its schema, then its row (from the public schema)."""
    connection.set_schema_to_public()  # type: ignore[attr-defined]  # django-tenants
    with connection.cursor() as cursor:
        cursor.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
    Tenant.objects.filter(schema_name=schema).delete()


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None, django_db_blocker, request) -> Iterator[None]:
    """pytest-django's test database, also for a selection where no test uses `db`.

    pytest-django creates the test database only when a selected test uses `db` (or its
    marker). The modules that must run outside a transaction (kb_reembed, the fault probes)
    reach the database through session fixtures alone, so `-k` picking only such tests
    would have run them against the database DATABASE_URL names.
    """
    from django.test.utils import setup_databases, teardown_databases
    from pytest_django.fixtures import _get_databases_for_setup  # its own rule, pinned version

    aliases, _ = _get_databases_for_setup(request.session.items)
    if aliases:  # pytest-django set it up, and tears it down
        yield
        return
    with django_db_blocker.unblock():
        created = setup_databases(verbosity=0, interactive=False, aliases={"default"})  # type: ignore[arg-type]  # a set, as pytest-django passes
    yield
    with django_db_blocker.unblock():
        teardown_databases(created, verbosity=0)


@pytest.fixture(scope="session")
def tenants(django_db_setup: None, django_db_blocker) -> dict[str, TenantInfo]:
    """Two tenants, alpha and beta, plus the public host; created once per test session."""
    with django_db_blocker.unblock():
        public_tenant_ensure(domains=[PUBLIC_HOST])
        infos = {
            "alpha": ensure_tenant("alpha", "alpha.localhost"),
            "beta": ensure_tenant("beta", "beta.localhost"),
        }
        connection.set_schema_to_public()  # type: ignore[attr-defined]  # django-tenants' backend
    return infos


@pytest.fixture(scope="session", autouse=True)
def _arm_worker_closed_at_the_end(django_db_setup: None) -> Iterator[None]:
    """Hybrid searches outside a transaction (live-server tests) leave the arm worker's
    connection open; close it before the test database is dropped."""
    yield
    from kb.retrieval import parallel

    parallel.close_connections()


@pytest.fixture
def alpha(tenants: dict[str, TenantInfo], db: None) -> Iterator[TenantInfo]:
    info = tenants["alpha"]
    with info.scope():
        yield info


@pytest.fixture
def beta(tenants: dict[str, TenantInfo], db: None) -> TenantInfo:
    return tenants["beta"]


def make_user(
    info: TenantInfo,
    username: str,
    *,
    password: str = "pw-secret-123",
    projects: dict[str, str] | None = None,
    superuser: bool = False,
):
    """Create (or update) a user of tenant `info` with {project_key: role} memberships."""
    with info.scope():
        user, _ = user_upsert(
            username=username,
            password=password,
            project_roles=list((projects or {}).items()),
            superuser=superuser,
        )
    return user


def token_for(info: TenantInfo, user) -> str:
    with info.scope():
        token, _ = Token.objects.get_or_create(user=user)
        return token.key


@pytest.fixture
def user_model():
    return get_user_model()


@pytest.fixture(autouse=True)
def _public_schema_first() -> None:
    """Every test starts on the public schema, whatever the previous one left set: the
    embedder follows the current tenant's embedding space, so a schema left behind by an
    earlier test would change what a test that never names a tenant embeds with."""
    connection.set_schema_to_public()  # type: ignore[attr-defined]  # django-tenants


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    """PBKDF2 at production cost dominates tests that create users; MD5 is fine here."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(scope="session")
def _cache_table(django_db_setup: None, django_db_blocker) -> None:
    """The database cache table, also in a session whose tests never ask for the database."""
    from django.core.management import call_command

    with django_db_blocker.unblock():
        call_command("createcachetable", verbosity=0)


@pytest.fixture(autouse=True)
def _fresh_cache(_cache_table: None, django_db_blocker) -> None:
    """Rate-limit counters live in the shared (database) cache; every test starts with none.

    Cleared on a connection of its own, outside the test's transaction: a DELETE inside it
    would hold row locks until the rollback, and a live-server thread counting a request
    would wait on them. A test's own counters go with its rollback.
    """
    from django.core.cache import caches
    from django.core.cache.backends.db import DatabaseCache
    from django.db import connections

    backend = caches["default"]
    with django_db_blocker.unblock():
        if not isinstance(backend, DatabaseCache):
            backend.clear()
            return
        own = connections.create_connection("default")
        try:
            with own.cursor() as cursor:
                table = own.ops.quote_name(backend._table)  # type: ignore[attr-defined]
                cursor.execute(f"DELETE FROM public.{table}")
        finally:
            own.close()


@pytest.fixture
def browser(server, settings, request) -> Iterator[Any]:
    """Headless Chromium for a browser test module, after its module-scoped `server` fixture
    (the live server, which skips the module when Chromium is missing) and with the settings a
    served page needs (tests.live.serve_for_browser). A module that sets
    `KEEP_TEST_EMBEDDER = True` keeps the embedder its `server` fixture ingested with (its
    pages read no answer of the real model); its stored passwords still verify."""
    from playwright.sync_api import sync_playwright

    from tests.live import accept_stored_passwords, launch_chromium, serve_for_browser

    if getattr(request.module, "KEEP_TEST_EMBEDDER", False):
        accept_stored_passwords(settings)
    else:
        serve_for_browser(settings)
    with sync_playwright() as playwright:
        chromium = launch_chromium(playwright)
        yield chromium
        chromium.close()
