"""Every URL of a tenant host is routed exactly once: no app overrides another by include order."""

from __future__ import annotations

from collections import Counter

from django.urls import URLPattern, URLResolver, get_resolver


def _routes(patterns: list, prefix: str = "") -> list[str]:
    routes: list[str] = []
    for entry in patterns:
        if isinstance(entry, URLResolver):
            routes += _routes(entry.url_patterns, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern):
            routes.append(prefix + str(entry.pattern))
    return routes


def test_no_route_is_shadowed():
    counts = Counter(_routes(get_resolver("portal.urls").url_patterns))
    assert "api/kb/documents/<int:document_id>" in counts
    assert [route for route, count in counts.items() if count > 1] == []
