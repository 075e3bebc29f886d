"""SCIM 2.0 per tenant, with the requests Okta and Azure AD (Entra ID) send: list with a
filter, create, PATCH `active` false (deactivation ends sessions, API tokens, keys and MCP at
once), groups whose membership gives project roles through the mapping."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model

from portal.access.models import Membership
from portal.access.services import project_ensure
from portal.access.tokens import api_key_create
from portal.identity import services
from portal.identity.models import EventKind, GroupRoleMapping, IdentityEvent, ScimToken
from tests.conftest import make_user, token_for

pytestmark = pytest.mark.django_db

SCIM = "application/scim+json"
PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp"


@pytest.fixture
def scim(alpha):
    """A client of alpha's SCIM endpoints with the tenant's token."""
    _, secret = services.scim_token_rotate(actor=None)
    client = alpha.client(HTTP_AUTHORIZATION=f"Bearer {secret}")
    client.secret = secret
    return client


def send(client, method: str, path: str, body: dict | None = None):
    return getattr(client, method)(
        "/scim/v2" + path, data=json.dumps(body) if body is not None else None, content_type=SCIM
    )


OKTA_USER = {
    "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
    "userName": "eve@acme.test",
    "name": {"givenName": "Eve", "familyName": "Ng"},
    "emails": [{"primary": True, "value": "eve@acme.test", "type": "work"}],
    "displayName": "Eve Ng",
    "locale": "en-US",
    "externalId": "00u1abcd",
    "groups": [],
    "password": "ignored-1!",
    "active": True,
}


def test_without_the_tenants_token_nothing_answers(alpha, beta, scim):
    assert alpha.client().get("/scim/v2/Users").status_code == 401
    wrong = alpha.client(HTTP_AUTHORIZATION="Bearer gws_not-the-token").get("/scim/v2/Users")
    assert wrong.status_code == 401
    assert wrong.json()["schemas"] == ["urn:ietf:params:scim:api:messages:2.0:Error"]
    # alpha's token means nothing at beta
    assert (
        beta.client(HTTP_AUTHORIZATION=f"Bearer {scim.secret}").get("/scim/v2/Users").status_code
        == 401
    )


def test_okta_looks_a_user_up_then_creates_them(alpha, scim):
    missing = scim.get(
        "/scim/v2/Users",
        {"filter": 'userName eq "eve@acme.test"', "startIndex": "1", "count": "100"},
    )
    assert missing.status_code == 200
    assert missing.json()["totalResults"] == 0 and missing.json()["Resources"] == []

    created = send(scim, "post", "/Users", OKTA_USER)

    assert created.status_code == 201, created.content
    assert created["Content-Type"].startswith(SCIM)
    body = created.json()
    assert (body["userName"], body["active"], body["name"]["givenName"]) == (
        "eve@acme.test",
        True,
        "Eve",
    )
    user = get_user_model().objects.get(pk=body["id"])
    assert user.email == "eve@acme.test" and not user.has_usable_password()
    found = scim.get("/scim/v2/Users", {"filter": 'userName eq "EVE@acme.test"'}).json()
    assert found["totalResults"] == 1 and found["Resources"][0]["id"] == body["id"]
    assert send(scim, "post", "/Users", OKTA_USER).json()["scimType"] == "uniqueness"
    assert IdentityEvent.objects.filter(kind=EventKind.USER_CREATED, user=user).exists()


def test_okta_deactivation_ends_the_session_tokens_keys_and_mcp_at_once(alpha, scim):
    user = make_user(alpha, "fay", projects={"docs": "reader"})
    browser = alpha.client()
    browser.force_login(user)
    token = token_for(alpha, user)
    _, key = api_key_create(user=user, name="laptop", scopes=["read", "mcp"])
    assert browser.get("/api/auth/me").status_code == 200
    assert alpha.client(HTTP_AUTHORIZATION=f"Token {key}").get("/api/auth/me").status_code == 200

    response = send(
        scim,
        "patch",
        f"/Users/{user.pk}",
        {
            "schemas": [PATCH_OP],
            "Operations": [{"op": "replace", "value": {"active": False}}],
        },
    )

    assert response.status_code == 200 and response.json()["active"] is False
    assert browser.get("/api/auth/me").status_code in (401, 403)
    assert browser.get("/chat/")["Location"].startswith("/login/")
    assert alpha.client(HTTP_AUTHORIZATION=f"Token {token}").get("/api/auth/me").status_code == 401
    assert alpha.client(HTTP_AUTHORIZATION=f"Token {key}").get("/api/auth/me").status_code == 401
    mcp = alpha.client(HTTP_AUTHORIZATION=f"Token {key}").post(
        "/mcp/",
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        content_type="application/json",
        HTTP_ACCEPT="application/json, text/event-stream",
    )
    assert mcp.status_code == 401
    event = IdentityEvent.objects.get(kind=EventKind.USER_DEACTIVATED)
    assert event.user == user and "1 session(s) ended" in event.detail


def test_azure_sends_active_as_a_string_with_a_path(alpha, scim):
    user = make_user(alpha, "gil")

    off = send(
        scim,
        "patch",
        f"/Users/{user.pk}",
        {
            "schemas": [PATCH_OP],
            "Operations": [{"op": "Replace", "path": "active", "value": "False"}],
        },
    )
    user.refresh_from_db()
    assert off.status_code == 200 and not user.is_active

    on = send(
        scim,
        "patch",
        f"/Users/{user.pk}",
        {
            "schemas": [PATCH_OP],
            "Operations": [
                {"op": "Replace", "path": "active", "value": "True"},
                {"op": "Replace", "path": "name.familyName", "value": "Lee"},
                {"op": "Replace", "path": 'emails[type eq "work"].value', "value": "gil@acme.test"},
            ],
        },
    )
    user.refresh_from_db()
    assert on.status_code == 200
    assert (user.is_active, user.last_name, user.email) == (True, "Lee", "gil@acme.test")


def test_group_membership_gives_and_takes_the_mapped_project_roles(alpha, scim):
    docs = project_ensure(key="docs")
    GroupRoleMapping.objects.create(group="eng", project=docs, role="editor")
    hal = make_user(alpha, "hal")
    ida = make_user(alpha, "ida")

    created = send(
        scim,
        "post",
        "/Groups",
        {
            "schemas": ["urn:ietf:params:scim:schemas:core:2.0:Group"],
            "displayName": "eng",
            "members": [{"value": str(hal.pk), "display": "hal"}],
        },
    )
    assert created.status_code == 201, created.content
    group_id = created.json()["id"]
    assert Membership.objects.get(user=hal, project=docs).role == "editor"

    # Okta: add, then remove with a filtered path
    send(
        scim,
        "patch",
        f"/Groups/{group_id}",
        {
            "schemas": [PATCH_OP],
            "Operations": [{"op": "add", "path": "members", "value": [{"value": str(ida.pk)}]}],
        },
    )
    assert Membership.objects.filter(user=ida, project=docs).exists()
    send(
        scim,
        "patch",
        f"/Groups/{group_id}",
        {
            "schemas": [PATCH_OP],
            "Operations": [{"op": "remove", "path": f'members[value eq "{hal.pk}"]'}],
        },
    )
    assert not Membership.objects.filter(user=hal, project=docs).exists()
    # Azure: remove with a value list
    send(
        scim,
        "patch",
        f"/Groups/{group_id}",
        {
            "schemas": [PATCH_OP],
            "Operations": [{"op": "Remove", "path": "members", "value": [{"value": str(ida.pk)}]}],
        },
    )
    assert not Membership.objects.filter(user=ida, project=docs).exists()

    listed = scim.get("/scim/v2/Groups", {"filter": 'displayName eq "eng"'}).json()
    assert listed["totalResults"] == 1 and listed["Resources"][0]["members"] == []
    kinds = list(IdentityEvent.objects.values_list("kind", flat=True))
    assert EventKind.ROLE_SET in kinds and EventKind.ROLE_REMOVED in kinds
    assert EventKind.GROUP_CHANGED in kinds


def test_bad_requests_get_scim_errors(alpha, scim):
    bad_filter = scim.get("/scim/v2/Users", {"filter": 'title co "x"'})
    assert (bad_filter.status_code, bad_filter.json()["scimType"]) == (400, "invalidFilter")
    assert scim.get("/scim/v2/Users/999999").status_code == 404
    assert scim.get("/scim/v2/Users/not-an-id").status_code == 404
    no_name = send(scim, "post", "/Users", {"emails": []})
    assert (no_name.status_code, no_name.json()["scimType"]) == (400, "invalidValue")
    bad_op = send(
        scim, "patch", f"/Users/{make_user(alpha, 'jo').pk}", {"Operations": [{"op": "move"}]}
    )
    assert bad_op.status_code == 400
    stranger = send(scim, "post", "/Groups", {"displayName": "x", "members": [{"value": "999999"}]})
    assert stranger.status_code == 400


def test_a_superuser_creates_the_scim_token_in_the_console_and_sees_it_once(alpha):
    root = make_user(alpha, "root", superuser=True)
    client = alpha.client()
    client.force_login(root)
    _, old_secret = services.scim_token_rotate(actor=root)

    page = client.post("/admin/identity/scimtoken/add/", {})

    body = page.content.decode()
    assert page.status_code == 200 and "cannot be shown again" in body
    secret = body.split('id="scim-token" readonly size="60" value="')[1].split('"')[0]
    assert secret.startswith("gws_") and ScimToken.objects.count() == 1
    assert secret not in ScimToken.objects.get().token_hash
    assert "no-cache" in page["Cache-Control"] or "no-store" in page["Cache-Control"]
    assert (
        alpha.client(HTTP_AUTHORIZATION=f"Bearer {secret}").get("/scim/v2/Users").status_code == 200
    )
    assert (
        alpha.client(HTTP_AUTHORIZATION=f"Bearer {old_secret}").get("/scim/v2/Users").status_code
        == 401
    )
    assert secret not in client.get("/admin/identity/scimtoken/").content.decode()


ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error"


def test_scim_is_throttled_per_token_with_a_scim_error_and_retry_after(alpha, scim, settings):
    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**rates, "scim": "2/min"},
    }
    assert [scim.get("/scim/v2/Users").status_code for _ in range(2)] == [200, 200]

    refused = send(scim, "post", "/Users", OKTA_USER)

    assert refused.status_code == 429
    assert refused["Content-Type"].startswith(SCIM)
    assert refused.json()["schemas"] == [ERROR_SCHEMA]
    assert refused.json()["status"] == "429"
    assert 0 < int(refused["Retry-After"]) <= 60
    assert not get_user_model().objects.filter(username="eve@acme.test").exists()
    # counted per token, not per address: the provider's other servers share the budget
    elsewhere = alpha.client(HTTP_AUTHORIZATION=f"Bearer {scim.secret}", REMOTE_ADDR="10.9.9.9")
    assert elsewhere.get("/scim/v2/Users").status_code == 429
    # and a person's API calls are not counted against it
    person = make_user(alpha, "kim")
    assert (
        alpha.client(HTTP_AUTHORIZATION=f"Token {token_for(alpha, person)}")
        .get("/api/auth/me")
        .status_code
        == 200
    )


def test_azure_external_id_is_stored_returned_and_filtered(alpha, scim):
    created = send(scim, "post", "/Users", {**OKTA_USER, "externalId": "5f1e-azure-object"})
    assert created.status_code == 201, created.content
    user_id = created.json()["id"]
    assert created.json()["externalId"] == "5f1e-azure-object"

    found = scim.get("/scim/v2/Users", {"filter": 'externalId eq "5f1e-azure-object"'}).json()
    assert found["totalResults"] == 1
    assert found["Resources"][0]["id"] == user_id
    assert found["Resources"][0]["externalId"] == "5f1e-azure-object"
    # externalId is case-exact (RFC 7643)
    assert (
        scim.get("/scim/v2/Users", {"filter": 'externalId eq "5F1E-AZURE-OBJECT"'}).json()[
            "totalResults"
        ]
        == 0
    )

    # Azure replaces it with a path
    changed = send(
        scim,
        "patch",
        f"/Users/{user_id}",
        {
            "schemas": [PATCH_OP],
            "Operations": [{"op": "Replace", "path": "externalId", "value": "new-object"}],
        },
    )
    assert changed.status_code == 200 and changed.json()["externalId"] == "new-object"
    assert scim.get(f"/scim/v2/Users/{user_id}").json()["externalId"] == "new-object"
    assert (
        scim.get("/scim/v2/Users", {"filter": 'externalId eq "5f1e-azure-object"'}).json()[
            "totalResults"
        ]
        == 0
    )
    # another user cannot take the same externalId
    taken = send(
        scim, "post", "/Users", {"userName": "other@acme.test", "externalId": "new-object"}
    )
    assert (taken.status_code, taken.json()["scimType"]) == (409, "uniqueness")
    assert not get_user_model().objects.filter(username="other@acme.test").exists()
    # a user the provider never gave one has none
    plain = make_user(alpha, "lou")
    assert scim.get(f"/scim/v2/Users/{plain.pk}").json().get("externalId") is None


def test_scim_does_not_deactivate_a_tenant_superuser(alpha, scim):
    root = make_user(alpha, "root", superuser=True)
    browser = alpha.client()
    browser.force_login(root)
    deactivations = [
        (
            "patch",
            {
                "schemas": [PATCH_OP],
                "Operations": [
                    {"op": "replace", "path": "name.givenName", "value": "Changed"},
                    {"op": "replace", "value": {"active": False}},
                ],
            },
        ),
        ("put", {"userName": "root", "active": "False"}),
        ("delete", None),
    ]

    for method, body in deactivations:
        response = send(scim, method, f"/Users/{root.pk}", body)

        assert response.status_code == 403, (method, response.content)
        assert response.json()["schemas"] == [ERROR_SCHEMA]
        assert response.json()["status"] == "403"
        assert "superuser" in response.json()["detail"]

    root.refresh_from_db()
    assert root.is_active and root.first_name != "Changed"  # nothing of the request applied
    assert browser.get("/api/auth/me").status_code == 200
    refusals = IdentityEvent.objects.filter(kind=EventKind.PROVISIONING_REFUSED, user=root)
    assert refusals.count() == 3
    assert "superuser" in refusals.first().detail
    assert not IdentityEvent.objects.filter(kind=EventKind.USER_DEACTIVATED).exists()
