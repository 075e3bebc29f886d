"""Secrets at rest: the one home for encrypting what a tenant configures (client secrets, tokens).

Fernet (AES-128-CBC + HMAC-SHA256) from `cryptography`. The keys come from the environment
(`ENCRYPTION_KEYS`, read in settings): the first key encrypts, every key decrypts, so an operator
rotates by putting a new key first and re-saving. Without keys, development and tests derive one
from `SECRET_KEY`; production refuses to store a secret until keys are set.
"""

from __future__ import annotations

import base64
import hashlib

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured


class SecretUnreadable(Exception):
    """A stored secret cannot be decrypted with the configured keys (rotated away or tampered)."""


def _cipher() -> MultiFernet:
    keys: list[str] = list(settings.ENCRYPTION_KEYS)
    if not keys:
        if not (settings.DEBUG or settings.TESTING):
            raise ImproperlyConfigured(
                "ENCRYPTION_KEYS must be set to store secrets: generate one with "
                '`python -c "from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())"`'
            )
        digest = hashlib.sha256(b"groundwork-secrets:" + settings.SECRET_KEY.encode()).digest()
        keys = [base64.urlsafe_b64encode(digest).decode()]
    try:
        return MultiFernet([Fernet(key.encode()) for key in keys])
    except ValueError as exc:
        raise ImproperlyConfigured(
            "ENCRYPTION_KEYS must be url-safe base64 Fernet keys (32 bytes each), comma-separated"
        ) from exc


def encrypt(plain: str) -> str:
    """The ciphertext of `plain`, as text to store in a column."""
    return _cipher().encrypt(plain.encode()).decode()


def decrypt(token: str) -> str:
    """The plain text of a stored secret; SecretUnreadable when no configured key opens it."""
    try:
        return _cipher().decrypt(token.encode()).decode()
    except InvalidToken as exc:
        raise SecretUnreadable(
            "a stored secret cannot be decrypted with ENCRYPTION_KEYS; enter it again"
        ) from exc
