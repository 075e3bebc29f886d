"""Pages of the portal shell: public landing page, tenant home."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse

from portal.access.selectors import project_list_visible


def landing(request: HttpRequest) -> HttpResponse:
    """Public host: what Groundwork is. Lists no tenants."""
    return TemplateResponse(request, "portal/landing.html", {})


@login_required
def home(request: HttpRequest) -> HttpResponse:
    """Tenant home: the projects the user belongs to and where to go next."""
    return TemplateResponse(
        request, "portal/home.html", {"projects": project_list_visible(user=request.user)}
    )


def healthz(request: HttpRequest) -> HttpResponse:
    """Liveness probe for load balancers."""
    return HttpResponse("ok", content_type="text/plain")
