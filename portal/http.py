"""Outbound HTTP to configured providers (embeddings, answers)."""

from __future__ import annotations

import urllib.request
from typing import Any


class _RefuseRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect surfaces as an HTTPError (3xx) instead of being followed: urllib would
    resend every header, the bearer key included, to whatever host the Location names."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_opener = urllib.request.build_opener(_RefuseRedirects)


def urlopen_no_redirect(request: urllib.request.Request, *, timeout: float) -> Any:
    """urllib's urlopen, minus redirects (see _RefuseRedirects)."""
    return _opener.open(request, timeout=timeout)
