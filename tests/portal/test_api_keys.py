"""Named API keys: created and revoked on the API keys page, several per person, each with
scopes enforced by one permission gate (chat API, search and documents APIs, MCP), a last-used
date written at most once a minute, the tokens' expiry and revocation rules, and only a hash
of the secret stored."""

from __future__ import annotations

import hashlib
import json
import logging
import re
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from portal.access.models import ApiKey, KeyScope
from portal.access.services import user_upsert
from portal.access.tokens import api_key_create
from privacy.services import user_data_export
from tests.conftest import TenantInfo, make_user, token_for

pytestmark = pytest.mark.django_db

PAGE = "/account/tokens/"
CREATE = "/account/tokens/keys/"
SECRET = re.compile(r"gwk_[A-Za-z0-9_-]{40,}")
MCP_LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}


def signed_in(info: TenantInfo, username: str, password: str = "pw-keys-123"):
    client = info.client()
    assert client.post("/login/", {"username": username, "password": password}).status_code == 302
    return client


def new_key(info: TenantInfo, user, *scopes: str, name: str = "script") -> str:
    with info.scope():
        _, secret = api_key_create(user=user, name=name, scopes=list(scopes))
    return secret


def calls(info: TenantInfo, secret: str) -> dict[str, int]:
    """Status codes of the chat API, the search API, the documents API, MCP and `me`."""
    client = info.client(HTTP_AUTHORIZATION=f"Token {secret}")
    return {
        "chat": client.post(
            "/api/kb/chat", json.dumps({"question": "hello?"}), content_type="application/json"
        ).status_code,
        "search": client.post(
            "/api/kb/search", json.dumps({"query": "cache"}), content_type="application/json"
        ).status_code,
        "documents": client.get("/api/kb/documents").status_code,
        "mcp": client.post(
            "/mcp/",
            json.dumps(MCP_LIST),
            content_type="application/json",
            HTTP_ACCEPT="application/json, text/event-stream",
        ).status_code,
        "me": client.get("/api/auth/me").status_code,
    }


ALLOWED = {"chat": 200, "search": 200, "documents": 200, "mcp": 200, "me": 200}


# --- the page: create, shown once, listed, revoked --------------------------------------------


def test_a_key_is_created_on_the_page_shown_once_and_listed(alpha):
    user = make_user(alpha, "keys-page", password="pw-keys-123")
    client = signed_in(alpha, "keys-page")
    assert client.get(PAGE).status_code == 200

    created = client.post(CREATE, {"name": "nightly export", "scopes": ["read", "chat"]})
    assert created.status_code == 200
    assert "no-store" in created["Cache-Control"]
    found = SECRET.search(created.content.decode())
    assert found, created.content.decode()[:3000]
    secret = found.group(0)
    assert "shown only this once" in created.content.decode()

    again = client.get(PAGE).content.decode()
    assert secret not in again  # never shown again
    assert "nightly export" in again and secret[:12] in again
    assert "Read and search" in again and "Chat" in again
    assert "never" in again  # not used yet
    assert calls(alpha, secret)["search"] == 200
    with alpha.scope():
        assert ApiKey.objects.get(user=user).last_used_at is not None
    assert "never" not in client.get(PAGE).content.decode().split("Password token")[0]


def test_several_keys_per_person_and_they_do_not_revoke_each_other(alpha):
    user = make_user(alpha, "keys-many")
    first = new_key(alpha, user, "read", name="laptop")
    second = new_key(alpha, user, "read", name="ci")
    token = token_for(alpha, user)
    for credential in (first, second, token):
        assert calls(alpha, credential)["search"] == 200
    # the password token endpoint re-issues the same token and leaves the keys alone
    response = alpha.client().post(
        "/api/auth/token",
        {"username": "keys-many", "password": "pw-secret-123"},
        content_type="application/json",
    )
    assert response.json()["token"] == token
    assert calls(alpha, first)["search"] == 200 and calls(alpha, second)["search"] == 200


def test_htmx_create_and_revoke_answer_the_keys_fragment(alpha):
    make_user(alpha, "keys-htmx", password="pw-keys-123")
    client = signed_in(alpha, "keys-htmx")
    headers = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "api-keys"}
    created = client.post(CREATE, {"name": "assistant", "scopes": ["mcp"]}, **headers)
    body = created.content.decode()
    assert created.status_code == 200
    assert body.lstrip().startswith('<div id="api-keys"') and "<html" not in body
    secret = SECRET.search(body).group(0)
    with alpha.scope():
        key = ApiKey.objects.get(name="assistant")
    revoked = client.post(f"/account/tokens/keys/{key.pk}/revoke", **headers)
    assert revoked.status_code == 200
    assert "assistant" in revoked.content.decode() and "revoked" in revoked.content.decode()
    assert calls(alpha, secret)["mcp"] == 401


@pytest.mark.parametrize(
    ("data", "field_error"),
    [
        ({"name": "", "scopes": ["read"]}, "This field is required."),
        ({"name": "   ", "scopes": ["read"]}, "This field is required."),
        ({"name": "x" * 101, "scopes": ["read"]}, "at most 100 characters"),
        ({"name": "no scope"}, "Choose at least one scope."),
        ({"name": "bad scope", "scopes": ["admin"]}, "Select a valid choice."),
    ],
)
def test_a_bad_form_is_a_clear_error_and_writes_nothing(alpha, data, field_error):
    make_user(alpha, "keys-bad", password="pw-keys-123")
    client = signed_in(alpha, "keys-bad")
    response = client.post(CREATE, data)
    assert response.status_code == 400
    assert field_error in response.content.decode()
    assert not SECRET.search(response.content.decode())
    with alpha.scope():
        assert not ApiKey.objects.exists()


def test_a_second_key_of_the_same_name_is_refused(alpha):
    user = make_user(alpha, "keys-dupe", password="pw-keys-123")
    new_key(alpha, user, "read", name="ci")
    response = signed_in(alpha, "keys-dupe").post(CREATE, {"name": " ci ", "scopes": ["chat"]})
    assert response.status_code == 400
    assert "You already have a key named “ci”." in response.content.decode()
    with alpha.scope():
        assert ApiKey.objects.filter(user=user).count() == 1


def test_revoking_someone_elses_key_is_a_404_like_a_missing_one(alpha):
    owner = make_user(alpha, "keys-owner")
    secret = new_key(alpha, owner, "read")
    make_user(alpha, "keys-thief", password="pw-keys-123")
    thief = signed_in(alpha, "keys-thief")
    with alpha.scope():
        key = ApiKey.objects.get(user=owner)
    assert thief.post(f"/account/tokens/keys/{key.pk}/revoke").status_code == 404
    assert thief.post("/account/tokens/keys/999999/revoke").status_code == 404
    assert thief.get(f"/account/tokens/keys/{key.pk}/revoke").status_code == 405
    assert calls(alpha, secret)["search"] == 200


def test_revoking_on_the_page_stops_the_key_at_once(alpha):
    user = make_user(alpha, "keys-revoke", password="pw-keys-123")
    secret = new_key(alpha, user, "read", "chat", "mcp", name="old laptop")
    kept = new_key(alpha, user, "read", name="ci")
    client = signed_in(alpha, "keys-revoke")
    with alpha.scope():
        key = ApiKey.objects.get(name="old laptop")
    response = client.post(f"/account/tokens/keys/{key.pk}/revoke")
    assert response.status_code == 302
    page = client.get(PAGE).content.decode()
    assert "Key “old laptop” revoked." in page and secret[:12] not in page
    assert calls(alpha, secret) == {k: 401 for k in ALLOWED}
    assert calls(alpha, kept)["search"] == 200


def test_creation_and_revocation_are_logged(alpha, caplog):
    user = make_user(alpha, "keys-logged", password="pw-keys-123")
    client = signed_in(alpha, "keys-logged")
    with caplog.at_level(logging.INFO, logger="portal.access.tokens"):
        secret = SECRET.search(
            client.post(CREATE, {"name": "audited", "scopes": ["read"]}).content.decode()
        ).group(0)
        with alpha.scope():
            key = ApiKey.objects.get(user=user)
        client.post(f"/account/tokens/keys/{key.pk}/revoke")
    lines = [r.getMessage() for r in caplog.records if r.name == "portal.access.tokens"]
    assert any("created" in line and secret[:12] in line and "alpha" in line for line in lines)
    assert any("revoked" in line and secret[:12] in line for line in lines)
    assert secret not in caplog.text


# --- scopes: one gate --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("scopes", "refused"),
    [
        (["read"], {"chat", "mcp"}),
        (["chat"], {"search", "documents", "mcp"}),
        (["mcp"], {"chat", "search", "documents"}),
        (["read", "chat", "mcp"], set()),
    ],
)
def test_each_scope_opens_its_own_apis_only(alpha, scopes, refused):
    user = make_user(alpha, f"keys-scope-{'-'.join(scopes)}")
    secret = new_key(alpha, user, *scopes)
    assert calls(alpha, secret) == {k: 403 if k in refused else 200 for k in ALLOWED}


def test_a_key_without_the_chat_scope_gets_a_clear_json_403(alpha):
    user = make_user(alpha, "keys-nochat")
    secret = new_key(alpha, user, "read")
    response = alpha.client(HTTP_AUTHORIZATION=f"Token {secret}").post(
        "/api/kb/chat", json.dumps({"question": "hello?"}), content_type="application/json"
    )
    assert response.status_code == 403
    assert response.json() == {
        "detail": "This API key does not have the Chat scope; create a key with it at "
        "/account/tokens/.",
        "required_scope": "chat",
    }


def test_the_password_token_keeps_every_scope(alpha):
    user = make_user(alpha, "keys-legacy")
    assert calls(alpha, token_for(alpha, user)) == ALLOWED


def test_keys_cannot_write_nor_manage_the_account(alpha):
    user = make_user(alpha, "keys-nowrite", projects={"keys-proj": "editor"})
    client = alpha.client(HTTP_AUTHORIZATION=f"Token {new_key(alpha, user, 'read', 'chat', 'mcp')}")
    upload = client.post(
        "/api/kb/documents",
        json.dumps({"project_key": "keys-proj", "source_path": "a.md", "content": "# A\n\nText."}),
        content_type="application/json",
    )
    assert upload.status_code == 403
    assert "required_scope" not in upload.json() and "API keys" in upload.json()["detail"]
    assert client.get("/api/auth/tokens").status_code == 403
    assert client.get("/api/auth/me/export").status_code == 403
    # the password token of the same editor may
    token = alpha.client(HTTP_AUTHORIZATION=f"Token {token_for(alpha, user)}")
    assert token.get("/api/auth/tokens").status_code == 200


def test_every_authenticated_api_view_goes_through_the_scope_gate():
    from django.urls import URLPattern, URLResolver, get_resolver
    from rest_framework.permissions import AllowAny
    from rest_framework.views import APIView

    from portal.authentication import KeyScopePermission

    def views(patterns):
        for entry in patterns:
            if isinstance(entry, URLResolver):
                yield from views(entry.url_patterns)
            elif isinstance(entry, URLPattern):
                view_class = getattr(entry.callback, "view_class", None)
                if view_class is not None and issubclass(view_class, APIView):
                    yield view_class

    # public views (the schema, the token endpoint) take no credential that a scope could limit
    checked = [
        view
        for view in views(get_resolver("portal.urls").url_patterns)
        if view.authentication_classes and AllowAny not in view.permission_classes
    ]
    assert len(checked) > 10
    ungated = [v for v in checked if KeyScopePermission not in v.permission_classes]
    assert ungated == []


def test_mcp_stdio_refuses_a_key_without_the_mcp_scope(alpha):
    user = make_user(alpha, "keys-stdio")
    secret = new_key(alpha, user, "read")
    with pytest.raises(CommandError, match="does not have the MCP scope"):
        call_command("mcp_stdio", tenant="alpha", token=secret)


# --- stored, expiry, password, deactivation, tenants -------------------------------------------


def test_only_a_hash_of_the_secret_is_stored(alpha):
    user = make_user(alpha, "keys-hash")
    secret = new_key(alpha, user, "read", "chat")
    with connection.cursor() as cursor:
        cursor.execute("SELECT row_to_json(k)::text FROM access_apikey k")
        rows = [row[0] for row in cursor.fetchall()]
    assert len(rows) == 1
    assert secret not in rows[0] and secret[12:] not in rows[0]
    assert hashlib.sha256(secret.encode()).hexdigest() in rows[0]


def test_an_expired_key_is_refused_and_shown_expired(alpha, settings):
    settings.API_TOKEN_TTL_DAYS = 30
    user = make_user(alpha, "keys-old", password="pw-keys-123")
    secret = new_key(alpha, user, "read")
    ApiKey.objects.filter(user=user).update(created=timezone.now() - timedelta(days=31))
    refused = alpha.client(HTTP_AUTHORIZATION=f"Token {secret}").get("/api/kb/documents")
    assert refused.status_code == 401
    assert "expired" in refused.json()["detail"]
    assert "expired" in signed_in(alpha, "keys-old").get(PAGE).content.decode()
    settings.API_TOKEN_TTL_DAYS = 0  # never expire
    assert calls(alpha, secret)["documents"] == 200


def test_a_password_change_revokes_every_key(alpha):
    user = make_user(alpha, "keys-rotate", password="pw-rotate-1")
    secrets = [new_key(alpha, user, "read", name=name) for name in ("a", "b")]
    token = token_for(alpha, user)
    with alpha.scope():
        user_upsert(username="keys-rotate", password="pw-rotate-2")
        assert not ApiKey.objects.filter(user=user).exists()
    for credential in (*secrets, token):
        assert calls(alpha, credential)["me"] == 401


def test_a_deactivated_users_keys_stop_working(alpha, user_model):
    user = make_user(alpha, "keys-gone")
    secret = new_key(alpha, user, "read")
    user_model.objects.filter(pk=user.pk).update(is_active=False)
    response = alpha.client(HTTP_AUTHORIZATION=f"Token {secret}").get("/api/auth/me")
    assert response.status_code == 401


def test_a_key_of_tenant_alpha_means_nothing_at_beta(alpha, beta):
    user = make_user(alpha, "keys-tenant")
    secret = new_key(alpha, user, "read", "chat", "mcp")
    assert calls(alpha, secret)["me"] == 200
    make_user(beta, "keys-tenant")  # the same name at beta: still not this key's owner
    assert calls(beta, secret) == {k: 401 for k in ALLOWED}


def test_unknown_and_malformed_keys_are_401(alpha):
    for secret in ("gwk_", "gwk_" + "A" * 43, "gwk_ünïcode"):
        response = alpha.client(HTTP_AUTHORIZATION=f"Token {secret}").get("/api/auth/me")
        assert response.status_code == 401, secret


# --- last used: at most one write a minute ------------------------------------------------------


def _key_updates(captured: CaptureQueriesContext) -> list[str]:
    return [
        q["sql"] for q in captured.captured_queries if q["sql"].startswith('UPDATE "access_apikey"')
    ]


def test_last_used_is_written_at_most_once_a_minute(alpha):
    user = make_user(alpha, "keys-used")
    secret = new_key(alpha, user, "read")
    client = alpha.client(HTTP_AUTHORIZATION=f"Token {secret}")
    with CaptureQueriesContext(connection) as first:
        assert client.get("/api/auth/me").status_code == 200
    assert len(_key_updates(first)) == 1
    key = ApiKey.objects.get(user=user)
    assert key.last_used_at is not None and timezone.now() - key.last_used_at < timedelta(seconds=5)
    with CaptureQueriesContext(connection) as later:
        for _ in range(3):
            assert client.get("/api/auth/me").status_code == 200
    assert _key_updates(later) == []
    stale = timezone.now() - timedelta(minutes=2)
    ApiKey.objects.filter(pk=key.pk).update(last_used_at=stale)
    with CaptureQueriesContext(connection) as after_a_while:
        assert client.get("/api/auth/me").status_code == 200
    assert len(_key_updates(after_a_while)) == 1
    key.refresh_from_db()
    assert key.last_used_at is not None and key.last_used_at > stale


# --- personal data ------------------------------------------------------------------------------


def test_the_personal_data_export_lists_the_keys_without_secrets(alpha):
    user = make_user(alpha, "keys-export")
    secret = new_key(alpha, user, "mcp", "read", name="assistant")
    export = user_data_export(user=user)
    assert [
        {k: row[k] for k in ("name", "prefix", "scopes", "last_used_at")}
        for row in export["api_keys"]
    ] == [
        {
            "name": "assistant",
            "prefix": secret[:12],
            "scopes": [KeyScope.READ.value, KeyScope.MCP.value],
            "last_used_at": None,
        }
    ]
    assert "created" in export["api_keys"][0] and "expires_at" in export["api_keys"][0]
    dumped = json.dumps(export)
    assert secret not in dumped and hashlib.sha256(secret.encode()).hexdigest() not in dumped


def test_a_person_has_at_most_fifty_keys(alpha):
    from portal.access.tokens import API_KEYS_PER_USER, ApiKeyError

    user = make_user(alpha, "keys-hoarder")
    for n in range(API_KEYS_PER_USER):
        new_key(alpha, user, "read", name=f"key {n}")
    with pytest.raises(ApiKeyError, match="revoke one first"):
        new_key(alpha, user, "read", name="one more")
    assert ApiKey.objects.filter(user=user).count() == API_KEYS_PER_USER
