"""API tokens and named API keys: issue, expiry, listing, last use and revocation by their
owner (one home for the token rules).

The password token (`POST /api/auth/token`, DRF's `Token`) is one per user and may do anything
the user may. Named keys are several per user, each with a name and scopes; only a hash of
their secret is stored.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.http import Http404
from django.utils import timezone
from rest_framework.authtoken.models import Token

from portal.access.models import AnyUser, ApiKey, KeyScope
from portal.tenants.selectors import current_schema

logger = logging.getLogger(__name__)

PREFIX_CHARS = 8
# A named key's secret: this marker, then 32 random bytes (URL-safe base64). The marker tells a
# key from a password token (40 hex digits) and makes a leaked key easy for scanners to spot.
API_KEY_MARKER = "gwk_"
API_KEY_PREFIX_CHARS = len(API_KEY_MARKER) + PREFIX_CHARS
API_KEY_NAME_MAX = ApiKey._meta.get_field("name").max_length or 100
# Enough for every machine and script of one person; a bound on what one account can pile up.
API_KEYS_PER_USER = 50
# Last use is a date for people, not an access log: one write a minute per key at most.
LAST_USED_RESOLUTION = timedelta(minutes=1)


@dataclass(frozen=True, kw_only=True)
class TokenInfo:
    """What an owner sees of a token: never the secret, only its first characters."""

    prefix: str
    created: datetime
    expires_at: datetime | None


@dataclass(frozen=True, kw_only=True)
class ApiKeyInfo:
    """What an owner sees of a named key: never the secret, only its first characters."""

    id: int
    name: str
    prefix: str
    scopes: list[str]
    scope_labels: list[str]
    created: datetime
    last_used_at: datetime | None
    expires_at: datetime | None
    expired: bool


class ApiKeyError(ValueError):
    """A key that cannot be created, with the form field at fault and a message for its owner."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


def token_expires_at(token: Token | ApiKey) -> datetime | None:
    """When a password token or a named key stops working (API_TOKEN_TTL_DAYS after it was
    issued), None if never."""
    days = int(settings.API_TOKEN_TTL_DAYS)
    return token.created + timedelta(days=days) if days > 0 else None


def token_is_expired(token: Token | ApiKey) -> bool:
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


def api_key_hash(secret: str) -> str:
    """What is stored of a key's secret (and looked up when it is presented)."""
    return hashlib.sha256(secret.encode()).hexdigest()


@transaction.atomic
def api_key_create(*, user: AnyUser, name: str, scopes: Iterable[str]) -> tuple[ApiKey, str]:
    """A new named key of the user with `scopes`; returns it with its secret, which is stored
    nowhere (only its hash) and cannot be shown again. ApiKeyError for a bad name or scopes."""
    owner_id = _owner_id(user)
    name = name.strip()
    if not name:
        raise ApiKeyError("name", "Give the key a name.")
    if len(name) > API_KEY_NAME_MAX:
        raise ApiKeyError("name", f"A key name has at most {API_KEY_NAME_MAX} characters.")
    wanted = set(scopes)
    if not wanted or not wanted <= set(KeyScope.values):
        raise ApiKeyError("scopes", "Choose at least one scope: " + ", ".join(KeyScope.labels))
    owned = ApiKey.objects.select_for_update().filter(user_id=owner_id)
    if len(owned) >= API_KEYS_PER_USER:  # locked: two requests cannot both take the last one
        raise ApiKeyError("name", f"You have {API_KEYS_PER_USER} keys; revoke one first.")
    secret = API_KEY_MARKER + secrets.token_urlsafe(32)
    try:
        with transaction.atomic():
            key = ApiKey.objects.create(
                user_id=owner_id,
                name=name,
                prefix=secret[:API_KEY_PREFIX_CHARS],
                key_hash=api_key_hash(secret),
                scopes=[scope for scope in KeyScope.values if scope in wanted],
            )
    except IntegrityError as exc:  # the unique (user, name)
        raise ApiKeyError("name", f"You already have a key named “{name}”.") from exc
    logger.info(
        "api key %s… created for user %s in %s, scopes %s",
        key.prefix,
        owner_id,
        current_schema(),
        ",".join(key.scopes),
    )
    return key, secret


def api_key_list(*, user: AnyUser) -> list[ApiKeyInfo]:
    """The user's named keys (name, prefix, scopes, created, last used, expiry), newest first."""
    labels = dict(KeyScope.choices)
    now = timezone.now()
    infos = []
    for key in ApiKey.objects.filter(user_id=_owner_id(user)).order_by("-created", "-id"):
        expires_at = token_expires_at(key)
        infos.append(
            ApiKeyInfo(
                id=key.pk,
                name=key.name,
                prefix=key.prefix,
                scopes=list(key.scopes),
                scope_labels=[labels[scope] for scope in key.scopes],
                created=key.created,
                last_used_at=key.last_used_at,
                expires_at=expires_at,
                expired=expires_at is not None and expires_at <= now,
            )
        )
    return infos


def api_key_revoke(*, user: AnyUser, key_id: int) -> ApiKey:
    """Delete the user's key `key_id` and return it; Http404 when they have none such."""
    key = ApiKey.objects.filter(user_id=_owner_id(user), pk=key_id).first()
    if key is None:
        raise Http404
    key.delete()
    logger.info("api key %s… revoked by user %s in %s", key.prefix, key.user_id, current_schema())
    return key


def api_key_find(secret: str) -> ApiKey | None:
    """The key whose secret this is (with its user), None for any other string."""
    if not secret.startswith(API_KEY_MARKER):
        return None
    return ApiKey.objects.select_related("user").filter(key_hash=api_key_hash(secret)).first()


def api_key_touch(key: ApiKey) -> None:
    """Record that `key` was used now, at most once per LAST_USED_RESOLUTION: a request within
    it writes nothing, and of concurrent ones past it only the first UPDATE matches a row."""
    now = timezone.now()
    if key.last_used_at is not None and now - key.last_used_at < LAST_USED_RESOLUTION:
        return
    stale = Q(last_used_at__isnull=True) | Q(last_used_at__lte=now - LAST_USED_RESOLUTION)
    ApiKey.objects.filter(stale, pk=key.pk).update(last_used_at=now)
    key.last_used_at = now


def tokens_revoke_all(*, user: AnyUser) -> None:
    """Delete every token and named key of the user (a password change rotates them)."""
    owner_id = _owner_id(user)
    Token.objects.filter(user_id=owner_id).delete()
    revoked, _ = ApiKey.objects.filter(user_id=owner_id).delete()
    if revoked:
        logger.info(
            "%s api keys of user %s in %s revoked (password changed)",
            revoked,
            owner_id,
            current_schema(),
        )


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
        return "Changing the password revokes the account's API tokens and keys."
