"""tenant_create and user_create as an operator uses them."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from portal.access.selectors import project_roles_for

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("schema", ["Bad-Name", "public", "1abc", "pg_catalog", "a"])
def test_tenant_create_rejects_invalid_schema_names(tenants, schema):
    with pytest.raises(CommandError, match="(?i)schema name"):
        call_command("tenant_create", schema, "--domain", "x.localhost")


def test_tenant_create_refuses_an_existing_tenant(tenants):
    with pytest.raises(CommandError, match="already exists"):
        call_command("tenant_create", "alpha", "--domain", "other.localhost")


def test_tenant_create_refuses_a_taken_host(tenants):
    with pytest.raises(CommandError, match="already belongs"):
        call_command("tenant_create", "gamma", "--domain", "alpha.localhost")


def test_tenant_create_refuses_a_bad_host(tenants):
    with pytest.raises(CommandError, match="host name"):
        call_command("tenant_create", "gamma", "--domain", "http://x.localhost:8000/")


def test_user_create_creates_projects_and_updates_on_rerun(alpha, capsys):
    call_command(
        "user_create",
        "--tenant",
        "alpha",
        "erin",
        "--password",
        "pw-erin-1",
        "--project",
        "ops:editor",
        "--project",
        "docs",
    )
    assert "Created user erin" in capsys.readouterr().out
    call_command(
        "user_create",
        "--tenant",
        "alpha",
        "erin",
        "--password",
        "pw-erin-2",
        "--project",
        "ops:admin",
    )
    assert "Updated user erin" in capsys.readouterr().out
    user = get_user_model().objects.get(username="erin")
    assert user.check_password("pw-erin-2")
    assert project_roles_for(user=user) == [("docs", "reader"), ("ops", "admin")]


def test_user_create_errors_are_clear(tenants):
    with pytest.raises(CommandError, match="No tenant"):
        call_command("user_create", "--tenant", "nope", "x", "--password", "p")
    with pytest.raises(CommandError, match="Invalid role"):
        call_command(
            "user_create", "--tenant", "alpha", "x", "--password", "p", "--project", "ops:boss"
        )
