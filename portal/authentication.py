"""Token authentication with expiry (API_TOKEN_TTL_DAYS)."""

from __future__ import annotations

from typing import Any

from rest_framework.authentication import TokenAuthentication
from rest_framework.exceptions import AuthenticationFailed


class ExpiringTokenAuthentication(TokenAuthentication):
    """DRF's token authentication; an expired token is refused like an unknown one."""

    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        from portal.access.tokens import token_is_expired

        user, token = super().authenticate_credentials(key)
        if token_is_expired(token):
            raise AuthenticationFailed("Token has expired; get a new one from /api/auth/token.")
        return user, token
