"""A small fixed-window failure counter for login attempts (per client address and username)."""

from __future__ import annotations

import hashlib

from django.core.cache import cache
from django.db import connection
from django.http import HttpRequest


def _key(request: HttpRequest, username: str) -> str:
    address = request.META.get("REMOTE_ADDR", "")
    raw = f"{getattr(connection, 'schema_name', '')}|{address}|{username.strip().lower()}"
    return "login-fail:" + hashlib.sha256(raw.encode()).hexdigest()


def login_blocked(request: HttpRequest, username: str, *, limit: int) -> bool:
    """True when this address has failed to log in as `username` `limit` times this window."""
    return int(cache.get(_key(request, username), 0)) >= limit


def login_failed(request: HttpRequest, username: str, *, window_seconds: int) -> None:
    """Count one failed attempt; the count expires `window_seconds` after the first failure."""
    key = _key(request, username)
    if cache.add(key, 1, timeout=window_seconds):
        return
    try:
        cache.incr(key)
    except ValueError:
        cache.set(key, 1, timeout=window_seconds)


def login_succeeded(request: HttpRequest, username: str) -> None:
    cache.delete(_key(request, username))
