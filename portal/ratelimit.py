"""Rate limits on the shared cache: the client address rule, fixed-window counters keyed by
tenant schema, the login failure counter and the throttle on page views."""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse, HttpResponseBase

from portal.identity.models import ScimToken
from portal.tenants.selectors import current_schema


def client_address(request: HttpRequest) -> str:
    """The address every limiter counts: REMOTE_ADDR, unless the operator declared
    TRUSTED_PROXY_COUNT proxies, whose X-Forwarded-For entries (from the right) are trusted."""
    remote = request.META.get("REMOTE_ADDR", "")
    trusted = int(settings.TRUSTED_PROXY_COUNT)
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    if trusted <= 0 or not forwarded:
        return remote
    entries = [entry.strip() for entry in forwarded.split(",") if entry.strip()]
    if not entries:
        return remote
    # each trusted proxy appended the address it saw; anything further left is client-supplied
    return entries[-min(trusted, len(entries))]


def tenant_key(*parts: str) -> str:
    """A cache key unique to this tenant schema and `parts` (hashed: any input is a safe key)."""
    raw = "|".join((current_schema(), *parts))
    return hashlib.sha256(raw.encode()).hexdigest()


def hit(key: str, *, limit: int, window_seconds: int) -> tuple[bool, int]:
    """Count one request against `key` in the current fixed window.

    Returns (allowed, seconds until the window ends). The counter is atomic in the shared
    cache, so the limit holds across processes.
    """
    now = time.time()
    window = int(now // window_seconds)
    counter = f"rl:{tenant_key(key)}:{window}"
    count = _increment(counter, timeout=window_seconds + 1)
    retry_after = max(1, math.ceil((window + 1) * window_seconds - now))
    return count <= limit, retry_after


def _increment(key: str, *, timeout: int) -> int:
    # incr first: a live counter (the common case) is one locked read-modify-write
    try:
        return int(cache.incr(key))
    except ValueError:
        pass
    if cache.add(key, 1, timeout=timeout):
        return 1
    try:  # another process opened the counter between our incr and add
        return int(cache.incr(key))
    except ValueError:  # ...and it expired already: this hit opens a new count
        cache.set(key, 1, timeout=timeout)
        return 1


# --- login failures (sign-in page and token endpoint) -------------------------------------


def _login_key(request: HttpRequest, username: str) -> str:
    return "login-fail:" + tenant_key(client_address(request), username.strip().lower())


def login_blocked(request: HttpRequest, username: str, *, limit: int) -> bool:
    """True when this address has failed to log in as `username` `limit` times this window."""
    return int(cache.get(_login_key(request, username), 0)) >= limit


def login_failed(request: HttpRequest, username: str, *, window_seconds: int) -> None:
    """Count one failed attempt; the count expires `window_seconds` after the first failure."""
    _increment(_login_key(request, username), timeout=window_seconds)


def login_succeeded(request: HttpRequest, username: str) -> None:
    cache.delete(_login_key(request, username))


# --- throttles ------------------------------------------------------------------------------


PERIOD_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def rate_for(scope: str) -> tuple[int, int] | None:
    """(requests, window seconds) of `scope` in DEFAULT_THROTTLE_RATES ("20/min"), or None."""
    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    rate = rates.get(scope) if isinstance(rates, dict) else None
    if not rate:
        return None
    count, _, period = rate.partition("/")
    return int(count), PERIOD_SECONDS[period.strip()[:1]]


def throttle_ident(request: HttpRequest) -> str:
    """Who a throttle counts: the signed-in user, else the SCIM token (the identity provider,
    from whichever of its servers it calls), else the client address."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return f"user:{user.pk}"
    auth = getattr(request, "auth", None)  # a DRF request's authenticated token
    if isinstance(auth, ScimToken):
        return f"scim-token:{auth.pk}"
    return f"addr:{client_address(request)}"


def throttled(
    scope: str,
) -> Callable[[Callable[..., HttpResponseBase]], Callable[..., HttpResponseBase]]:
    """Page-view throttle sharing the API's rate and counter for `scope` (a 429 when over)."""

    def decorator(view: Callable[..., HttpResponseBase]) -> Callable[..., HttpResponseBase]:
        @wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
            rate = rate_for(scope)
            if rate is not None:
                limit, window = rate
                allowed, retry_after = hit(
                    f"throttle:{scope}:{throttle_ident(request)}",
                    limit=limit,
                    window_seconds=window,
                )
                if not allowed:
                    response = HttpResponse(
                        f"Too many requests. Try again in {retry_after} seconds.",
                        status=429,
                        content_type="text/plain",
                    )
                    response["Retry-After"] = str(retry_after)
                    return response
            return view(request, *args, **kwargs)

        return wrapped

    return decorator
