"""A password change revokes the account's API tokens, whichever way the password changes: the
console (a superuser sets it), the `changepassword` command, the console's own password form,
and `user_create` / `user_upsert`. A token issued under the old password answers neither the
API nor MCP. Re-hashing at sign-in (a stronger hasher) is not a change and keeps them."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command

from tests.conftest import TenantInfo, make_user, token_for

pytestmark = pytest.mark.django_db

OLD, NEW = "pw-old-secret-1", "pw-new-secret-2"


def answers(info: TenantInfo, key: str) -> tuple[int, int]:
    """Status codes of the API and of MCP for a token."""
    client = info.client(HTTP_AUTHORIZATION=f"Token {key}")
    api = client.get("/api/auth/me").status_code
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    mcp = client.post(
        "/mcp/",
        json.dumps(message),
        content_type="application/json",
        HTTP_ACCEPT="application/json, text/event-stream",
    ).status_code
    return api, mcp


def signed_in(info: TenantInfo, username: str, password: str):
    client = info.client()
    assert client.post("/login/", {"username": username, "password": password}).status_code == 302
    return client


def test_a_superuser_setting_a_password_in_the_console_revokes_the_tokens(alpha):
    make_user(alpha, "pw-root", password=OLD, superuser=True)
    user = make_user(alpha, "pw-console", password=OLD, projects={"pw": "reader"})
    key = token_for(alpha, user)
    assert answers(alpha, key) == (200, 200)
    console = signed_in(alpha, "pw-root", OLD)
    url = f"/admin/auth/user/{user.pk}/password/"
    assert console.get(url).status_code == 200
    changed = console.post(url, {"password1": NEW, "password2": NEW, "usable_password": "true"})
    assert changed.status_code == 302, changed.content[:2000]
    assert answers(alpha, key) == (401, 401)


def test_the_changepassword_command_revokes_the_tokens(alpha, monkeypatch):
    user = make_user(alpha, "pw-command", password=OLD)
    key = token_for(alpha, user)
    # the command reads the new password twice from the terminal
    monkeypatch.setattr("getpass.getpass", lambda prompt="": NEW)
    call_command("changepassword", "pw-command", stdout=None)
    assert answers(alpha, key) == (401, 401)


def test_changing_ones_own_password_in_the_console_revokes_the_tokens(alpha):
    user = make_user(alpha, "pw-self", password=OLD, projects={"pw": "editor"})
    key = token_for(alpha, user)
    own = signed_in(alpha, "pw-self", OLD)
    changed = own.post(
        "/admin/password_change/",
        {"old_password": OLD, "new_password1": NEW, "new_password2": NEW},
    )
    assert changed.status_code == 302, changed.content[:2000]
    assert answers(alpha, key) == (401, 401)
    assert own.get("/api/auth/me").status_code == 200  # the session that changed it goes on


def test_user_create_with_a_new_password_revokes_and_with_the_same_keeps(alpha):
    user = make_user(alpha, "pw-upsert", password=OLD)
    key = token_for(alpha, user)
    make_user(alpha, "pw-upsert", password=OLD)  # re-run: same password
    assert answers(alpha, key) == (200, 200)
    make_user(alpha, "pw-upsert", password=NEW)
    assert answers(alpha, key) == (401, 401)


def test_a_rehash_at_sign_in_is_not_a_password_change(alpha, settings):
    user = make_user(alpha, "pw-rehash", password=OLD)  # stored with the fast MD5 hasher
    key = token_for(alpha, user)
    settings.PASSWORD_HASHERS = [
        "django.contrib.auth.hashers.PBKDF2PasswordHasher",
        *settings.PASSWORD_HASHERS,
    ]
    signed_in(alpha, "pw-rehash", OLD)  # upgrades the stored hash to PBKDF2
    user.refresh_from_db()
    assert user.password.startswith("pbkdf2_")
    assert answers(alpha, key) == (200, 200)
