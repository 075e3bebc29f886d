"""Smaller leaks: embedding cache across tenants, provider detail in meta.degraded, bearer key
on redirects, old chat citations after access is lost, third-party requests from previews."""

from __future__ import annotations

import json
import logging
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest
from django_tenants.utils import schema_context

from chat.models import Conversation, Message
from kb.embeddings import EmbeddingError
from kb.embeddings.cache import clear_embedding_cache, embed_query_cached
from kb.embeddings.openai import OpenAIEmbedder
from kb.rendering import render_markdown
from kb.services import document_ingest
from portal.access.models import Membership
from portal.access.services import project_ensure
from tests.conftest import make_user, token_for
from tests.kb.test_embedding_cache import CountingEmbedder

pytestmark = pytest.mark.django_db


def test_query_embedding_cache_is_keyed_by_tenant(tenants, settings):
    settings.KB = {**settings.KB, "EMBEDDING_CACHE_SIZE": 10}
    clear_embedding_cache()
    embedder = CountingEmbedder()
    with schema_context("alpha"):
        embed_query_cached(embedder, "what did the board decide about layoffs?")
        embed_query_cached(embedder, "what did the board decide about layoffs?")
    assert len(embedder.encoded) == 1  # a hit within the tenant
    with schema_context("beta"):
        embed_query_cached(embedder, "what did the board decide about layoffs?")
    assert len(embedder.encoded) == 2  # never a hit from another tenant's question
    clear_embedding_cache()


def test_degraded_search_gives_a_typed_reason_and_logs_the_detail(alpha, settings, caplog):
    from kb.embeddings import reset_embedders

    secret_url = "http://127.0.0.1:9/internal-embeddings-v1"
    settings.KB = {**settings.KB, "EMBEDDING_PROVIDER": "openai", "EMBEDDING_BASE_URL": secret_url}
    reset_embedders()
    try:
        user = make_user(alpha, "deg-reader", projects={"deg": "reader"})
        client = alpha.client(HTTP_AUTHORIZATION=f"Token {token_for(alpha, user)}")
        with caplog.at_level(logging.WARNING):
            response = client.post(
                "/api/kb/search", json.dumps({"query": "failover"}), content_type="application/json"
            )
    finally:
        settings.KB = {**settings.KB, "EMBEDDING_PROVIDER": "hash"}
        reset_embedders()
    assert response.status_code == 200
    degraded = response.json()["meta"]["degraded"]
    assert degraded == ["embedding_unavailable"]
    assert "127.0.0.1" not in response.content.decode()
    assert secret_url in caplog.text  # the operator still sees where it failed


class _Recorder(BaseHTTPRequestHandler):
    seen: list[tuple[str, str | None]] = []

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        self.seen.append((self.path, self.headers.get("Authorization")))
        self.send_response(302)
        self.send_header("Location", "/stolen")
        self.end_headers()

    def do_GET(self) -> None:  # noqa: N802
        self.seen.append((self.path, self.headers.get("Authorization")))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b'{"data": []}')

    def log_message(self, *args: object) -> None:
        pass


def test_embedding_provider_never_resends_the_bearer_key_on_a_redirect():
    server = HTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Recorder.seen = []
    try:
        embedder = OpenAIEmbedder(
            base_url=f"http://127.0.0.1:{server.server_port}/v1",
            model="m",
            api_key="sk-secret-key",
            timeout=5,
        )
        with pytest.raises(EmbeddingError, match="redirect"):
            embedder.embed_query("hello")
    finally:
        server.shutdown()
    assert [path for path, _ in _Recorder.seen] == ["/v1/embeddings"]  # never followed


def test_old_answers_hide_citations_to_documents_the_user_lost(alpha):
    project = project_ensure(key="lost-access")
    document = document_ingest(
        project=project, source_path="plan.md", content="# Merger plan\n\nWe buy Initech.\n"
    ).document
    user = make_user(alpha, "lost-reader", projects={"lost-access": "reader"})
    conversation = Conversation.objects.create(user=user, title="Plans")
    Message.objects.create(conversation=conversation, role="user", content="Any plans?")
    Message.objects.create(
        conversation=conversation,
        role="assistant",
        content="We buy Initech [1].",
        citations=[
            {
                "n": 1,
                "document_id": document.pk,
                "chunk_id": 0,
                "title": "Merger plan",
                "slug": document.slug,
                "project_key": "lost-access",
                "heading_path": "Merger plan",
                "excerpt": "We buy Initech.",
                "origin": "primary",
                "preview_url": "",
                "canonical_status": None,
                "canonical_type": None,
            }
        ],
    )
    client = alpha.client()
    client.force_login(user)
    before = client.get(f"/chat/c/{conversation.pk}/").content.decode()
    assert "Merger plan" in before
    Membership.objects.filter(user=user, project=project).delete()
    after = client.get(f"/chat/c/{conversation.pk}/").content.decode()
    assert "Merger plan" not in after
    assert "Initech" not in after
    assert "no longer" in after


@pytest.mark.parametrize(
    ("markdown", "forbidden"),
    [
        ("[x](//evil.example/track)", "evil.example"),
        ("[x](/\\evil.example/track)", "evil.example"),
        ("![pixel](https://evil.example/pixel.png)", "evil.example"),
        ("![pixel](//evil.example/pixel.png)", "evil.example"),
        ('<img src="https://evil.example/p.png">', "<img"),
    ],
)
def test_previews_make_no_request_to_a_third_party_host(markdown, forbidden):
    html = render_markdown(markdown)
    assert 'src="http' not in html and 'src="//' not in html
    assert 'href="//' not in html and 'href="/\\' not in html
    if forbidden == "<img":
        assert "<img" not in html
    else:
        assert f'"//{forbidden}' not in html and f'"https://{forbidden}' not in html.split("<a")[0]


def test_previews_keep_ordinary_links():
    html = render_markdown("[docs](https://example.com/a) and [rel](other.md) ![d](diagram.png)")
    assert 'href="https://example.com/a"' in html
    assert 'href="other.md"' in html
    assert 'src="diagram.png"' in html
