"""Token authentication with expiry (API_TOKEN_TTL_DAYS): the one rule for every transport."""

from __future__ import annotations

from typing import Any

from rest_framework.authentication import TokenAuthentication
from rest_framework.exceptions import AuthenticationFailed


def token_authenticate(key: str) -> tuple[Any, Any]:
    """(user, token) for an API token key of the current tenant; AuthenticationFailed for an
    unknown or expired token or an inactive user. The API, MCP over HTTP and `mcp_stdio` all
    authenticate through here."""
    from portal.access.tokens import token_is_expired

    user, token = TokenAuthentication().authenticate_credentials(key)  # unknown, inactive
    if token_is_expired(token):
        raise AuthenticationFailed("Token has expired; get a new one from /api/auth/token.")
    return user, token


class ExpiringTokenAuthentication(TokenAuthentication):
    """DRF's token authentication through `token_authenticate`: an expired token is refused
    like an unknown one."""

    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        return token_authenticate(key)
