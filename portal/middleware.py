"""Security headers for every response, and the sign-in redirect for page scripts."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlencode, urlsplit

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import resolve_url
from django.utils.http import url_has_allowed_host_and_scheme


class ContentSecurityPolicyMiddleware:
    """Adds the Content-Security-Policy header: scripts only from our own static files."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.policy = settings.CONTENT_SECURITY_POLICY

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if self.policy and "Content-Security-Policy" not in response:
            response["Content-Security-Policy"] = self.policy
        return response


class ScriptSignInMiddleware:
    """A request from a page's scripts (htmx, or the chat's stream, which sends the same
    `HX-Request` header) that meets an expired session must not get the sign-in page as a
    fragment. It gets 401 with `HX-Redirect` to the sign-in page, whose `next` is the page the
    person was on (`HX-Current-URL`, same host only), so htmx leaves for a full-page sign-in
    and comes back to where they were."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if request.headers.get("HX-Request") != "true" or response.status_code not in (301, 302):
            return response
        login = resolve_url(settings.LOGIN_URL)
        if urlsplit(response.get("Location", "")).path != login:
            return response
        here = urlsplit(request.headers.get("HX-Current-URL", ""))
        same_host = url_has_allowed_host_and_scheme(
            here.geturl(), allowed_hosts={request.get_host()}, require_https=request.is_secure()
        )
        back = (here.path + (f"?{here.query}" if here.query else "")) if same_host else "/"
        signed_out = HttpResponse("Your session has ended. Sign in again.", status=401)
        signed_out["HX-Redirect"] = f"{login}?{urlencode({'next': back or '/'})}"
        return signed_out
