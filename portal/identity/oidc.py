"""The OpenID Connect relying party: discovery, the authorization request (state, nonce, PKCE),
the code exchange and the ID token's verification. Authlib does the protocol (the request URL,
PKCE, the token request); joserfc (Authlib's JOSE library) verifies the ID token.

No tenant data here: the caller passes the provider's settings and keeps the pending sign-in.
The provider's discovery document and signing keys (public documents) are kept per issuer in
the shared cache for OIDC_METADATA_CACHE_SECONDS; an ID token signed with a key not among the
kept ones has the keys read again once (the provider rotated them) before it is refused.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from dataclasses import asdict, dataclass
from typing import Any
from urllib.parse import urlsplit

import requests
from authlib.integrations.base_client.errors import OAuthError
from authlib.integrations.requests_client import OAuth2Session
from django.conf import settings
from django.core.cache import cache
from joserfc import jws, jwt
from joserfc.errors import ClaimError, JoseError
from joserfc.jwk import KeySet

# Seconds to wait for the provider: a sign-in is a person waiting at a page.
HTTP_TIMEOUT = 10
SCOPES = "openid email profile"
# Asymmetric algorithms only: a shared-secret (HS*) ID token would be forgeable by anyone who
# holds the client secret, and verifying against the provider's published keys is the point.
ID_TOKEN_ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384"]
# Clock difference tolerated between the provider and this server, in seconds.
CLOCK_LEEWAY = 60
# How long a started sign-in may take at the provider (typing a password, a second factor)
# before its return is refused, in seconds.
PENDING_MAX_AGE = 600


class SignInError(Exception):
    """A sign-in that cannot complete: `message` is for the person, `reason` for the audit."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(f"{reason}: {message}")
        self.reason = reason
        self.message = message


@dataclass(frozen=True, kw_only=True)
class ClientSettings:
    issuer: str
    client_id: str
    client_secret: str


@dataclass(frozen=True, kw_only=True)
class PendingSignIn:
    """What the browser's session keeps between the redirect to the provider and its return."""

    state: str
    nonce: str
    code_verifier: str
    next_url: str
    started_at: str  # epoch seconds, as text: the session stores JSON

    def as_session(self) -> dict[str, str]:
        return asdict(self)

    def expired(self) -> bool:
        try:
            return time.time() - float(self.started_at) > PENDING_MAX_AGE
        except ValueError:
            return True

    @classmethod
    def from_session(cls, data: Any) -> PendingSignIn | None:
        if not isinstance(data, dict):
            return None
        try:
            return cls(**{key: str(data[key]) for key in cls.__dataclass_fields__})
        except KeyError:
            return None


def _get_json(url: str, what: str) -> dict[str, Any]:
    try:
        response = requests.get(url, timeout=HTTP_TIMEOUT)
        response.raise_for_status()
        data = response.json()
    except (requests.RequestException, ValueError) as exc:
        raise SignInError(
            "provider_unreachable", f"The identity provider's {what} could not be read ({exc})."
        ) from exc
    if not isinstance(data, dict):
        raise SignInError("provider_invalid", f"The identity provider's {what} is not an object.")
    return data


# OpenID Connect requires https issuers; a provider on this machine's loopback (a development
# or test provider) may use http.
LOOPBACK_HOSTS = {"localhost", "127.0.0.1", "::1"}


def issuer_check(issuer: str) -> None:
    """SignInError unless `issuer` is an https URL (or http on the loopback)."""
    parts = urlsplit(issuer)
    if parts.scheme == "https" and parts.hostname:
        return
    if parts.scheme == "http" and parts.hostname in LOOPBACK_HOSTS:
        return
    raise SignInError("insecure_issuer", "The issuer must be an https:// URL.")


def _cache_key(kind: str, *parts: str) -> str:
    # the same documents for every tenant naming this issuer: public, checked before kept
    return f"oidc:{kind}:" + hashlib.sha256("|".join(parts).encode()).hexdigest()


def discover(issuer: str) -> dict[str, Any]:
    """The provider's discovery document (kept in the shared cache per issuer); SignInError
    when it cannot be read or names another issuer (a configured issuer must be the
    provider's own, exactly)."""
    issuer_check(issuer)
    key = _cache_key("discovery", issuer)
    cached = cache.get(key)
    if isinstance(cached, dict):
        return cached
    metadata = _get_json(issuer.rstrip("/") + "/.well-known/openid-configuration", "discovery")
    if metadata.get("issuer") != issuer:
        raise SignInError(
            "wrong_issuer",
            f"The identity provider says its issuer is {metadata.get('issuer')!r}, "
            f"not {issuer!r}: correct the issuer in the sign-in settings.",
        )
    for field in ("authorization_endpoint", "token_endpoint", "jwks_uri"):
        if not isinstance(metadata.get(field), str):
            raise SignInError("provider_invalid", f"The provider's discovery lacks {field}.")
    cache.set(key, metadata, timeout=settings.OIDC_METADATA_CACHE_SECONDS)
    return metadata


def signing_keys(issuer: str, jwks_uri: str, *, refresh: bool = False) -> KeySet:
    """The provider's published signing keys, from the shared cache unless `refresh` (or not
    kept yet); SignInError when they cannot be read or used (an unusable set is not kept)."""
    key = _cache_key("jwks", issuer, jwks_uri)
    data = None if refresh else cache.get(key)
    fetched = not isinstance(data, dict)
    if fetched:
        data = _get_json(jwks_uri, "signing keys")
    try:
        keys = KeySet.import_key_set(data)  # type: ignore[arg-type]
    except JoseError as exc:
        raise SignInError("provider_invalid", "The provider's signing keys are unusable.") from exc
    if fetched:
        cache.set(key, data, timeout=settings.OIDC_METADATA_CACHE_SECONDS)
    return keys


def _key_id(id_token: str) -> str | None:
    """The `kid` an ID token names in its header; None when it names none (or is malformed:
    its verification refuses it)."""
    try:
        kid = jws.extract_compact(id_token.encode()).protected.get("kid")
    except (JoseError, ValueError):
        return None
    return kid if isinstance(kid, str) else None


def _session(client: ClientSettings, redirect_uri: str) -> OAuth2Session:
    return OAuth2Session(
        client_id=client.client_id,
        client_secret=client.client_secret,
        scope=SCOPES,
        redirect_uri=redirect_uri,
        code_challenge_method="S256",
        token_endpoint_auth_method="client_secret_basic",
    )


def authorization_request(
    client: ClientSettings, *, redirect_uri: str, next_url: str
) -> tuple[str, PendingSignIn]:
    """The provider URL to send the browser to, and the pending sign-in to keep in its session
    (a fresh state, nonce and PKCE verifier)."""
    metadata = discover(client.issuer)
    pending = PendingSignIn(
        state=secrets.token_urlsafe(32),
        nonce=secrets.token_urlsafe(32),
        code_verifier=secrets.token_urlsafe(64),
        next_url=next_url,
        started_at=str(time.time()),
    )
    url, _ = _session(client, redirect_uri).create_authorization_url(
        metadata["authorization_endpoint"],
        state=pending.state,
        code_verifier=pending.code_verifier,
        nonce=pending.nonce,
    )
    return url, pending


def callback_check(pending: PendingSignIn | None, params: Any) -> PendingSignIn:
    """The pending sign-in the provider's return (`params`, its query) completes; SignInError
    for a return this browser did not start (or used already: the state), a late one, or the
    provider's own refusal."""
    if pending is None or not secrets.compare_digest(pending.state, params.get("state", "")):
        raise SignInError(
            "state_mismatch",
            "This sign-in was not started here or has already been used; start again.",
        )
    if pending.expired():
        raise SignInError("sign_in_expired", "This sign-in took too long to complete; start again.")
    if "error" in params:
        raise SignInError(
            f"provider_error_{params['error']}"[:60],
            "The identity provider did not sign you in: "
            + (params.get("error_description") or params["error"]),
        )
    return pending


def code_exchange(
    client: ClientSettings, *, redirect_uri: str, code: str, pending: PendingSignIn
) -> dict[str, Any]:
    """The verified claims of the ID token the provider gives for `code`: signature (the
    issuer's published keys), issuer, audience (this client), expiry and the pending nonce."""
    metadata = discover(client.issuer)
    try:
        token = _session(client, redirect_uri).fetch_token(
            metadata["token_endpoint"],
            grant_type="authorization_code",
            code=code,
            code_verifier=pending.code_verifier,
            timeout=HTTP_TIMEOUT,
        )
    except OAuthError as exc:
        raise SignInError(
            "code_refused", f"The identity provider refused the sign-in ({exc.error})."
        ) from exc
    except requests.RequestException as exc:
        raise SignInError(
            "provider_unreachable", f"The identity provider could not be reached ({exc})."
        ) from exc
    id_token = token.get("id_token")
    if not isinstance(id_token, str):
        raise SignInError("no_id_token", "The identity provider sent no ID token.")
    return id_token_verify(client, id_token=id_token, nonce=pending.nonce, metadata=metadata)


def id_token_verify(
    client: ClientSettings, *, id_token: str, nonce: str, metadata: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The claims of `id_token` once verified against `client`'s issuer; SignInError otherwise
    (a token of another provider or client, a replayed or foreign nonce, an expired token)."""
    metadata = metadata or discover(client.issuer)
    keys = signing_keys(client.issuer, metadata["jwks_uri"])
    kid = _key_id(id_token)
    if kid is not None and kid not in {key.kid for key in keys.keys}:
        # a key the kept set lacks: the provider may have rotated its keys since; read once more
        keys = signing_keys(client.issuer, metadata["jwks_uri"], refresh=True)
    try:
        decoded = jwt.decode(id_token, keys, algorithms=ID_TOKEN_ALGORITHMS)
    except JoseError as exc:
        raise SignInError(
            "bad_signature",
            "The ID token is not signed by this workspace's identity provider.",
        ) from exc
    claims: dict[str, Any] = dict(decoded.claims)
    registry = jwt.JWTClaimsRegistry(
        leeway=CLOCK_LEEWAY,
        iss={"essential": True, "value": client.issuer},
        aud={"essential": True, "value": client.client_id},
        sub={"essential": True},
        exp={"essential": True},
        iat={"essential": True},
        nonce={"essential": True, "value": nonce},
    )
    try:
        registry.validate(claims)
    except ClaimError as exc:
        claim = getattr(exc, "claim", "") or str(exc)
        raise SignInError(
            f"bad_claim_{claim}"[:60],
            "The ID token was not issued for this sign-in "
            f"(its {claim} does not match); start again.",
        ) from exc
    audiences = claims.get("aud")
    if isinstance(audiences, list) and len(audiences) > 1 and claims.get("azp") != client.client_id:
        # several audiences: OIDC Core 3.1.3.7 names the party it was issued to in azp
        raise SignInError(
            "bad_claim_azp", "The ID token was issued to another application; start again."
        )
    return claims
