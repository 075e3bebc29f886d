"""The portal shell: branded 404 with DEBUG off, favicon, dark mode, API docs from local files."""

from __future__ import annotations

import pytest
from django.contrib.staticfiles import finders

from tests.conftest import make_user

pytestmark = pytest.mark.django_db


def test_unknown_urls_get_the_branded_404_with_debug_off(alpha, settings):
    settings.DEBUG = False
    user = make_user(alpha, "shell-404", projects={"shell": "reader"})
    client = alpha.client()
    client.force_login(user)
    response = client.get("/no/such/page/")
    html = response.content.decode()
    assert response.status_code == 404
    assert "<h1>Page not found</h1>" in html and "Groundwork" in html
    assert 'href="/search/"' in html and "Traceback" not in html
    anonymous = alpha.client().get("/nowhere/")
    assert anonymous.status_code == 404 and "Page not found" in anonymous.content.decode()


def test_every_page_has_favicon_theme_and_api_links(alpha):
    user = make_user(alpha, "shell-user", projects={"shell": "reader"})
    client = alpha.client()
    client.force_login(user)
    for url in ("/", "/chat/", "/search/", "/login/"):
        html = client.get(url, follow=True).content.decode()
        assert 'rel="icon"' in html and "/static/css/theme.css" in html, url
        assert 'href="/api/docs/"' in html and 'href="/api/redoc/"' in html, url
    css = open(finders.find("css/theme.css")).read()
    assert "@media (prefers-color-scheme: dark)" in css and ":focus-visible" in css
    assert finders.find("favicon.svg")


def test_swagger_ui_and_redoc_load_from_local_static_files(alpha):
    user = make_user(alpha, "shell-docs", projects={"shell": "reader"})
    client = alpha.client()
    client.force_login(user)
    for url, asset in (
        ("/api/docs/", "/static/drf_spectacular_sidecar/swagger-ui-dist/"),
        ("/api/redoc/", "/api/redoc/redoc.standalone.js"),  # the sidecar's, minus a CDN logo
    ):
        response = client.get(url)
        html = response.content.decode()
        assert response.status_code == 200, url
        assert asset in html
        assert "cdn.jsdelivr" not in html and "unpkg.com" not in html
        assert "fonts.googleapis" not in html and "<script>" not in html
    bundle = client.get("/api/redoc/redoc.standalone.js")
    assert bundle["Content-Type"] == "application/javascript"
    assert b"Redoc" in bundle.content and b"cdn.redoc.ly" not in bundle.content
    assert finders.find("drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js")
