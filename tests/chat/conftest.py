"""Chat fixtures: the demo handbook ingested once per session, and a recording fake provider."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from chat.prompt import Prompt
from chat.providers import ProviderAnswer, ProviderError, register_provider
from kb.demo import DEMO_CORPUS_DIR
from portal.access.models import Project
from tests.conftest import TenantInfo

HANDBOOK_KEY = "chat-handbook"  # unique to these tests: the data outlives each test transaction
REAL_HANDBOOK_KEY = "chat-handbook-real"


def _ingest_handbook(info: TenantInfo, key: str, embedder_name: str) -> Project:
    from kb.embeddings import build_embedder
    from kb.services import IngestItem, documents_ingest_many

    with info.scope():
        project, _ = Project.objects.get_or_create(key=key, defaults={"name": "Chat handbook"})
        items = [
            IngestItem(source_path=f"handbook/{path.name}", content=path.read_bytes())
            for path in sorted(DEMO_CORPUS_DIR.glob("*.md"))
        ]
        outcomes = documents_ingest_many(
            project=project, items=items, embedder=build_embedder(embedder_name)
        )
        assert not [o for o in outcomes if o.status == "failed"], outcomes
    return project


@pytest.fixture(scope="session")
def handbook(tenants, django_db_blocker) -> Project:
    """The demo handbook in alpha, embedded with the deterministic hash embedder."""
    with django_db_blocker.unblock():
        return _ingest_handbook(tenants["alpha"], HANDBOOK_KEY, "hash")


@pytest.fixture(scope="session")
def real_handbook(tenants, django_db_blocker) -> Project:
    """The demo handbook in alpha, embedded with the real local model."""
    with django_db_blocker.unblock():
        return _ingest_handbook(tenants["alpha"], REAL_HANDBOOK_KEY, "local")


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
