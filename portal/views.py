"""Pages of the portal shell: public landing page, tenant home."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse

from portal import ratelimit


class LoginView(auth_views.LoginView):
    """The tenant's sign-in page, with failed attempts rate-limited per address and username."""

    template_name = "portal/login.html"
    redirect_authenticated_user = True

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


def healthz(request: HttpRequest) -> HttpResponse:
    """Liveness probe for load balancers."""
    return HttpResponse("ok", content_type="text/plain")
