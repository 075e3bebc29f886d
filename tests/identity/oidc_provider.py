"""A real OpenID Connect provider for the identity tests (django-oauth-toolkit, run as a
process of its own by `tests/identity/provider/serve.py`), and a client that signs in there
as a browser would."""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urljoin, urlsplit

import requests

from tests.live import server_process


@dataclass(frozen=True)
class Provider:
    base: str

    @property
    def issuer(self) -> str:
        return f"{self.base}/o"

    def requests_to(self, marker: str) -> int:
        """How many requests the provider has served on paths containing `marker`."""
        counts = requests.get(f"{self.base}/test/requests", timeout=30).json()
        return sum(count for path, count in counts.items() if marker in path)

    def discovery_requests(self) -> int:
        return self.requests_to("openid-configuration")

    def jwks_requests(self) -> int:
        return self.requests_to("jwks")

    def rotate_key(self) -> None:
        """The provider signs with a new key from now on (the old one published as inactive)."""
        requests.post(f"{self.base}/test/rotate-key", timeout=30).raise_for_status()


@contextmanager
def provider_process(
    *, users: list[dict[str, Any]], clients: list[dict[str, Any]]
) -> Iterator[Provider]:
    """Serve a provider with these users and clients (see serve.py) on a free port."""
    with tempfile.NamedTemporaryFile("w", suffix=".json") as fixture:
        json.dump({"users": users, "clients": clients}, fixture)
        fixture.flush()
        command = [sys.executable, "-m", "tests.identity.provider.serve", "{port}", fixture.name]
        with server_process(command, host="127.0.0.1", env=_env()) as base:
            yield Provider(base=base)


def _env() -> dict[str, str]:
    import os

    return {key: value for key, value in os.environ.items() if key != "DJANGO_SETTINGS_MODULE"}


def provider_sign_in(authorize_url: str, username: str, password: str) -> str:
    """Follow `authorize_url` at the provider, signing in as `username`: the URL the provider
    sends the browser back to (the portal's callback with code and state, or an error)."""
    session = requests.Session()
    response = session.get(authorize_url, allow_redirects=False, timeout=30)
    assert response.status_code == 302, response.text[:500]
    login_url = urljoin(authorize_url, response.headers["Location"])
    next_url = parse_qs(urlsplit(login_url).query)["next"][0]
    response = session.post(
        login_url.split("?")[0],
        data={"username": username, "password": password, "next": next_url},
        allow_redirects=False,
        timeout=30,
    )
    assert response.status_code == 302, response.text[:500]
    response = session.get(
        urljoin(authorize_url, response.headers["Location"]), allow_redirects=False, timeout=30
    )
    assert response.status_code == 302, response.text[:500]
    return str(response.headers["Location"])


def path_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}"
