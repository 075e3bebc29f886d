"""Security settings a user or operator would notice: CSP, rate limits, deploy checks."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

from tests.conftest import PUBLIC_HOST, make_user

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


def test_pages_carry_a_csp_without_inline_script(alpha):
    response = alpha.client().get("/login/")
    policy = response["Content-Security-Policy"]
    assert "script-src 'self'" in policy
    assert "unsafe-inline" not in policy.split("script-src", 1)[1].split(";", 1)[0]
    assert "frame-ancestors 'none'" in policy
    assert b"<script>" not in response.content
    assert response["X-Frame-Options"] == "DENY"


def test_public_landing_has_csp(tenants):
    response = Client(HTTP_HOST=PUBLIC_HOST).get("/")
    assert "default-src 'self'" in response["Content-Security-Policy"]


def test_login_form_requires_csrf(alpha):
    make_user(alpha, "csrf-user", password="csrf-pw-1")
    client = Client(HTTP_HOST=alpha.host, enforce_csrf_checks=True)
    response = client.post("/login/", {"username": "csrf-user", "password": "csrf-pw-1"})
    assert response.status_code == 403


def test_login_is_rate_limited_after_repeated_failures(alpha, settings):
    make_user(alpha, "victim", password="right-pw-1")
    client = alpha.client()
    for _ in range(settings.LOGIN_FAILURE_LIMIT):
        response = client.post("/login/", {"username": "victim", "password": "wrong"})
        assert response.status_code == 200
    blocked = client.post("/login/", {"username": "victim", "password": "right-pw-1"})
    assert blocked.status_code == 429
    assert b"Too many failed sign-in attempts" in blocked.content
    assert client.get("/").status_code == 302  # still not logged in


def test_token_endpoint_is_throttled(alpha, settings):
    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**rates, "auth_token": "3/min"},
    }
    client = alpha.client()
    codes = [
        client.post(
            "/api/auth/token",
            {"username": "x", "password": "y"},
            content_type="application/json",
        ).status_code
        for _ in range(4)
    ]
    assert codes == [400, 400, 400, 429]


def test_check_deploy_is_clean_with_production_settings(tmp_path):
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DEBUG", "GROUNDWORK_TESTING"}
    }
    env.update(
        {
            "DEBUG": "0",
            "GROUNDWORK_TESTING": "0",
            "SECRET_KEY": "x" * 20 + "-production-secret-with-enough-entropy-0123456789abcdef",
            "ALLOWED_HOSTS": ".example.com",
            "DATABASE_URL": os.environ.get("DATABASE_URL") or _current_database_url(),
        }
    )
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_settings_refuse_to_start_without_secret_key():
    env = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "DEBUG"}}
    env.update({"DEBUG": "0", "GROUNDWORK_TESTING": "0", "DATABASE_URL": "postgres://x@h/db"})
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import django, os; os.environ['DJANGO_SETTINGS_MODULE']="
            "'portal.settings'; django.setup()",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def _current_database_url() -> str:
    return settings.DATABASE_URL


def test_admin_sign_in_goes_through_the_rate_limited_login(alpha):
    make_user(alpha, "ed-login", password="ed-pw-123", projects={"p-ed": "editor"})
    client = alpha.client()
    response = client.get("/admin/")
    assert response.status_code == 302
    login_url = client.get(response["Location"])["Location"]
    assert login_url.startswith("/login/?next=")
    signed_in = client.post(login_url, {"username": "ed-login", "password": "ed-pw-123"})
    assert signed_in.status_code == 302
    assert signed_in["Location"] == "/admin/"
    assert client.get("/admin/").status_code == 200


def test_reader_signed_in_gets_a_clear_403_from_the_console(alpha):
    make_user(alpha, "rd-login", password="rd-pw-123", projects={"p-rd": "reader"})
    client = alpha.client()
    client.post("/login/", {"username": "rd-login", "password": "rd-pw-123"})
    response = client.get("/admin/login/?next=/admin/")
    assert response.status_code == 403
    assert b"No curation access" in response.content
