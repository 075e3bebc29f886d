"""Secrets at rest: encrypted with the configured keys, rotated, refused when unreadable."""

from __future__ import annotations

import pytest
from cryptography.fernet import Fernet
from django.core.exceptions import ImproperlyConfigured

from portal import secrets


def test_a_secret_round_trips_and_is_not_stored_in_the_clear(settings) -> None:
    settings.ENCRYPTION_KEYS = [Fernet.generate_key().decode()]
    stored = secrets.encrypt("client-secret-123")
    assert "client-secret-123" not in stored
    assert secrets.decrypt(stored) == "client-secret-123"


def test_rotation_reads_old_secrets_with_the_old_key(settings) -> None:
    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    settings.ENCRYPTION_KEYS = [old]
    stored = secrets.encrypt("s3cret")
    settings.ENCRYPTION_KEYS = [new, old]
    assert secrets.decrypt(stored) == "s3cret"
    settings.ENCRYPTION_KEYS = [new]
    with pytest.raises(secrets.SecretUnreadable, match="enter it again"):
        secrets.decrypt(stored)


def test_production_without_keys_refuses_to_store_a_secret(settings) -> None:
    settings.ENCRYPTION_KEYS = []
    settings.DEBUG = False
    settings.TESTING = False
    with pytest.raises(ImproperlyConfigured, match="ENCRYPTION_KEYS must be set"):
        secrets.encrypt("x")


def test_a_malformed_key_is_a_clear_configuration_error(settings) -> None:
    settings.ENCRYPTION_KEYS = ["not-a-key"]
    with pytest.raises(ImproperlyConfigured, match="Fernet keys"):
        secrets.encrypt("x")
