"""Streamed answers: /chat/stream sends SSE `token` events from a streaming provider, then
`done` with the same chat-main fragment the htmx path renders."""

from __future__ import annotations

import json

import pytest

from chat.models import Conversation, Message
from tests.chat.conftest import HANDBOOK_KEY
from tests.conftest import make_user

pytestmark = pytest.mark.django_db

FAILOVER = "How do I fail over the Redis cluster when a primary is down?"


@pytest.fixture
def client(alpha, handbook):
    user = make_user(alpha, "stream-reader", projects={HANDBOOK_KEY: "reader"})
    client = alpha.client()
    client.force_login(user)
    client.user = user
    return client


def _events(response) -> list[tuple[str, dict]]:
    raw = b"".join(response.streaming_content).decode()
    events = []
    for block in raw.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines())
        events.append((lines["event"], json.loads(lines["data"])))
    return events


def test_tokens_stream_then_the_stored_answer_fragment(client, openai_fake):
    page = client.get("/chat/").content.decode()
    assert 'data-stream-url="/chat/stream"' in page  # the page offers streaming
    response = client.post("/chat/stream", {"question": FAILOVER})
    assert response["Content-Type"] == "text/event-stream"
    events = _events(response)
    assert [name for name, _ in events] == ["token", "token", "token", "done"]
    assert "".join(data["text"] for _, data in events[:3]) == (
        "Redis Cluster is the standard cache [1]."
    )
    done = events[-1][1]
    conversation = Conversation.objects.get(user=client.user)
    assert done["url"] == f"/chat/c/{conversation.pk}/"
    assert done["html"].lstrip().startswith('<section id="chat-main"')
    assert 'class="chip' in done["html"] and "Redis Cluster is the standard cache" in done["html"]
    answer = Message.objects.get(conversation=conversation, role="assistant")
    assert answer.meta["provider"] == "openai" and answer.citations[0]["n"] == 1
    assert openai_fake.requests[0]["body"]["stream"] is True


def test_a_refusal_streams_no_tokens(client, openai_fake, settings):
    settings.KB = {**settings.KB, "MIN_SIMILARITY": 0.30}  # the shipped floor
    events = _events(client.post("/chat/stream", {"question": "zebra xylophone quantum marmalade"}))
    assert [name for name, _ in events] == ["done"]
    assert 'data-refusal-reason="no_relevant_context"' in events[0][1]["html"]
    assert openai_fake.requests == []


def test_a_provider_error_ends_the_stream_with_an_error_bubble(client, openai_fake):
    openai_fake.mode = "error"
    events = _events(client.post("/chat/stream", {"question": FAILOVER}))
    assert events[-1][0] == "done"
    assert events[-1][1]["url"] == ""
    assert "bubble-error" in events[-1][1]["html"] and "Retry" in events[-1][1]["html"]


def test_the_extractive_provider_does_not_offer_streaming(client):
    assert "data-stream-url" not in client.get("/chat/").content.decode()


def test_streaming_into_someone_elses_conversation_is_404(alpha, client, openai_fake):
    other = make_user(alpha, "stream-other", projects={HANDBOOK_KEY: "reader"})
    theirs = Conversation.objects.create(user=other, title="private")
    response = client.post("/chat/stream", {"question": FAILOVER, "conversation_id": theirs.pk})
    assert response.status_code == 404
