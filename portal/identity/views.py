"""Sign-in through the tenant's OpenID Connect provider: the redirect there and the return."""

from __future__ import annotations

from django.contrib.auth import login
from django.contrib.auth.forms import AuthenticationForm
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import resolve_url
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET

from portal.identity import oidc, selectors, services
from portal.identity.models import EventSource, IdentityProvider
from portal.secrets import SecretUnreadable

SESSION_KEY = "oidc_pending"
# the backend a provider's sign-in is recorded under: it loads the session's user on every
# request, as for a password sign-in (an inactive user has none)
SESSION_BACKEND = "portal.identity.backends.PasswordBackend"


def _safe_next(request: HttpRequest, target: str) -> str:
    allowed = url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return target if allowed and target else ""


def _redirect_uri(request: HttpRequest) -> str:
    return request.build_absolute_uri(reverse("oidc-callback"))


def _refused(request: HttpRequest, error: oidc.SignInError, *, username: str = "") -> HttpResponse:
    """The sign-in page with the reason, after recording the failure."""
    services.sign_in_failed(
        source=EventSource.OIDC, reason=error.reason, username=username, request=request
    )
    status = 403 if error.reason in {"no_account", "inactive"} else 400
    return TemplateResponse(
        request,
        "portal/login.html",
        {
            "form": AuthenticationForm(request),
            "sign_in": selectors.sign_in_options(),
            "provider_error": error.message,
        },
        status=status,
    )


def _provider() -> tuple[IdentityProvider, oidc.ClientSettings]:
    """The tenant's enabled provider and its client settings; 404 when it has none."""
    provider = selectors.provider_enabled()
    if provider is None:
        raise Http404
    try:
        return provider, selectors.client_settings(provider)
    except SecretUnreadable as exc:
        raise oidc.SignInError("secret_unreadable", str(exc)) from exc


@require_GET
def oidc_start(request: HttpRequest) -> HttpResponse:
    """Send the browser to the tenant's provider with a fresh state, nonce and PKCE challenge."""
    try:
        _, client = _provider()
        url, pending = oidc.authorization_request(
            client,
            redirect_uri=_redirect_uri(request),
            next_url=_safe_next(request, request.GET.get("next", "")),
        )
    except oidc.SignInError as error:
        return _refused(request, error)
    request.session[SESSION_KEY] = pending.as_session()
    return HttpResponseRedirect(url)


@require_GET
def oidc_callback(request: HttpRequest) -> HttpResponse:
    """The provider's return: check the state, exchange the code, verify the ID token, sign the
    person in with their mapped roles; the sign-in page with the reason otherwise."""
    started = oidc.PendingSignIn.from_session(request.session.pop(SESSION_KEY, None))
    try:
        provider, client = _provider()
        pending = oidc.callback_check(started, request.GET)
        claims = oidc.code_exchange(
            client,
            redirect_uri=_redirect_uri(request),
            code=request.GET.get("code", ""),
            pending=pending,
        )
    except oidc.SignInError as error:
        return _refused(request, error)
    try:
        user = services.oidc_sign_in(provider=provider, claims=claims, request=request)
    except oidc.SignInError as error:
        return _refused(request, error, username=str(claims.get("email") or claims["sub"]))
    login(request, user, backend=SESSION_BACKEND)
    return HttpResponseRedirect(pending.next_url or resolve_url("home"))
