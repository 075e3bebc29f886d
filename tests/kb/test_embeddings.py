"""get_embedder(): provider selection, caching, unit vectors, typed errors."""

from __future__ import annotations

import json
import math
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.db import connection

from kb.embeddings import (
    EmbeddingDimensionError,
    EmbeddingError,
    build_embedder,
    get_embedder,
    reset_embedders,
)


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


@pytest.fixture(autouse=True)
def _fresh_cache():
    # provider tests run outside any tenant (a client request earlier leaves its schema set)
    connection.set_schema_to_public()
    reset_embedders()
    yield
    reset_embedders()


def test_hash_embedder_is_deterministic_unit_and_word_sensitive(db):
    embedder = get_embedder()
    assert embedder.name == "hash" and embedder.dimensions == 384
    a, b, c = embedder.embed_documents(
        ["redis cluster failover", "how to fail over the redis cluster", "quarterly tax report"]
    )
    assert all(abs(math.sqrt(sum(v * v for v in vec)) - 1) < 1e-9 for vec in (a, b, c))
    assert embedder.embed_query("redis cluster failover") == a
    assert cosine(a, b) > 0.3 > abs(cosine(a, c))
    assert get_embedder() is embedder


def test_hash_provider_refuses_outside_tests(settings):
    settings.TESTING = False
    with pytest.raises(ImproperlyConfigured, match="only runs under tests"):
        build_embedder("hash")


def test_unknown_provider_is_a_configuration_error(settings):
    settings.KB = {**settings.KB, "EMBEDDING_PROVIDER": "nope"}
    with pytest.raises(ImproperlyConfigured, match="Unknown KB_EMBEDDING_PROVIDER 'nope'"):
        get_embedder()


def test_configured_dimension_mismatch_is_refused(settings, alpha):
    # a 768-d model is a valid embedder; for a tenant that stores vector(384) it is refused
    settings.KB = {**settings.KB, "EMBEDDING_DIMENSIONS": 768}
    assert build_embedder("hash").dimensions == 768
    with pytest.raises(EmbeddingDimensionError, match="vector\\(384\\).*kb_reembed"):
        get_embedder()


class _FakeOpenAI(BaseHTTPRequestHandler):
    dims = 384
    status = 200
    seen: list[dict] = []

    def do_POST(self) -> None:  # noqa: N802 - http.server API
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).seen.append({"body": body, "auth": self.headers.get("Authorization")})
        if self.status != 200:
            self.send_response(self.status)
            self.end_headers()
            return
        data = [
            {"index": i, "embedding": [float(i + 1)] + [0.5] * (self.dims - 1)}
            for i, _ in enumerate(body["input"])
        ]
        payload = json.dumps({"data": list(reversed(data))}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def fake_openai(settings):
    _FakeOpenAI.dims, _FakeOpenAI.status, _FakeOpenAI.seen = 384, 200, []
    server = HTTPServer(("127.0.0.1", 0), _FakeOpenAI)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    settings.KB = {
        **settings.KB,
        "EMBEDDING_PROVIDER": "openai",
        "EMBEDDING_BASE_URL": f"http://127.0.0.1:{server.server_port}/v1/",
        "EMBEDDING_MODEL": "nomic-embed-text",
        "EMBEDDING_DIMENSIONS": 384,
        "EMBEDDING_API_KEY": "sk-test",
        "EMBEDDING_TIMEOUT": 5.0,
        "EMBEDDING_BATCH_SIZE": 2,
    }
    yield _FakeOpenAI
    server.shutdown()


def test_openai_compatible_provider_batches_orders_and_normalises(fake_openai):
    embedder = get_embedder()
    vectors = embedder.embed_documents(["a", "b", "c"])
    assert len(fake_openai.seen) == 2  # batch size 2
    assert fake_openai.seen[0]["auth"] == "Bearer sk-test"
    assert fake_openai.seen[0]["body"]["model"] == "nomic-embed-text"
    assert all(abs(math.sqrt(sum(v * v for v in vec)) - 1) < 1e-9 for vec in vectors)
    assert vectors[0][0] < vectors[1][0]  # response order restored by index


def test_openai_provider_errors_are_typed(fake_openai, settings):
    fake_openai.status = 503
    with pytest.raises(EmbeddingError, match="HTTP 503"):
        get_embedder().embed_query("x")
    fake_openai.status, fake_openai.dims = 200, 1536
    with pytest.raises(EmbeddingDimensionError, match="1536"):
        get_embedder().embed_query("x")
    reset_embedders()
    settings.KB = {**settings.KB, "EMBEDDING_BASE_URL": "http://127.0.0.1:9/v1"}
    with pytest.raises(EmbeddingError, match="unreachable"):
        get_embedder().embed_query("x")


def test_openai_size_is_the_endpoints_own_unless_configured(fake_openai, settings):
    # KB_EMBEDDING_DIMENSIONS 0: the first answer fixes the size, every later one is checked
    settings.KB = {**settings.KB, "EMBEDDING_DIMENSIONS": 0}
    fake_openai.dims = 768
    embedder = build_embedder("openai")
    assert embedder.dimensions == 0
    assert len(embedder.embed_query("x")) == 768 and embedder.dimensions == 768
    assert "dimensions" not in fake_openai.seen[-1]["body"]
    fake_openai.dims = 384
    with pytest.raises(EmbeddingDimensionError, match="384.*768"):
        embedder.embed_query("x")
