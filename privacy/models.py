"""The people whose personal data a tenant admin can export or erase (no table of its own)."""

from __future__ import annotations

from django.contrib.auth.models import User


class DataSubject(User):
    """A user of the tenant, seen from the personal-data console."""

    class Meta:
        proxy = True
        verbose_name = "person (personal data)"
        verbose_name_plural = "people (personal data)"
