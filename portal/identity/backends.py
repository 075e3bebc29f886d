"""Password sign-in, through Django's model backend, when the tenant allows it."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.backends import ModelBackend
from django.http import HttpRequest

from portal.identity.selectors import password_sign_in_allowed


class PasswordBackend(ModelBackend):
    """Django's backend, refusing passwords where the tenant signs people in through its
    identity provider (`password_sign_in_allowed`). Every password path (the sign-in page,
    `POST /api/auth/token`, the console) authenticates through here. An existing session is
    loaded as by Django's backend (an inactive user has none)."""

    def authenticate(
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> Any:
        user = super().authenticate(request, username=username, password=password, **kwargs)
        if user is not None and not password_sign_in_allowed(user):
            return None
        return user
