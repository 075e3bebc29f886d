"""DRF throttles on the shared, tenant-keyed counters of portal.ratelimit."""

from __future__ import annotations

from typing import Any

from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle

from portal import ratelimit


class TenantRateThrottle(BaseThrottle):
    """A fixed-window throttle counted in the shared cache, keyed by tenant, scope and caller.

    The rate is the `scope` entry of DEFAULT_THROTTLE_RATES, read on every request.
    """

    scope: str | None = None
    retry_after: int | None = None

    def scope_for(self, view: Any) -> str | None:
        return self.scope

    def allow_request(self, request: Request, view: Any) -> bool:
        scope = self.scope_for(view)
        rate = ratelimit.rate_for(scope) if scope else None
        if rate is None:
            return True
        limit, window = rate
        allowed, self.retry_after = ratelimit.hit(
            f"throttle:{scope}:{ratelimit.throttle_ident(request)}",
            limit=limit,
            window_seconds=window,
        )
        return allowed

    def wait(self) -> float | None:
        return self.retry_after


class ScopedThrottle(TenantRateThrottle):
    """The rate named by the view's `throttle_scope` (DRF's ScopedRateThrottle, shared)."""

    def scope_for(self, view: Any) -> str | None:
        return getattr(view, "throttle_scope", None)
