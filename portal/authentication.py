"""Token authentication with expiry (API_TOKEN_TTL_DAYS) and the scopes of named API keys: the
one rule for every transport."""

from __future__ import annotations

from typing import Any

from rest_framework.authentication import TokenAuthentication
from rest_framework.exceptions import AuthenticationFailed, PermissionDenied
from rest_framework.permissions import BasePermission
from rest_framework.request import Request

# A view's `key_scopes` maps an HTTP method to the scope a named key needs for it, or to this:
# any key will do (e.g. `GET /api/auth/me`).
ANY_KEY = "any"


def token_authenticate(key: str) -> tuple[Any, Any]:
    """(user, credential) for a password token or a named API key of the current tenant;
    AuthenticationFailed for an unknown or expired one or an inactive user. A key's use is
    recorded (`api_key_touch`). The API, MCP over HTTP and `mcp_stdio` all authenticate
    through here."""
    from portal.access.tokens import API_KEY_MARKER, api_key_find, api_key_touch, token_is_expired

    if key.startswith(API_KEY_MARKER):
        api_key = api_key_find(key)
        if api_key is None:
            raise AuthenticationFailed("Invalid token.")  # DRF's words for an unknown token
        if not api_key.user.is_active:
            raise AuthenticationFailed("User inactive or deleted.")
        if token_is_expired(api_key):
            raise AuthenticationFailed("API key has expired; create a new one at /account/tokens/.")
        api_key_touch(api_key)
        return api_key.user, api_key
    user, token = TokenAuthentication().authenticate_credentials(key)  # unknown, inactive
    if token_is_expired(token):
        raise AuthenticationFailed("Token has expired; get a new one from /api/auth/token.")
    return user, token


def key_scope_check(credential: Any, scope: str | None) -> None:
    """The one rule of key scopes. PermissionDenied when `credential` is a named API key that
    lacks `scope` (a KeyScope value, or ANY_KEY), or when `scope` is None: no key may be used
    there (writes, the account's tokens and data). A session or the password token of
    `POST /api/auth/token` may do whatever its user may."""
    from portal.access.models import ApiKey, KeyScope

    if not isinstance(credential, ApiKey) or scope == ANY_KEY:
        return
    if scope is None:
        raise PermissionDenied(
            "API keys cannot be used here; sign in, or use a token from POST /api/auth/token."
        )
    if scope not in credential.scopes:
        label = KeyScope(scope).label
        raise PermissionDenied(
            {
                "detail": f"This API key does not have the {label} scope; create a key with it "
                "at /account/tokens/.",
                "required_scope": scope,
            }
        )


class ExpiringTokenAuthentication(TokenAuthentication):
    """DRF's token authentication through `token_authenticate`: an expired token is refused
    like an unknown one, and named API keys are accepted too."""

    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        return token_authenticate(key)


class KeyScopePermission(BasePermission):
    """Every API view's scope gate (a default permission class). The view names the scope a
    named key needs per method, `key_scopes = {"POST": KeyScope.CHAT}`; a method it does not
    name takes no named key at all."""

    def has_permission(self, request: Request, view: Any) -> bool:
        method = "GET" if request.method == "HEAD" else str(request.method)
        key_scope_check(request.auth, getattr(view, "key_scopes", {}).get(method))
        return True
