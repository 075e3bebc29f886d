"""The tenant's sign-in settings in the console: superusers only, the client secret write-only
and encrypted at rest, the issuer checked against the provider on save, the audit read-only."""

from __future__ import annotations

import pytest

from portal.identity.models import EventKind, IdentityEvent, IdentityProvider
from portal.secrets import decrypt
from tests.conftest import make_user
from tests.identity.conftest import configure

pytestmark = pytest.mark.django_db

ADD_URL = "/admin/identity/identityprovider/add/"


def form(provider, **changes) -> dict[str, str]:
    data = {
        "name": "Acme SSO",
        "issuer": provider.issuer,
        "client_id": "alpha-client",
        "client_secret": "the-client-secret",
        "enabled": "on",
        "allow_user_creation": "on",
        "passwords_allowed": "on",
        "groups_claim": "groups",
    }
    data.update(changes)
    return {key: value for key, value in data.items() if value is not None}


@pytest.fixture
def admin_client(alpha):
    root = make_user(alpha, "root", superuser=True)
    client = alpha.client()
    client.force_login(root)
    return client


def test_a_superuser_sets_the_provider_and_its_secret_is_stored_encrypted(
    alpha, admin_client, provider_a
):
    response = admin_client.post(ADD_URL, form(provider_a))

    assert response.status_code == 302, response.content.decode()[:2000]
    saved = IdentityProvider.objects.get()
    assert "the-client-secret" not in saved.client_secret_encrypted
    assert decrypt(saved.client_secret_encrypted) == "the-client-secret"
    change_page = admin_client.get(f"/admin/identity/identityprovider/{saved.pk}/change/")
    assert "the-client-secret" not in change_page.content.decode()
    assert saved.client_secret_encrypted not in change_page.content.decode()
    # an empty secret on change keeps the stored one
    admin_client.post(
        f"/admin/identity/identityprovider/{saved.pk}/change/",
        form(provider_a, client_secret="", name="Acme"),
    )
    saved.refresh_from_db()
    assert saved.name == "Acme" and decrypt(saved.client_secret_encrypted) == "the-client-secret"
    assert IdentityEvent.objects.filter(kind=EventKind.SETTINGS_CHANGED).count() == 2
    # one provider per tenant
    assert admin_client.get(ADD_URL).status_code == 403


def test_a_wrong_issuer_or_a_missing_secret_is_a_clear_form_error(alpha, admin_client, provider_a):
    wrong = admin_client.post(ADD_URL, form(provider_a, issuer=provider_a.issuer + "/"))
    plain_http = admin_client.post(ADD_URL, form(provider_a, issuer="http://idp.example.com/o"))
    no_secret = admin_client.post(ADD_URL, form(provider_a, client_secret=""))

    assert "correct the issuer" in wrong.content.decode()
    assert "The issuer must be an https:// URL." in plain_http.content.decode()
    assert "Enter the client secret" in no_secret.content.decode()
    assert not IdentityProvider.objects.exists()


def test_project_admins_cannot_see_the_sign_in_settings(alpha, provider_a):
    configure(provider_a)
    boss = make_user(alpha, "boss", projects={"docs": "admin"})
    client = alpha.client()
    client.force_login(boss)

    assert client.get("/admin/identity/identityprovider/").status_code == 403
    assert client.get("/admin/identity/grouprolemapping/").status_code == 403
    assert client.get("/admin/identity/identityevent/").status_code == 403
    assert "Sign-in and provisioning" not in client.get("/admin/").content.decode()


def test_the_audit_lists_sign_ins_and_failures_read_only(alpha, admin_client):
    make_user(alpha, "dana", password="pw-secret-123")
    alpha.client().post("/login/", {"username": "dana", "password": "wrong"})
    alpha.client().post("/login/", {"username": "dana", "password": "pw-secret-123"})

    page = admin_client.get("/admin/identity/identityevent/").content.decode()

    assert "Sign-in failed" in page and "Signed in" in page and "dana" in page
    event = IdentityEvent.objects.first()
    assert event is not None
    assert (
        admin_client.post(
            f"/admin/identity/identityevent/{event.pk}/delete/", {"post": "yes"}
        ).status_code
        == 403
    )


def test_the_mapping_is_edited_in_the_console(alpha, admin_client):
    from portal.access.services import project_ensure

    docs = project_ensure(key="docs")
    response = admin_client.post(
        "/admin/identity/grouprolemapping/add/",
        {"group": "eng", "project": str(docs.pk), "role": "editor"},
    )

    assert response.status_code == 302
    assert "eng" in admin_client.get("/admin/identity/grouprolemapping/").content.decode()
