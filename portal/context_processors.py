"""Template context every page needs."""

from __future__ import annotations

from django.http import HttpRequest

from portal.admin_site import site


def navigation(request: HttpRequest) -> dict[str, object]:
    """Whether to offer the curation console in the navigation (editors and superusers)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"can_curate": False}
    return {"can_curate": lambda: site.has_permission(request)}
