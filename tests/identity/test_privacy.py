"""The sign-in audit and the provider link in a person's data export, and gone on erasure."""

from __future__ import annotations

import pytest

from portal.identity import services
from portal.identity.models import EventSource, ExternalIdentity, IdentityEvent
from privacy.services import user_data_export, user_erase
from tests.conftest import make_user

pytestmark = pytest.mark.django_db


def test_export_holds_the_persons_sign_ins_provisioning_and_link_and_erase_removes_them(alpha):
    kim = make_user(alpha, "kim", password="pw-secret-123")
    make_user(alpha, "lou", password="pw-secret-123")
    ExternalIdentity.objects.create(user=kim, issuer="https://idp.test", subject="sub-kim")
    alpha.client().post("/login/", {"username": "kim", "password": "wrong"})
    alpha.client().post("/login/", {"username": "kim", "password": "pw-secret-123"})
    alpha.client().post("/login/", {"username": "lou", "password": "pw-secret-123"})
    services.user_deactivate(user=kim, source=EventSource.SCIM)

    export = user_data_export(user=kim)

    assert [link["subject"] for link in export["identity"]["links"]] == ["sub-kim"]
    assert [(e["event"], e["through"]) for e in export["sign_in_audit"]] == [
        ("Sign-in failed", "Password"),
        ("Signed in", "Password"),
        ("Account deactivated", "SCIM provisioning"),
    ]
    assert "lou" not in str(export["sign_in_audit"])

    user_erase(user=kim)

    assert not IdentityEvent.objects.filter(username="kim").exists()
    assert IdentityEvent.objects.filter(username="lou").exists()
