"""The provider's URLs: OAuth 2 / OIDC under /o/, a plain sign-in form, a health check."""

from __future__ import annotations

from django.contrib.auth import authenticate, login
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
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


urlpatterns = [
    path("o/", include("oauth2_provider.urls", namespace="oauth2_provider")),
    path("accounts/login/", sign_in),
    path("healthz", lambda request: HttpResponse("ok")),
]
