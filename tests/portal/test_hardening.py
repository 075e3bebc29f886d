"""Crashes and redirects found by the outside attack run: each is a 4xx or a same-site redirect."""

from __future__ import annotations

import json

import pytest
from django.contrib.contenttypes.models import ContentType

from kb.models import Document
from kb.services import document_ingest
from portal.access.services import project_ensure
from tests.conftest import make_user, token_for

pytestmark = pytest.mark.django_db

DEEP = 50_000


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_deeply_nested_json_to_the_anonymous_token_endpoint_is_a_400(alpha):
    response = alpha.client().post(
        "/api/auth/token", '{"username": ' + _nested(DEEP) + "}", content_type="application/json"
    )
    assert response.status_code == 400
    assert "nested" in response.json()["detail"]


def test_deeply_nested_json_to_search_is_a_400(alpha):
    user = make_user(alpha, "nest-reader", projects={"nest": "reader"})
    client = alpha.client(HTTP_AUTHORIZATION=f"Token {token_for(alpha, user)}")
    body = '{"query": "x", "filters": ' + _nested(DEEP) + "}"
    response = client.post("/api/kb/search", body, content_type="application/json")
    assert response.status_code == 400


def test_an_oversized_body_is_refused_before_it_is_parsed(alpha, settings):
    settings.API_MAX_BODY_BYTES = 1000
    response = alpha.client().post(
        "/api/auth/token",
        json.dumps({"username": "u", "password": "p" * 2000}),
        content_type="application/json",
    )
    assert response.status_code == 413
    assert "1000 bytes" in response.json()["detail"]


def test_a_body_over_djangos_own_limit_is_the_same_413(alpha, settings):
    """Django refuses bodies over DATA_UPLOAD_MAX_MEMORY_SIZE (2.5 MB) with its HTML 400 page
    when they are read through request.body; the API's parser reads the stream itself."""
    user = make_user(alpha, "big-reader", projects={"big": "reader"})
    client = alpha.client(HTTP_AUTHORIZATION=f"Token {token_for(alpha, user)}")
    body = json.dumps({"query": "x", "pad": "p" * 3_200_000})
    response = client.post("/api/kb/search", body, content_type="application/json")
    assert response.status_code == 413
    limit = settings.API_MAX_BODY_BYTES
    assert response.json() == {"detail": f"The request body is larger than {limit} bytes."}


def test_document_ingest_accepts_bodies_up_to_the_ingest_limit(alpha, settings):
    settings.API_MAX_BODY_BYTES = 1000
    editor = make_user(alpha, "big-editor", projects={"big": "editor"})
    client = alpha.client(HTTP_AUTHORIZATION=f"Token {token_for(alpha, editor)}")
    body = {"project_key": "big", "source_path": "big.md", "content": "word " * 1000}
    response = client.post("/api/kb/documents", json.dumps(body), content_type="application/json")
    assert response.status_code == 201


@pytest.mark.parametrize(
    "target", ["https://evil.example/", "//evil.example/", "/\\evil.example/", "https:evil.example"]
)
def test_admin_login_never_redirects_off_site(alpha, target):
    make_user(alpha, "redir-editor", password="pw-redir-1", projects={"redir": "editor"})
    client = alpha.client()
    client.post("/login/", {"username": "redir-editor", "password": "pw-redir-1"})
    response = client.get("/admin/login/", {"next": target})
    assert response.status_code == 302
    assert response["Location"] == "/admin/"


def test_admin_login_keeps_a_same_site_next(alpha):
    make_user(alpha, "redir-editor2", password="pw-redir-1", projects={"redir": "editor"})
    client = alpha.client()
    client.post("/login/", {"username": "redir-editor2", "password": "pw-redir-1"})
    response = client.get("/admin/login/", {"next": "/admin/kb/"})
    assert response["Location"] == "/admin/kb/"


@pytest.mark.parametrize("target", ["https://evil.example/", "//evil.example/"])
def test_login_page_never_redirects_off_site(alpha, target):
    make_user(alpha, "redir-user", password="pw-redir-1")
    client = alpha.client()
    response = client.post(
        f"/login/?next={target}", {"username": "redir-user", "password": "pw-redir-1"}
    )
    assert response.status_code == 302
    assert response["Location"] == "/"


def test_signed_in_login_page_pointing_at_itself_goes_home(alpha):
    make_user(alpha, "loop-user", password="pw-loop-1")
    client = alpha.client()
    client.post("/login/", {"username": "loop-user", "password": "pw-loop-1"})
    response = client.get("/login/?next=/login/")
    assert response.status_code == 302
    assert response["Location"] == "/"


def test_admin_view_on_site_shortcut_is_gone(alpha, settings):
    settings.DEBUG = True  # the technical 404 page says why: it must not tell these apart
    visible = project_ensure(key="vos-ed")
    hidden = project_ensure(key="vos-hidden")
    mine = document_ingest(project=visible, source_path="m.md", content="# Mine\n\nx\n").document
    theirs = document_ingest(project=hidden, source_path="t.md", content="# T\n\ny\n").document
    make_user(alpha, "vos-editor", password="pw-vos-1", projects={"vos-ed": "editor"})
    client = alpha.client()
    client.post("/login/", {"username": "vos-editor", "password": "pw-vos-1"})
    content_type = ContentType.objects.get_for_model(Document)
    answers = [
        client.get(f"/admin/r/{content_type.pk}/{pk}/")
        for pk in (mine.pk, theirs.pk, theirs.pk + 10_000)
    ]
    assert {response.status_code for response in answers} == {404}
    for response in answers:
        assert b"doesn&#x27;t exist" not in response.content
        assert b"associated URL" not in response.content
        assert b"Content type" not in response.content
