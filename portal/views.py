"""Pages of the portal shell: public landing page, sign-in, the API keys page."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.staticfiles import finders
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.cache import add_never_cache_headers
from django.views import defaults
from django.views.decorators.http import require_GET, require_POST
from drf_spectacular.views import SpectacularRedocView
from rest_framework.request import Request
from rest_framework.response import Response

from portal import ratelimit
from portal.access import tokens
from portal.access.forms import ApiKeyForm
from portal.identity import selectors as identity_selectors
from portal.identity import services as identity_services
from portal.identity.models import EventKind, EventSource


class LoginView(auth_views.LoginView):
    """The tenant's sign-in page: the identity provider's button and/or the password form (as
    the tenant says), failed attempts rate-limited per address and username, sign-ins and
    failures audited."""

    template_name = "portal/login.html"
    redirect_authenticated_user = True

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["sign_in"] = identity_selectors.sign_in_options()
        return context

    def get_redirect_url(self, request: HttpRequest | None = None) -> str:
        """Django's safe `next`, minus one pointing back at this page (a redirect loop, which
        Django raises as a 500 for a signed-in user)."""
        target = super().get_redirect_url()
        return "" if target and target.split("?", 1)[0] == self.request.path else target

    def post(self, request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
        username = request.POST.get("username", "")
        if ratelimit.login_blocked(request, username, limit=settings.LOGIN_FAILURE_LIMIT):
            form = self.get_form()
            form.errors.clear()
            response = self.render_to_response(
                self.get_context_data(
                    form=form,
                    rate_limited=True,
                    retry_minutes=max(1, settings.LOGIN_FAILURE_WINDOW // 60),
                )
            )
            response.status_code = 429
            return response
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form: AuthenticationForm) -> HttpResponse:
        username = self.request.POST.get("username", "")
        ratelimit.login_failed(self.request, username, window_seconds=settings.LOGIN_FAILURE_WINDOW)
        identity_services.sign_in_failed(
            source=EventSource.PASSWORD,
            reason="bad_credentials",
            username=username[:150],
            request=self.request,
        )
        return super().form_invalid(form)

    def form_valid(self, form: AuthenticationForm) -> HttpResponse:
        user = form.get_user()
        ratelimit.login_succeeded(self.request, user.get_username())
        identity_services.event_record(
            kind=EventKind.SIGN_IN, source=EventSource.PASSWORD, user=user, request=self.request
        )
        return super().form_valid(form)


def landing(request: HttpRequest) -> HttpResponse:
    """Public host: what Groundwork is. Lists no tenants."""
    return TemplateResponse(request, "portal/landing.html", {})


TOKENS_PAGE = "portal/tokens.html"


def _keys_response(request: HttpRequest, *, status: int = 200, **context: Any) -> HttpResponse:
    """The API keys page, or its `api-keys` fragment for htmx, with the user's keys and tokens."""
    context.setdefault("form", ApiKeyForm())
    context["keys"] = tokens.api_key_list(user=request.user)
    context["tokens"] = tokens.token_list(user=request.user)
    if request.htmx:  # type: ignore[attr-defined]  # django-htmx's middleware
        # htmx swaps only successful responses: an error is shown inside a 200
        return TemplateResponse(request, f"{TOKENS_PAGE}#api-keys", context)
    return TemplateResponse(request, TOKENS_PAGE, context, status=status)


@login_required
@require_GET
def token_page(request: HttpRequest) -> HttpResponse:
    """The user's named API keys (create, list, revoke) and password tokens."""
    return _keys_response(request)


@login_required
@require_POST
def api_key_create(request: HttpRequest) -> HttpResponse:
    """Create a key and show its secret, this once; the form's errors otherwise (400)."""
    form = ApiKeyForm(request.POST)
    if form.is_valid():
        try:
            key, secret = tokens.api_key_create(
                user=request.user,
                name=form.cleaned_data["name"],
                scopes=form.cleaned_data["scopes"],
            )
        except tokens.ApiKeyError as exc:
            form.add_error(exc.field, exc.message)
        else:
            response = _keys_response(request, new_key=key, new_secret=secret)
            add_never_cache_headers(response)  # the secret must not stay in any cache
            return response
    return _keys_response(request, form=form, status=400)


@login_required
@require_POST
def api_key_revoke(request: HttpRequest, key_id: int) -> HttpResponse:
    """Revoke one of the user's keys (404 for anyone else's), back to the list."""
    key = tokens.api_key_revoke(user=request.user, key_id=key_id)
    notice = f"Key “{key.name}” revoked."
    if request.htmx:  # type: ignore[attr-defined]  # django-htmx's middleware
        return _keys_response(request, notice=notice)
    messages.success(request, notice)
    return HttpResponseRedirect(reverse("tokens"))


@login_required
@require_POST
def token_revoke(request: HttpRequest, prefix: str) -> HttpResponse:
    """Revoke one of the user's tokens (404 for anyone else's), back to the list."""
    tokens.token_revoke(user=request.user, prefix=prefix)
    messages.success(request, f"Token {prefix}… revoked.")
    return HttpResponseRedirect(reverse("tokens"))


def healthz(request: HttpRequest) -> HttpResponse:
    """Liveness probe for load balancers."""
    return HttpResponse("ok", content_type="text/plain")


REDOC_BUNDLE = "drf_spectacular_sidecar/redoc/bundles/redoc.standalone.js"
# Redoc's side menu shows this logo from Redocly's CDN, with no setting to turn it off. Without
# a source the image fails to load and Redoc hides it (its own onError).
REDOCLY_LOGO_URL = "https://cdn.redoc.ly/redoc/logo-mini.svg"


@cache
def _redoc_bundle_source() -> bytes:
    path = finders.find(REDOC_BUNDLE)
    if not isinstance(path, str):
        raise FileNotFoundError(REDOC_BUNDLE)
    return Path(path).read_bytes().replace(REDOCLY_LOGO_URL.encode(), b"")


@require_GET
def redoc_bundle(request: HttpRequest) -> HttpResponse:
    """Redoc's standalone bundle (drf-spectacular-sidecar) minus the logo it fetches from
    another host: the API docs pages request nothing outside the portal."""
    response = HttpResponse(_redoc_bundle_source(), content_type="application/javascript")
    response["Cache-Control"] = "public, max-age=86400"
    return response


class RedocView(SpectacularRedocView):
    """drf-spectacular's Redoc page (templates/drf_spectacular/redoc.html) with the portal's
    CSP plus `worker-src blob:`: Redoc builds its search worker from a blob of its own code
    (only a script already allowed to run can make one)."""

    def finalize_response(
        self, request: Request, response: Response, *args: object, **kwargs: object
    ) -> Response:
        response = super().finalize_response(request, response, *args, **kwargs)
        if settings.CONTENT_SECURITY_POLICY:
            response["Content-Security-Policy"] = (
                f"{settings.CONTENT_SECURITY_POLICY.rstrip('; ')}; worker-src 'self' blob:"
            )
        return response


# --- error handlers (handler400/403/404/500 of both URLconfs) ---------------------------------

# Paths whose clients read JSON: an error there is the API's body, elsewhere the branded page.
# Neither ever shows the exception, a path or a setting (with DEBUG on Django's own pages do).
JSON_PATH_PREFIXES = ("/api/", "/mcp/", "/scim/")


def _json_client(request: HttpRequest) -> bool:
    return request.path.startswith(JSON_PATH_PREFIXES)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """400: e.g. a body over Django's own limits, a suspicious request."""
    if _json_client(request):
        return JsonResponse({"detail": "Bad request."}, status=400)
    return defaults.bad_request(request, exception)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    if _json_client(request):
        detail = "You do not have permission to perform this action."
        return JsonResponse({"detail": detail}, status=403)
    return defaults.permission_denied(request, exception)


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """404: the API's one not-found body (no existence oracle), or the branded page."""
    if _json_client(request):
        return JsonResponse({"detail": "Not found."}, status=404)
    return defaults.page_not_found(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    if _json_client(request):
        return JsonResponse({"detail": "Server error; it has been logged."}, status=500)
    return defaults.server_error(request)
