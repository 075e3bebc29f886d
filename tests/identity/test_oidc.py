"""OpenID Connect sign-in per tenant, end to end against a real provider (django-oauth-toolkit
in a process of its own): the portal discovers it, redirects there with state, nonce and PKCE,
exchanges the code over HTTP and verifies the ID token against the provider's published keys."""

from __future__ import annotations

import time
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

import pytest
import time_machine
from authlib.integrations.requests_client import OAuth2Session
from django.contrib.auth import get_user_model

from portal.access.models import Membership
from portal.access.services import project_ensure
from portal.identity import oidc
from portal.identity.models import (
    EventKind,
    ExternalIdentity,
    GroupRoleMapping,
    IdentityEvent,
)
from tests.conftest import make_user
from tests.identity.conftest import ALPHA_CALLBACK, PASSWORD, configure
from tests.identity.oidc_provider import Provider, path_of, provider_sign_in


def start(client, next_url: str = "/chat/") -> str:
    response = client.get("/login/oidc/?" + urlencode({"next": next_url}))
    assert response.status_code == 302, response.content[:300]
    return str(response["Location"])


def sign_in(client, username: str = "ann") -> tuple[object, str]:
    """The whole flow as a browser: start here, sign in at the provider, return here."""
    callback = provider_sign_in(start(client), username, PASSWORD)
    return client.get(path_of(callback)), callback


def with_query(url: str, **changes: str) -> str:
    parts = urlsplit(url)
    query = {key: values[0] for key, values in parse_qs(parts.query).items()}
    query.update(changes)
    return urlunsplit(parts._replace(query=urlencode(query)))


def roles(user) -> dict[str, str]:
    return dict(Membership.objects.filter(user=user).values_list("project__key", "role"))


def test_first_sign_in_creates_the_user_with_the_mapped_roles(alpha, provider_a):
    configure(provider_a)
    client = alpha.client()

    authorize = start(client)
    query = parse_qs(urlsplit(authorize).query)
    assert authorize.startswith(provider_a.issuer + "/authorize/")
    assert query["code_challenge_method"] == ["S256"] and query["code_challenge"][0]
    assert query["state"][0] and query["nonce"][0]

    response = client.get(path_of(provider_sign_in(authorize, "ann", PASSWORD)))

    assert response.status_code == 302 and response["Location"] == "/chat/"
    user = get_user_model().objects.get(email="ann@acme.test")
    assert not user.has_usable_password()
    assert ExternalIdentity.objects.get(user=user).subject
    # ops-admins gives docs:editor, higher than eng's docs:reader
    assert roles(user) == {"docs": "editor", "ops": "admin"}
    assert client.get("/api/auth/me").json()["username"] == user.username
    kinds = set(IdentityEvent.objects.filter(user=user).values_list("kind", flat=True))
    assert {EventKind.USER_CREATED, EventKind.ROLE_SET, EventKind.SIGN_IN} <= kinds


def test_a_returning_person_is_recognised_by_subject_and_roles_follow_the_mapping(
    alpha, provider_a
):
    configure(provider_a)
    sign_in(alpha.client())
    user = get_user_model().objects.get(email="ann@acme.test")
    user.email = "renamed@acme.test"  # the subject, not the email, recognises them
    user.save()
    # ops now maps from a group ann is not in; docs keeps eng's reader role only
    GroupRoleMapping.objects.filter(group="ops-admins", project__key="ops").update(
        group="ops-leads"
    )
    GroupRoleMapping.objects.filter(group="ops-admins").delete()
    project_ensure(key="private")  # unmapped: a hand-given membership stays
    Membership.objects.create(user=user, project=project_ensure(key="private"), role="admin")

    response, _ = sign_in(alpha.client())

    assert response.status_code == 302
    assert get_user_model().objects.filter(username__startswith="ann").count() == 1
    assert roles(user) == {"docs": "reader", "private": "admin"}


def test_an_existing_account_is_matched_by_verified_email(alpha, provider_a):
    configure(provider_a, allow_user_creation=False)
    existing = make_user(alpha, "ann.local")
    existing.email = "ann@acme.test"
    existing.save()

    response, _ = sign_in(alpha.client())

    assert response.status_code == 302
    assert ExternalIdentity.objects.get(subject__isnull=False).user == existing
    assert roles(existing) == {"docs": "editor", "ops": "admin"}


def test_an_unverified_email_matches_no_account(alpha, provider_a):
    configure(provider_a, allow_user_creation=False)
    existing = make_user(alpha, "cat.local")
    existing.email = "cat@acme.test"
    existing.save()

    response, _ = sign_in(alpha.client(), "cat")

    assert response.status_code == 403
    assert not ExternalIdentity.objects.exists()


def test_with_creation_off_an_unknown_person_is_refused_with_a_clear_message(alpha, provider_a):
    configure(provider_a, allow_user_creation=False)
    client = alpha.client()

    response, _ = sign_in(client, "bob")

    assert response.status_code == 403
    assert "bob@acme.test has no account here" in response.content.decode()
    assert not get_user_model().objects.filter(email="bob@acme.test").exists()
    assert client.get("/api/auth/me").status_code in (401, 403)
    failure = IdentityEvent.objects.get(kind=EventKind.SIGN_IN_FAILED)
    assert (failure.detail, failure.username) == ("no_account", "bob@acme.test")


def test_a_state_that_does_not_match_is_refused(alpha, provider_a):
    configure(provider_a)
    client = alpha.client()
    callback = provider_sign_in(start(client), "ann", PASSWORD)

    response = client.get(path_of(with_query(callback, state="forged-state")))

    assert response.status_code == 400
    assert "start again" in response.content.decode()
    assert not get_user_model().objects.filter(email="ann@acme.test").exists()
    # the pending sign-in is used up: the genuine callback afterwards is refused too
    assert client.get(path_of(callback)).status_code == 400


def test_a_nonce_that_does_not_match_is_refused(alpha, provider_a):
    configure(provider_a)
    client = alpha.client()
    # the provider is asked for another nonce than the one this sign-in keeps
    authorize = with_query(start(client), nonce="a-nonce-of-another-sign-in")

    response = client.get(path_of(provider_sign_in(authorize, "ann", PASSWORD)))

    assert response.status_code == 400
    assert "its nonce does not match" in response.content.decode()
    assert not get_user_model().objects.filter(email="ann@acme.test").exists()
    assert IdentityEvent.objects.get(kind=EventKind.SIGN_IN_FAILED).detail == "bad_claim_nonce"


def test_a_wrong_pkce_verifier_is_refused_by_the_provider(alpha, provider_a):
    configure(provider_a)
    client = alpha.client()
    authorize = start(client)
    session = client.session
    session["oidc_pending"] = {**session["oidc_pending"], "code_verifier": "x" * 64}
    session.save()

    response = client.get(path_of(provider_sign_in(authorize, "ann", PASSWORD)))

    assert response.status_code == 400
    assert "refused the sign-in" in response.content.decode()


def test_an_issuer_that_is_not_the_providers_own_is_refused(alpha, provider_a):
    configure(provider_a, issuer=provider_a.issuer + "/")

    response = alpha.client().get("/login/oidc/")

    assert response.status_code == 400
    assert "correct the issuer" in response.content.decode()


def test_a_code_of_another_tenants_provider_is_refused(alpha, beta, provider_a, provider_b):
    configure(provider_a)
    with beta.scope():
        configure(provider_b, client_id="beta-client", secret="beta-secret")
        beta_authorize = start(beta.client())
    beta_callback = provider_sign_in(beta_authorize, "ann", PASSWORD)
    code = parse_qs(urlsplit(beta_callback).query)["code"][0]
    client = alpha.client()
    alpha_state = parse_qs(urlsplit(start(client)).query)["state"][0]

    response = client.get("/login/oidc/callback?" + urlencode({"code": code, "state": alpha_state}))

    assert response.status_code == 400
    assert not ExternalIdentity.objects.exists()


def _id_token(provider: Provider, client_id: str, secret: str) -> str:
    """A real ID token from `provider` for `client_id`, with the nonce "n-1"."""
    session = OAuth2Session(
        client_id,
        secret,
        scope="openid email",
        redirect_uri=ALPHA_CALLBACK,
        code_challenge_method="S256",
    )
    verifier = "v" * 64
    url, state = session.create_authorization_url(
        f"{provider.issuer}/authorize/", code_verifier=verifier, nonce="n-1"
    )
    code = parse_qs(urlsplit(provider_sign_in(url, "ann", PASSWORD)).query)["code"][0]
    token = session.fetch_token(f"{provider.issuer}/token/", code=code, code_verifier=verifier)
    return str(token["id_token"])


def test_id_tokens_of_another_provider_or_client_do_not_verify(db, provider_a, provider_b):
    alpha_client = oidc.ClientSettings(
        issuer=provider_a.issuer, client_id="alpha-client", client_secret="alpha-secret"
    )
    own = _id_token(provider_a, "alpha-client", "alpha-secret")
    assert oidc.id_token_verify(alpha_client, id_token=own, nonce="n-1")["email"] == "ann@acme.test"

    with pytest.raises(oidc.SignInError) as foreign:
        oidc.id_token_verify(
            alpha_client, id_token=_id_token(provider_b, "beta-client", "beta-secret"), nonce="n-1"
        )
    assert foreign.value.reason == "bad_signature"

    with pytest.raises(oidc.SignInError) as other_app:
        oidc.id_token_verify(
            alpha_client, id_token=_id_token(provider_a, "other-app", "other-secret"), nonce="n-1"
        )
    assert other_app.value.reason == "bad_claim_aud"

    with pytest.raises(oidc.SignInError) as replayed:
        oidc.id_token_verify(alpha_client, id_token=own, nonce="n-2")
    assert replayed.value.reason == "bad_claim_nonce"


def test_sign_out_ends_the_local_session(alpha, provider_a):
    configure(provider_a)
    client = alpha.client()
    sign_in(client)
    assert client.get("/api/auth/me").status_code == 200

    client.post("/logout/")

    assert client.get("/api/auth/me").status_code in (401, 403)


def test_the_sign_in_page_offers_the_provider_next_to_passwords(alpha, provider_a):
    configure(provider_a)

    page = alpha.client().get("/login/?next=/chat/").content.decode()

    assert "Sign in with Acme SSO" in page and 'href="/login/oidc/?next=/chat/"' in page
    assert 'id="password-form"' in page


def test_with_passwords_off_the_form_is_hidden_and_passwords_are_refused(alpha, provider_a):
    configure(provider_a, passwords_allowed=False)
    make_user(alpha, "dana", password="pw-secret-123")
    make_user(alpha, "root", password="pw-secret-123", superuser=True)
    client = alpha.client()

    page = client.get("/login/").content.decode()
    refused = client.post("/login/", {"username": "dana", "password": "pw-secret-123"})
    token = client.post(
        "/api/auth/token",
        {"username": "dana", "password": "pw-secret-123"},
        content_type="application/json",
    )

    assert "Sign in with Acme SSO" in page and 'id="password-form"' not in page
    assert refused.status_code == 200
    assert "passwords are turned off" in refused.content.decode()
    assert token.status_code == 400
    failures = IdentityEvent.objects.filter(kind=EventKind.SIGN_IN_FAILED, username="dana")
    assert sorted(failures.values_list("detail", flat=True)) == [
        "bad_credentials",
        "bad_credentials (API token)",
    ]
    # a superuser keeps their password, to repair a broken provider setting
    assert (
        client.post("/login/", {"username": "root", "password": "pw-secret-123"}).status_code == 302
    )


def test_no_provider_no_button_and_the_start_url_is_not_found(alpha):
    assert "Sign in with" not in alpha.client().get("/login/").content.decode()
    assert alpha.client().get("/login/oidc/").status_code == 404


def test_without_the_groups_claim_the_roles_are_left_as_they_are(alpha, provider_a):
    configure(provider_a, groups_claim="roles")  # a claim this provider does not send
    sign_in(alpha.client())
    user = get_user_model().objects.get(email="ann@acme.test")
    Membership.objects.create(user=user, project=project_ensure(key="docs"), role="admin")

    response, _ = sign_in(alpha.client())

    assert response.status_code == 302
    assert roles(user) == {"docs": "admin"}
    assert "no 'roles' claim" in IdentityEvent.objects.filter(kind=EventKind.SIGN_IN).first().detail


def test_a_deactivated_person_cannot_sign_in_through_the_provider(alpha, provider_a):
    from portal.identity.models import EventSource
    from portal.identity.services import user_deactivate

    configure(provider_a)
    sign_in(alpha.client())
    user_deactivate(
        user=get_user_model().objects.get(email="ann@acme.test"), source=EventSource.SCIM
    )

    response, _ = sign_in(alpha.client())

    assert response.status_code == 403
    assert "This account is deactivated." in response.content.decode()


def test_next_may_not_leave_the_site(alpha, provider_a):
    configure(provider_a)
    client = alpha.client()
    authorize = start(client, next_url="https://evil.example/steal")

    response = client.get(path_of(provider_sign_in(authorize, "ann", PASSWORD)))

    assert response.status_code == 302 and response["Location"] == "/"


def test_a_sign_in_returning_after_ten_minutes_is_refused(alpha, provider_a):

    configure(provider_a)
    client = alpha.client()
    callback = provider_sign_in(start(client), "ann", PASSWORD)

    with time_machine.travel(time.time() + oidc.PENDING_MAX_AGE + 1):
        response = client.get(path_of(callback))

    assert response.status_code == 400
    assert "took too long" in response.content.decode()


def test_a_subject_of_a_former_provider_does_not_sign_in_as_its_person(alpha, provider_a):
    """Subjects are unique per issuer only: after a move to another provider, the same `sub`
    there is someone else."""
    configure(provider_a)
    sign_in(alpha.client())
    subject = ExternalIdentity.objects.get().subject
    get_user_model().objects.filter(email="ann@acme.test").delete()
    victim = make_user(alpha, "victim")
    ExternalIdentity.objects.create(user=victim, issuer="https://old-idp.example", subject=subject)

    client = alpha.client()
    response, _ = sign_in(client)

    assert response.status_code == 302
    assert client.get("/api/auth/me").json()["username"] == "ann@acme.test"
    assert ExternalIdentity.objects.get(issuer=provider_a.issuer).user.username == "ann@acme.test"


def test_a_token_for_several_audiences_must_name_this_client_as_its_party(db, monkeypatch):
    """No provider here issues such tokens: signed with a key of the test's own."""
    from joserfc import jwt
    from joserfc.jwk import RSAKey

    key = RSAKey.generate_key(2048, parameters={"kid": "k1"})
    monkeypatch.setattr(oidc, "_get_json", lambda url, what: {"keys": [key.as_dict(private=False)]})
    client = oidc.ClientSettings(issuer="https://idp.test", client_id="mine", client_secret="s")
    now = int(time.time())
    base = {"iss": "https://idp.test", "sub": "1", "iat": now, "exp": now + 60, "nonce": "n"}

    def token(**claims) -> str:
        return jwt.encode({"alg": "RS256", "kid": "k1"}, {**base, **claims}, key)

    metadata = {"jwks_uri": "https://idp.test/jwks"}
    verified = oidc.id_token_verify(
        client, id_token=token(aud=["mine", "api"], azp="mine"), nonce="n", metadata=metadata
    )
    assert verified["sub"] == "1"
    with pytest.raises(oidc.SignInError) as refused:
        oidc.id_token_verify(
            client, id_token=token(aud=["mine", "api"], azp="api"), nonce="n", metadata=metadata
        )
    assert refused.value.reason == "bad_claim_azp"


def test_discovery_and_keys_are_fetched_once_for_several_sign_ins(alpha, provider_a):
    """Counted at the provider: without the cache each sign-in reads discovery twice (start
    and callback) and the keys once."""
    configure(provider_a)
    discovery, jwks = provider_a.discovery_requests(), provider_a.jwks_requests()

    first, _ = sign_in(alpha.client())
    second, _ = sign_in(alpha.client(), "bob")

    assert first.status_code == 302 and second.status_code == 302
    assert provider_a.discovery_requests() - discovery == 1
    assert provider_a.jwks_requests() - jwks == 1


def test_a_rotated_signing_key_still_signs_in(alpha, provider_a):
    configure(provider_a)
    assert sign_in(alpha.client())[0].status_code == 302  # the old key is cached now
    provider_a.rotate_key()
    discovery, jwks = provider_a.discovery_requests(), provider_a.jwks_requests()

    response, _ = sign_in(alpha.client())

    assert response.status_code == 302
    # the token's new kid is not among the cached keys: they are read again, once
    assert provider_a.jwks_requests() - jwks == 1
    assert provider_a.discovery_requests() - discovery == 0


def test_a_kid_the_provider_does_not_publish_is_refused_after_one_refetch(db, monkeypatch):
    """A token signed by a key the issuer never published: the keys are read again once (it
    could be a rotation), then the token is refused."""
    from joserfc import jwt
    from joserfc.jwk import RSAKey

    published = RSAKey.generate_key(2048, parameters={"kid": "k1"})
    stranger = RSAKey.generate_key(2048, parameters={"kid": "k2"})
    fetched: list[str] = []

    def get_json(url: str, what: str) -> dict:
        fetched.append(url)
        return {"keys": [published.as_dict(private=False)]}

    monkeypatch.setattr(oidc, "_get_json", get_json)
    client = oidc.ClientSettings(issuer="https://idp.test", client_id="mine", client_secret="s")
    now = int(time.time())
    claims = {"iss": "https://idp.test", "sub": "1", "aud": "mine", "iat": now, "exp": now + 60}
    metadata = {"jwks_uri": "https://idp.test/jwks"}

    def token(key: RSAKey) -> str:
        return jwt.encode({"alg": "RS256", "kid": key.kid}, {**claims, "nonce": "n"}, key)

    assert oidc.id_token_verify(client, id_token=token(published), nonce="n", metadata=metadata)
    assert oidc.id_token_verify(client, id_token=token(published), nonce="n", metadata=metadata)
    assert len(fetched) == 1
    with pytest.raises(oidc.SignInError) as refused:
        oidc.id_token_verify(client, id_token=token(stranger), nonce="n", metadata=metadata)
    assert refused.value.reason == "bad_signature"
    assert len(fetched) == 2


def test_with_no_cache_time_every_sign_in_reads_the_discovery(alpha, provider_a, settings):
    settings.OIDC_METADATA_CACHE_SECONDS = 0
    configure(provider_a)
    discovery = provider_a.discovery_requests()

    response, _ = sign_in(alpha.client())

    assert response.status_code == 302
    assert provider_a.discovery_requests() - discovery == 2  # start and callback
