"""The provider's URLs: OAuth 2 / OIDC under /o/, a plain sign-in form, a health check, and two
test hooks: the count of requests per path, and a rotation of the signing key."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from django.contrib.auth import authenticate, login
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.urls import include, path
from django.utils.html import escape
from django.views.decorators.csrf import csrf_exempt

FORM = """<!doctype html><html lang="en"><head><title>Test provider</title></head><body>
<main><h1>Test identity provider</h1><form method="post">
<label for="username">Username</label><input id="username" name="username">
<label for="password">Password</label><input id="password" name="password" type="password">
<input type="hidden" name="next" value="{next}"><button type="submit">Sign in</button>
</form></main></body></html>"""


@csrf_exempt  # a test fixture: the provider's own CSRF defence is not what is under test
def sign_in(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        user = authenticate(
            request, username=request.POST["username"], password=request.POST["password"]
        )
        if user is not None:
            login(request, user)
            return HttpResponseRedirect(request.POST.get("next") or "/")
        return HttpResponse("bad credentials", status=400)
    return HttpResponse(FORM.format(next=escape(request.GET.get("next", ""))))


REQUESTS: Counter[str] = Counter()
_LOCK = threading.Lock()


def count_requests(
    get_response: Callable[[HttpRequest], HttpResponse],
) -> Callable[..., HttpResponse]:
    """Middleware: count every request by path (the portal's calls to discovery and keys)."""

    def middleware(request: HttpRequest) -> HttpResponse:
        with _LOCK:
            REQUESTS[request.path] += 1
        return get_response(request)

    return middleware


def request_counts(request: HttpRequest) -> JsonResponse:
    with _LOCK:
        return JsonResponse(dict(REQUESTS))


@csrf_exempt
def rotate_key(request: HttpRequest) -> HttpResponse:
    """Sign with a new key from now on; the old one stays published as inactive (as a provider
    rotating its keys does), so the JWKS has a new `kid` the portal has not seen."""
    from oauth2_provider.settings import oauth2_settings

    old = oauth2_settings.OIDC_RSA_PRIVATE_KEY
    new = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    oauth2_settings.OIDC_RSA_PRIVATE_KEY = new.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    oauth2_settings.OIDC_RSA_PRIVATE_KEYS_INACTIVE = [old]
    return HttpResponse("rotated")


urlpatterns = [
    path("o/", include("oauth2_provider.urls", namespace="oauth2_provider")),
    path("accounts/login/", sign_in),
    path("healthz", lambda request: HttpResponse("ok")),
    path("test/requests", request_counts),
    path("test/rotate-key", rotate_key),
]
