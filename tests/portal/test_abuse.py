"""Abuse controls: one client address rule, shared tenant-keyed counters, chat throttles, tokens."""

from __future__ import annotations

import json
import threading
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache, caches
from django.db import connection
from django.utils import timezone

from portal import ratelimit
from portal.access.services import membership_set, project_ensure, user_upsert
from tests.conftest import make_user, token_for

pytestmark = pytest.mark.django_db

TOKEN_URL = "/api/auth/token"


def _token_post(client, username: str, password: str, **extra: str):
    return client.post(
        TOKEN_URL,
        json.dumps({"username": username, "password": password}),
        content_type="application/json",
        **extra,
    )


def test_token_endpoint_shares_the_login_failure_limiter(alpha, settings):
    make_user(alpha, "guess-me", password="right-pw-1")
    client = alpha.client()
    for _ in range(settings.LOGIN_FAILURE_LIMIT):
        assert _token_post(client, "guess-me", "wrong").status_code == 400
    blocked = _token_post(client, "guess-me", "right-pw-1")
    assert blocked.status_code == 429
    assert "Too many failed sign-in attempts" in blocked.json()["detail"]
    # and the sign-in page counts the same failures
    page = client.post("/login/", {"username": "guess-me", "password": "right-pw-1"})
    assert page.status_code == 429


def _set_rate(settings, scope: str, rate: str) -> None:
    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**rates, scope: rate},
    }


def test_rotating_x_forwarded_for_does_not_reset_the_token_throttle(alpha, settings):
    _set_rate(settings, "auth_token", "3/min")
    client = alpha.client()
    codes = [
        _token_post(client, f"u{n}", "p", HTTP_X_FORWARDED_FOR=f"10.0.0.{n}").status_code
        for n in range(4)
    ]
    assert codes == [400, 400, 400, 429]


def test_forwarding_header_is_ignored_unless_a_proxy_is_declared(alpha, settings):
    make_user(alpha, "spoofed", password="right-pw-1")
    client = alpha.client()
    for n in range(settings.LOGIN_FAILURE_LIMIT):
        client.post(
            "/login/",
            {"username": "spoofed", "password": "wrong"},
            HTTP_X_FORWARDED_FOR=f"10.9.9.{n}",
        )
    blocked = client.post("/login/", {"username": "spoofed", "password": "right-pw-1"})
    assert blocked.status_code == 429


def test_behind_a_declared_proxy_one_attacker_cannot_lock_out_everyone(alpha, settings):
    settings.TRUSTED_PROXY_COUNT = 1
    make_user(alpha, "shared-proxy", password="right-pw-1")
    attacker = alpha.client(REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="203.0.113.66")
    for _ in range(settings.LOGIN_FAILURE_LIMIT):
        attacker.post("/login/", {"username": "shared-proxy", "password": "wrong"})
    assert (
        attacker.post("/login/", {"username": "shared-proxy", "password": "x"}).status_code == 429
    )
    victim = alpha.client(REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="198.51.100.7")
    signed_in = victim.post("/login/", {"username": "shared-proxy", "password": "right-pw-1"})
    assert signed_in.status_code == 302


def test_client_address_takes_the_entry_added_by_the_trusted_proxies(rf, settings):
    request = rf.get("/", REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="6.6.6.6, 1.2.3.4, 10.0.0.1")
    settings.TRUSTED_PROXY_COUNT = 0
    assert ratelimit.client_address(request) == "10.0.0.2"
    settings.TRUSTED_PROXY_COUNT = 1
    assert ratelimit.client_address(request) == "10.0.0.1"
    settings.TRUSTED_PROXY_COUNT = 2
    assert ratelimit.client_address(request) == "1.2.3.4"
    settings.TRUSTED_PROXY_COUNT = 1
    assert ratelimit.client_address(rf.get("/", REMOTE_ADDR="10.0.0.2")) == "10.0.0.2"


def _same_pk_user(info, pk: int, username: str, project: str):
    with info.scope():
        user = get_user_model().objects.create(pk=pk, username=username)
        membership_set(user=user, project=project_ensure(key=project), role="reader")
    return user


def test_throttle_counters_are_per_tenant(alpha, beta, settings):
    _set_rate(settings, "search", "2/min")
    in_alpha = _same_pk_user(alpha, 987_001, "same-pk-a", "tq")
    in_beta = _same_pk_user(beta, 987_001, "same-pk-b", "tq")
    body = json.dumps({"query": "anything"})
    alpha_client = alpha.client(HTTP_AUTHORIZATION=f"Token {token_for(alpha, in_alpha)}")
    beta_client = beta.client(HTTP_AUTHORIZATION=f"Token {token_for(beta, in_beta)}")
    codes = [
        alpha_client.post("/api/kb/search", body, content_type="application/json").status_code
        for _ in range(3)
    ]
    assert codes == [200, 200, 429]
    other = beta_client.post("/api/kb/search", body, content_type="application/json")
    assert other.status_code == 200


def test_counters_live_in_the_shared_database_cache():
    from django.core.cache.backends.db import DatabaseCache

    assert isinstance(caches["default"], DatabaseCache)
    cache.set("probe", 1)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT count(*) FROM public.{caches['default']._table}")
        assert cursor.fetchone()[0] >= 1


@pytest.mark.django_db(transaction=True)
def test_concurrent_hits_from_separate_connections_are_all_counted(tenants):
    """Each thread has its own database connection, like a separate server process."""
    hits_per_thread, threads = 15, 4
    barrier = threading.Barrier(threads)

    def worker() -> None:
        from django.db import connections

        barrier.wait()
        for _ in range(hits_per_thread):
            ratelimit.hit("concurrency-probe", limit=10_000, window_seconds=60)
        connections.close_all()

    pool = [threading.Thread(target=worker) for _ in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    allowed, _ = ratelimit.hit(
        "concurrency-probe", limit=hits_per_thread * threads, window_seconds=60
    )
    assert not allowed  # exactly threads*hits were counted before this one
    cache.clear()


def test_chat_page_send_and_stream_are_throttled(alpha, settings):
    _set_rate(settings, "chat", "2/min")
    make_user(alpha, "chatty", password="pw-chatty-1", projects={"cq": "reader"})
    client = alpha.client()
    client.post("/login/", {"username": "chatty", "password": "pw-chatty-1"})
    codes = [client.post("/chat/send", {"question": "hello?"}).status_code for _ in range(2)]
    assert 429 not in codes
    assert client.post("/chat/send", {"question": "hello?"}).status_code == 429
    stream = client.post("/chat/stream", {"question": "hello?"})
    assert stream.status_code == 429
    assert stream.has_header("Retry-After")


# --- tokens --------------------------------------------------------------------------------


def test_expired_tokens_are_refused_and_a_new_one_is_issued(alpha, settings):
    from rest_framework.authtoken.models import Token

    settings.API_TOKEN_TTL_DAYS = 30
    user = make_user(alpha, "old-token", password="pw-old-1")
    key = token_for(alpha, user)
    Token.objects.filter(key=key).update(created=timezone.now() - timedelta(days=31))
    refused = alpha.client(HTTP_AUTHORIZATION=f"Token {key}").get("/api/auth/me")
    assert refused.status_code == 401
    assert "expired" in refused.json()["detail"]
    fresh = _token_post(alpha.client(), "old-token", "pw-old-1").json()["token"]
    assert fresh != key
    assert alpha.client(HTTP_AUTHORIZATION=f"Token {fresh}").get("/api/auth/me").status_code == 200


def test_owner_lists_and_revokes_tokens_through_the_api(alpha):
    user = make_user(alpha, "lister", password="pw-list-1")
    key = token_for(alpha, user)
    client = alpha.client(HTTP_AUTHORIZATION=f"Token {key}")
    listed = client.get("/api/auth/tokens").json()
    assert [item["prefix"] for item in listed["tokens"]] == [key[:8]]
    assert "expires_at" in listed["tokens"][0] and key not in json.dumps(listed)
    other = make_user(alpha, "other-lister", password="pw-list-2")
    other_key = token_for(alpha, other)
    assert client.delete(f"/api/auth/tokens/{other_key[:8]}").status_code == 404
    assert client.delete(f"/api/auth/tokens/{key[:8]}").status_code == 204
    assert client.get("/api/auth/me").status_code == 401
    assert (
        alpha.client(HTTP_AUTHORIZATION=f"Token {other_key}").get("/api/auth/me").status_code == 200
    )


def test_owner_revokes_a_token_on_the_tokens_page(alpha):
    user = make_user(alpha, "page-lister", password="pw-page-1")
    key = token_for(alpha, user)
    client = alpha.client()
    client.post("/login/", {"username": "page-lister", "password": "pw-page-1"})
    page = client.get("/account/tokens/")
    assert page.status_code == 200
    assert key[:8].encode() in page.content and key.encode() not in page.content
    revoked = client.post(f"/account/tokens/{key[:8]}/revoke")
    assert revoked.status_code == 302
    assert b"You have no API tokens" in client.get("/account/tokens/").content
    assert alpha.client(HTTP_AUTHORIZATION=f"Token {key}").get("/api/auth/me").status_code == 401


def test_changing_the_password_revokes_tokens(alpha):
    user = make_user(alpha, "rotate-me", password="pw-rotate-1")
    key = token_for(alpha, user)
    with alpha.scope():
        user_upsert(username="rotate-me", password="pw-rotate-2")
    assert alpha.client(HTTP_AUTHORIZATION=f"Token {key}").get("/api/auth/me").status_code == 401
