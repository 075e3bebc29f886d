"""Forms of the account pages."""

from __future__ import annotations

from django import forms

from portal.access.models import KeyScope
from portal.access.tokens import API_KEY_NAME_MAX


class ApiKeyForm(forms.Form):
    """A new named API key: what it is for, and what it may do."""

    name = forms.CharField(
        label="Name",
        max_length=API_KEY_NAME_MAX,
        help_text="Where the key is used, e.g. “nightly export” or “laptop assistant”.",
    )
    scopes = forms.MultipleChoiceField(
        label="Scopes",
        choices=KeyScope.choices,
        widget=forms.CheckboxSelectMultiple,
        initial=[KeyScope.READ],
        error_messages={"required": "Choose at least one scope."},
    )
