"""Chat fixtures: the demo handbook committed per test module, a recording fake provider and a
fake OpenAI-compatible server."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import ThreadingHTTPServer
from typing import Any

import pytest

from chat.prompt import Prompt
from chat.providers import ProviderAnswer, ProviderError, register_provider
from kb.demo import DEMO_CORPUS_DIR
from kb.models import Document
from portal.access.models import Project
from tests.chat.test_openai_provider import FakeOpenAI
from tests.conftest import TenantInfo

HANDBOOK_KEY = "chat-handbook"  # unique to these tests: the data outlives each test transaction
REAL_HANDBOOK_KEY = "chat-handbook-real"


class MemoEmbedder:
    """Remembers document vectors, so a corpus re-ingested by another module is not re-embedded."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = inner.name
        self.dimensions = inner.dimensions
        self._vectors: dict[str, list[float]] = {}

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        missing = [text for text in dict.fromkeys(texts) if text not in self._vectors]
        if missing:
            self._vectors.update(zip(missing, self.inner.embed_documents(missing), strict=True))
        return [self._vectors[text] for text in texts]

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)


@contextmanager
def committed_handbook(
    info: TenantInfo, key: str, embedder: Any, django_db_blocker: Any
) -> Iterator[Project]:
    """The demo handbook committed in its own project for one test module, removed afterwards:
    other apps' tests count every document a superuser sees, so nothing may outlive us."""
    from kb.services import IngestItem, documents_ingest_many

    with django_db_blocker.unblock(), info.scope():
        project, _ = Project.objects.get_or_create(key=key, defaults={"name": "Chat handbook"})
        items = [
            IngestItem(source_path=f"handbook/{path.name}", content=path.read_bytes())
            for path in sorted(DEMO_CORPUS_DIR.glob("*.md"))
        ]
        outcomes = documents_ingest_many(project=project, items=items, embedder=embedder)
        assert not [o for o in outcomes if o.status == "failed"], outcomes
    try:
        yield project
    finally:
        with django_db_blocker.unblock(), info.scope():
            project_remove(key)


def project_remove(key: str) -> None:
    """Delete a test project with its documents (chunks, edges, audit rows cascade)."""
    Document.objects.filter(project__key=key).delete()
    Project.objects.filter(key=key).delete()


@pytest.fixture(scope="session")
def local_embedder() -> MemoEmbedder:
    from kb.embeddings import build_embedder

    return MemoEmbedder(build_embedder("local"))


@pytest.fixture(scope="module")
def handbook(tenants, django_db_blocker) -> Iterator[Project]:
    """The demo handbook in alpha, embedded with the deterministic hash embedder."""
    from kb.embeddings import build_embedder

    with committed_handbook(
        tenants["alpha"], HANDBOOK_KEY, build_embedder("hash"), django_db_blocker
    ) as project:
        yield project


@pytest.fixture(scope="module")
def real_handbook(tenants, django_db_blocker, local_embedder) -> Iterator[Project]:
    """The demo handbook in alpha, embedded with the real local model."""
    with committed_handbook(
        tenants["alpha"], REAL_HANDBOOK_KEY, local_embedder, django_db_blocker
    ) as project:
        yield project


@dataclass
class RecordingProvider:
    """Test double: records every prompt and answers what the test scripted."""

    reply: str = "Redis Cluster is the standard cache [1]."
    error: ProviderError | None = None
    calls: list[Prompt] = field(default_factory=list)
    name: str = "recording"
    model: str = "recording-1"
    supports_streaming: bool = False

    def answer(self, prompt: Prompt) -> ProviderAnswer:
        self.calls.append(prompt)
        if self.error is not None:
            raise self.error
        return ProviderAnswer(text=self.reply, model=self.model)

    def stream(self, prompt: Prompt) -> Iterator[str]:
        yield self.answer(prompt).text


@pytest.fixture
def recording_provider(settings) -> RecordingProvider:
    provider = RecordingProvider()
    register_provider("recording", lambda: provider)
    settings.CHAT = {**settings.CHAT, "PROVIDER": "recording"}
    return provider


@pytest.fixture
def openai_fake(settings) -> Iterator[ThreadingHTTPServer]:
    """The chat answers through a streaming OpenAI-compatible provider, a local fake server
    (the test sets its `mode` and reads the `requests` it saw)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeOpenAI)
    server.daemon_threads = True
    server.mode = "ok"  # type: ignore[attr-defined]
    server.requests = []  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    host, port = str(server.server_address[0]), server.server_address[1]
    settings.CHAT = {
        **settings.CHAT,
        "PROVIDER": "openai",
        "BASE_URL": f"http://{host}:{port}/v1",
        "MODEL": "fake-model",
        "TIMEOUT": 5.0,
        "STREAMING": True,
    }
    settings.KB = {**settings.KB, "MIN_SIMILARITY": 0.2}  # hash embedder; see test_chat_api
    yield server
    server.shutdown()
    server.server_close()
