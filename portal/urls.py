"""URLs of a tenant host."""

from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularSwaggerSplitView,
)

from portal import api, views
from portal.admin_site import site as admin_site
from portal.identity import views as identity_views

urlpatterns = [
    path("", include("chat.urls_start")),
    path("healthz", views.healthz, name="healthz"),
    path("login/", views.LoginView.as_view(), name="login"),
    path("login/oidc/", identity_views.oidc_start, name="oidc-start"),
    path("login/oidc/callback", identity_views.oidc_callback, name="oidc-callback"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin_site.urls),
    path("api/auth/token", api.TokenObtainApi.as_view(), name="api-token"),
    path("api/auth/me", api.MeApi.as_view(), name="api-me"),
    path("api/auth/tokens", api.TokenListApi.as_view(), name="api-tokens"),
    path("api/auth/tokens/<str:prefix>", api.TokenRevokeApi.as_view(), name="api-token-revoke"),
    path("account/tokens/", views.token_page, name="tokens"),
    path("account/tokens/<str:prefix>/revoke", views.token_revoke, name="token-revoke"),
    path("account/tokens/keys/", views.api_key_create, name="api-key-create"),
    path("account/tokens/keys/<int:key_id>/revoke", views.api_key_revoke, name="api-key-revoke"),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # Swagger UI's start script as a file of its own (?script): the CSP allows no inline script
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/redoc/", views.RedocView.as_view(url_name="api-schema"), name="api-redoc"),
    path("api/redoc/redoc.standalone.js", views.redoc_bundle, name="api-redoc-bundle"),
    path("api/", include("kb.urls")),
    path("api/", include("canonical.urls")),
    path("api/", include("chat.urls_api")),
    path("api/", include("sources.urls_api")),
    path("chat/", include("chat.urls")),
    path("", include("kb.urls_pages")),
    path("mcp/", include("integrations.urls")),
    path("scim/v2/", include("portal.identity.urls_scim")),
    path("", include("privacy.urls")),
    path("", include("sources.urls")),
]

# With DEBUG off: JSON under /api/ and /mcp/, the branded page elsewhere (portal.views).
handler400 = "portal.views.bad_request"
handler403 = "portal.views.permission_denied"
handler404 = "portal.views.page_not_found"
handler500 = "portal.views.server_error"
