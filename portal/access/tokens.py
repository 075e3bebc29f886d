"""API tokens: expiry, listing and revocation by their owner (one home for the token rules)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.http import Http404
from django.utils import timezone
from rest_framework.authtoken.models import Token

from portal.access.models import AnyUser

PREFIX_CHARS = 8


@dataclass(frozen=True, kw_only=True)
class TokenInfo:
    """What an owner sees of a token: never the secret, only its first characters."""

    prefix: str
    created: datetime
    expires_at: datetime | None


def token_expires_at(token: Token) -> datetime | None:
    """When `token` stops working (API_TOKEN_TTL_DAYS after it was issued), None if never."""
    days = int(settings.API_TOKEN_TTL_DAYS)
    return token.created + timedelta(days=days) if days > 0 else None


def token_is_expired(token: Token) -> bool:
    expires_at = token_expires_at(token)
    return expires_at is not None and expires_at <= timezone.now()


def _owner_id(user: AnyUser) -> int:
    # tokens belong to signed-in accounts only; an anonymous caller owns none
    if user.pk is None:
        raise Http404
    return int(user.pk)


def token_issue(*, user: AnyUser) -> Token:
    """The user's live token, or a new one when there is none or it has expired."""
    token = Token.objects.filter(user_id=_owner_id(user)).first()
    if token is not None and token_is_expired(token):
        token.delete()
        token = None
    return token or Token.objects.create(user_id=_owner_id(user))


def token_list(*, user: AnyUser) -> list[TokenInfo]:
    """The user's tokens (prefix, issue and expiry times), newest first."""
    return [
        TokenInfo(
            prefix=token.key[:PREFIX_CHARS],
            created=token.created,
            expires_at=token_expires_at(token),
        )
        for token in Token.objects.filter(user_id=_owner_id(user)).order_by("-created")
    ]


def token_revoke(*, user: AnyUser, prefix: str) -> None:
    """Delete the user's token starting with `prefix`; Http404 when they have none such."""
    if len(prefix) != PREFIX_CHARS:
        raise Http404
    deleted, _ = Token.objects.filter(user_id=_owner_id(user), key__startswith=prefix).delete()
    if not deleted:
        raise Http404


def tokens_revoke_all(*, user: AnyUser) -> None:
    """Delete every token of the user (a password change rotates them)."""
    Token.objects.filter(user_id=_owner_id(user)).delete()


class RevokeTokensOnPasswordChange:
    """A password "validator" that checks nothing: Django calls `password_changed` on every
    validator once a new password is saved (`set_password` then `save`), on every path: the
    console (a superuser's form and one's own), `changepassword`, `user_create`. That is the
    one place a password change revokes the user's API tokens. A hash upgrade at sign-in is
    not a change: Django does not call it then."""

    def validate(self, password: str, user: AnyUser | None = None) -> None:
        return None

    def password_changed(self, password: str, user: AnyUser | None = None) -> None:
        if user is not None and user.pk is not None:
            tokens_revoke_all(user=user)

    def get_help_text(self) -> str:
        return "Changing the password revokes the account's API tokens."
