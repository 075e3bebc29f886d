"""Fixtures for the knowledge-base tests."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    """PBKDF2 at production cost dominates API tests that create users; MD5 is fine here."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
