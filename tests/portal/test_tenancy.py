"""Tenants are isolated by host: accounts, tokens and pages of one mean nothing at another."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from tests.conftest import PUBLIC_HOST, make_user, token_for

pytestmark = pytest.mark.django_db


def test_unknown_host_is_404(tenants):
    response = Client(HTTP_HOST="nobody.localhost").get("/")
    assert response.status_code == 404


def test_public_host_shows_landing_and_lists_no_tenant(tenants):
    response = Client(HTTP_HOST=PUBLIC_HOST).get("/")
    assert response.status_code == 200
    body = response.content.decode()
    assert "Groundwork" in body
    for info in tenants.values():
        assert info.host not in body
        assert info.tenant.name not in body


def test_public_host_has_no_login_or_api(tenants):
    client = Client(HTTP_HOST=PUBLIC_HOST)
    assert client.get("/login/").status_code == 404
    assert client.post("/api/auth/token", {}, content_type="application/json").status_code == 404


def test_tenant_root_redirects_to_login(alpha):
    response = alpha.client().get("/")
    assert response.status_code == 302
    assert response["Location"].startswith("/login/")
    page = alpha.client().get("/login/")
    assert page.status_code == 200
    assert b"Sign in" in page.content


def test_login_works_at_own_tenant_only(alpha, beta):
    make_user(alpha, "alice", password="alice-pw-1", projects={"handbook": "reader"})
    own = alpha.client()
    response = own.post("/login/", {"username": "alice", "password": "alice-pw-1"})
    assert response.status_code == 302
    home = own.get("/")
    assert home.status_code == 200
    assert b"handbook" in home.content

    foreign = beta.client()
    response = foreign.post("/login/", {"username": "alice", "password": "alice-pw-1"})
    assert response.status_code == 200  # form re-rendered with an error
    assert b"Please enter a correct username and password" in response.content
    assert foreign.get("/").status_code == 302


def test_token_of_tenant_a_is_refused_at_tenant_b(alpha, beta):
    user = make_user(alpha, "tok-alice", projects={"handbook": "reader"})
    token = token_for(alpha, user)
    at_alpha = alpha.client().get("/api/auth/me", HTTP_AUTHORIZATION=f"Token {token}")
    assert at_alpha.status_code == 200
    assert at_alpha.json()["username"] == "tok-alice"
    assert at_alpha.json()["projects"] == [{"key": "handbook", "role": "reader"}]

    at_beta = beta.client().get("/api/auth/me", HTTP_AUTHORIZATION=f"Token {token}")
    assert at_beta.status_code == 401
    assert "tok-alice" not in at_beta.content.decode()


def test_token_endpoint_issues_token_for_valid_credentials(alpha):
    make_user(alpha, "bob", password="bob-pw-12")
    response = alpha.client().post(
        "/api/auth/token",
        {"username": "bob", "password": "bob-pw-12"},
        content_type="application/json",
    )
    assert response.status_code == 200
    token = response.json()["token"]
    me = alpha.client().get("/api/auth/me", HTTP_AUTHORIZATION=f"Token {token}")
    assert me.json()["username"] == "bob"


def test_token_endpoint_same_error_for_unknown_user_and_wrong_password(alpha):
    make_user(alpha, "carol", password="carol-pw-1")
    wrong_pw = alpha.client().post(
        "/api/auth/token",
        {"username": "carol", "password": "nope"},
        content_type="application/json",
    )
    unknown = alpha.client().post(
        "/api/auth/token",
        {"username": "no-such-user", "password": "nope"},
        content_type="application/json",
    )
    assert wrong_pw.status_code == unknown.status_code == 400
    assert wrong_pw.json() == unknown.json()


@pytest.mark.parametrize(
    "body",
    ["{not json", '{"username": "x"}', "[]", '{"username": ["x"], "password": 3}'],
)
def test_token_endpoint_rejects_malformed_bodies_with_400(alpha, body):
    response = alpha.client().post("/api/auth/token", body, content_type="application/json")
    assert response.status_code == 400
    assert isinstance(response.json(), dict)


def test_api_without_credentials_is_401(alpha):
    response = alpha.client().get("/api/auth/me")
    assert response.status_code in (401, 403)
    bad = alpha.client().get("/api/auth/me", HTTP_AUTHORIZATION="Token deadbeef")
    assert bad.status_code == 401
    assert json.loads(bad.content)["detail"]


def test_openapi_schema_is_served(alpha):
    user = make_user(alpha, "schema-reader")
    token = token_for(alpha, user)
    response = alpha.client().get("/api/schema/", HTTP_AUTHORIZATION=f"Token {token}")
    assert response.status_code == 200
    assert b"/api/auth/token" in response.content


def test_navigation_offers_curation_only_to_editors(alpha):
    make_user(alpha, "nav-reader", password="nav-pw-1", projects={"nav": "reader"})
    make_user(alpha, "nav-editor", password="nav-pw-2", projects={"nav": "editor"})
    reader, editor = alpha.client(), alpha.client()
    reader.post("/login/", {"username": "nav-reader", "password": "nav-pw-1"})
    editor.post("/login/", {"username": "nav-editor", "password": "nav-pw-2"})
    reader_home, editor_home = reader.get("/").content, editor.get("/").content
    assert b'href="/chat/"' in reader_home and b'href="/chat/"' in editor_home
    assert b'href="/admin/"' not in reader_home
    assert b'href="/admin/"' in editor_home
