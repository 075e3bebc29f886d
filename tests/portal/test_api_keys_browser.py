"""Headless Chromium on the API keys page, desktop and phone: create a key, see its secret
once, see it listed with name, scopes and last use, use it, revoke it; axe-core finds no
serious or critical violation. Screenshots when SCREENSHOTS_DIR is set (api-keys-*.png).

Served like tests/chat/test_browser_everyday.py: Django's LiveServerThread on committed data.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest

from tests.conftest import make_user
from tests.live import (
    DESKTOP,
    PHONE,
    axe_blocking,
    live_server,
    require_chromium,
    screenshot,
    signed_in_page,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db]

WHO = ("keys-browser", "keys-browser-pw-1")
SECRET = re.compile(r"^gwk_[A-Za-z0-9_-]{40,}$")


@pytest.fixture(scope="module")
def server(tenants, django_db_blocker) -> Iterator[tuple[str, str, int]]:
    """(base URL, tenant host, port) of a live server with the test user committed."""
    require_chromium()
    from django.contrib.auth import get_user_model

    info = tenants["alpha"]
    with django_db_blocker.unblock():
        make_user(info, WHO[0], password=WHO[1])
        with live_server() as port:
            try:
                yield f"http://{info.host}:{port}", info.host, port
            finally:
                with info.scope():
                    get_user_model().objects.filter(username=WHO[0]).delete()  # keys cascade


def _signed_in(browser: Any, base: str, viewport: dict[str, int]) -> Any:
    page = signed_in_page(
        browser,
        base,
        WHO,
        "/account/tokens/",
        viewport=viewport,
        timeout=30_000,
        wait_url="**/account/tokens/",
    )
    # the Copy button writes the secret to the clipboard, which the test reads back
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
    return page


def _use(server: tuple[str, str, int], secret: str) -> int:
    """A script's call with the key (to the loopback server, with the tenant's Host)."""
    _, host, port = server
    response = httpx2.get(
        f"http://127.0.0.1:{port}/api/auth/me",
        headers={"Host": host, "Authorization": f"Token {secret}"},
        timeout=30,
    )
    return response.status_code


def _create(page: Any, name: str, *, chat: bool) -> str:
    page.fill("#id_name", name)
    if chat:
        page.get_by_label("Chat", exact=True).check()
    page.get_by_role("button", name="Create key").click()
    field = page.locator("#new-key-secret")
    field.wait_for()
    return str(field.input_value())


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_create_see_once_list_use_and_revoke_a_key(browser, server, viewport):
    base = server[0]
    name = f"nightly export {viewport['width']}"
    page = _signed_in(browser, base, viewport)
    assert page.get_by_text("You have no API keys yet.").is_visible()

    secret = _create(page, name, chat=True)
    assert SECRET.match(secret), secret
    assert "shown only this once" in page.locator("#new-key").inner_text()
    assert page.evaluate("document.activeElement.id") == "new-key-secret"
    page.get_by_role("button", name="Copy").click()
    page.get_by_role("button", name="Copied").wait_for()
    assert page.evaluate("navigator.clipboard.readText()") == secret

    row = page.locator("table.keys tbody tr", has_text=name)
    assert row.count() == 1
    assert secret[:12] in row.inner_text()
    assert "Read and search, Chat" in row.inner_text()
    assert "never" in row.locator("[data-label='Last used']").inner_text()
    # the page fits the screen: nothing to scroll sideways
    assert page.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth")
    screenshot(page, "api-keys-phone" if viewport == PHONE else "api-keys-desktop")
    assert axe_blocking(page) == []

    assert _use(server, secret) == 200
    page.reload()
    assert secret not in page.content()  # shown once, never again
    row = page.locator("table.keys tbody tr", has_text=name)
    assert re.search(
        r"\d{4}-\d\d-\d\d \d\d:\d\d", row.locator("[data-label='Last used']").inner_text()
    )

    page.once("dialog", lambda dialog: dialog.accept())
    row.get_by_role("button", name=f"Revoke the key {name}").click()
    page.get_by_text(f"Key “{name}” revoked.").wait_for()
    assert page.locator("table.keys tbody tr", has_text=name).count() == 0
    assert page.get_by_text("You have no API keys yet.").is_visible()
    assert _use(server, secret) == 401
    assert axe_blocking(page) == []
    assert page.errors == []


def test_a_form_error_is_shown_next_to_its_field(browser, server):
    page = _signed_in(browser, server[0], DESKTOP)
    page.get_by_label("Read and search").uncheck()
    page.fill("#id_name", "no scopes")
    page.get_by_role("button", name="Create key").click()
    error = page.locator("#key-scopes-error")
    error.wait_for()
    assert error.inner_text() == "Choose at least one scope."
    assert page.locator("#new-key-secret").count() == 0
    assert page.input_value("#id_name") == "no scopes"
    assert axe_blocking(page) == []
    assert page.errors == []
