"""Headless Chromium signs in through the tenant's identity provider (django-oauth-toolkit in a
process of its own) and lands on the chat with the project its groups map to."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.identity.conftest import PASSWORD, USERS
from tests.identity.oidc_provider import Provider, provider_process
from tests.live import axe_blocking, live_server, require_chromium, shoot

pytestmark = [pytest.mark.browser, pytest.mark.django_db]


@pytest.fixture(scope="module")
def server(tenants, django_db_blocker) -> Iterator[tuple[str, Provider]]:
    """The portal on a live server and alpha's provider, configured (committed: the server's
    thread reads it), all removed afterwards."""
    require_chromium()
    from django.contrib.auth import get_user_model

    from portal.access.models import Project
    from portal.access.services import project_ensure
    from portal.identity.models import GroupRoleMapping, IdentityEvent, IdentityProvider
    from portal.secrets import encrypt

    info = tenants["alpha"]
    with django_db_blocker.unblock(), live_server() as port:
        base = f"http://{info.host}:{port}"
        client = {
            "client_id": "browser-client",
            "client_secret": "browser-secret",
            "redirect_uris": [f"{base}/login/oidc/callback"],
        }
        with provider_process(users=USERS, clients=[client]) as provider:
            with info.scope():
                IdentityProvider.objects.create(
                    name="Acme SSO",
                    issuer=provider.issuer,
                    client_id="browser-client",
                    client_secret_encrypted=encrypt("browser-secret"),
                    allow_user_creation=True,
                )
                handbook = project_ensure(key="sso-handbook", name="SSO Handbook")
                GroupRoleMapping.objects.create(group="eng", project=handbook, role="reader")
            try:
                yield base, provider
            finally:
                with info.scope():
                    get_user_model().objects.filter(email="ann@acme.test").delete()
                    IdentityProvider.objects.all().delete()
                    Project.objects.filter(key="sso-handbook").delete()  # mappings cascade
                    IdentityEvent.objects.all().delete()


def test_sign_in_through_the_provider_lands_on_the_chat_with_the_mapped_project(browser, server):
    base, provider = server
    page = browser.new_context(viewport={"width": 1200, "height": 900}).new_page()
    page.set_default_timeout(30_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))

    page.goto(f"{base}/login/?next=/chat/")
    button = page.get_by_role("link", name="Sign in with Acme SSO")
    assert button.is_visible()
    assert page.locator("#password-form").is_visible()
    assert axe_blocking(page) == []
    shoot(page, "sign-in-with-provider")

    button.click()
    page.wait_for_url(f"{provider.base}/accounts/login/**")
    page.fill("#username", "ann")
    page.fill("#password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{base}/chat/**")

    options = page.locator("#project_keys option").all_inner_texts()
    assert "SSO Handbook" in options
    assert errors == []


def _passwords_allowed(allowed: bool) -> None:
    """Set alpha's provider's password flag, committed, from a thread of its own: Playwright's
    sync API runs an event loop in the test's thread, where Django refuses database calls."""
    import threading

    def update() -> None:
        from django.db import connection

        from portal.identity.models import IdentityProvider
        from tests.conftest import ensure_tenant

        try:
            with ensure_tenant("alpha", "alpha.localhost").scope():
                IdentityProvider.objects.update(passwords_allowed=allowed)
        finally:
            connection.close()

    thread = threading.Thread(target=update)
    thread.start()
    thread.join()


def test_with_passwords_off_only_the_provider_is_offered_and_a_refusal_reads_clearly(
    browser, server
):
    base, _ = server
    _passwords_allowed(False)
    try:
        page = browser.new_context(viewport={"width": 1200, "height": 900}).new_page()
        page.goto(f"{base}/login/")
        assert page.get_by_role("link", name="Sign in with Acme SSO").is_visible()
        assert page.locator("#password-form").count() == 0
        assert axe_blocking(page) == []
        shoot(page, "sign-in-provider-only")

        # a return from the provider this browser never started
        page.goto(f"{base}/login/oidc/callback?code=x&state=forged")
        assert page.get_by_role("alert").inner_text().endswith("start again.")
        assert axe_blocking(page) == []
    finally:
        _passwords_allowed(True)
