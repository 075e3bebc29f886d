"""Pages of the portal shell: public landing page, tenant home."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import AuthenticationForm
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.http import require_POST

from portal import ratelimit
from portal.access import tokens
from portal.access.selectors import project_list_visible


class LoginView(auth_views.LoginView):
    """The tenant's sign-in page, with failed attempts rate-limited per address and username."""

    template_name = "portal/login.html"
    redirect_authenticated_user = True

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
        ratelimit.login_failed(
            self.request,
            self.request.POST.get("username", ""),
            window_seconds=settings.LOGIN_FAILURE_WINDOW,
        )
        return super().form_invalid(form)

    def form_valid(self, form: AuthenticationForm) -> HttpResponse:
        ratelimit.login_succeeded(self.request, form.get_user().get_username())
        return super().form_valid(form)


def landing(request: HttpRequest) -> HttpResponse:
    """Public host: what Groundwork is. Lists no tenants."""
    return TemplateResponse(request, "portal/landing.html", {})


@login_required
def home(request: HttpRequest) -> HttpResponse:
    """Tenant home: the projects the user belongs to and where to go next."""
    return TemplateResponse(
        request, "portal/home.html", {"projects": project_list_visible(user=request.user)}
    )


@login_required
def token_page(request: HttpRequest) -> HttpResponse:
    """The user's API tokens: issued, expires, revoke."""
    return TemplateResponse(
        request, "portal/tokens.html", {"tokens": tokens.token_list(user=request.user)}
    )


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
