"""URLs of the public host (no tenant)."""

from django.urls import path

from portal import views

urlpatterns = [
    path("", views.landing, name="landing"),
    path("healthz", views.healthz, name="healthz"),
]

# With DEBUG off: JSON under /api/ and /mcp/, the branded page elsewhere (portal.views).
handler400 = "portal.views.bad_request"
handler403 = "portal.views.permission_denied"
handler404 = "portal.views.page_not_found"
handler500 = "portal.views.server_error"
