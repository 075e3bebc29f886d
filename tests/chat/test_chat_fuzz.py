"""Short and odd questions, as first questions and as follow-ups, through the chat API and the
chat page: an answer or a refusal, never a 500 (hypothesis)."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chat.models import Conversation
from portal import ratelimit
from tests.chat.conftest import HANDBOOK_KEY
from tests.conftest import make_user, token_for

pytestmark = pytest.mark.django_db

WORDS = [
    "it", "it's", "that", "their", "the first", "and", "what about", "who", "when", "why",
    "how long", "how many", "still", "before", "Redis", "cache", "P2", "ADR-0005", "?", "!",
    "kept", "log", "logs", "GW-4021", "Memcached", "and at", "é", "ß", "漢字", "0", "-1", "%",
    "__init__", "SELECT *", "<b>", "[[x]]", "**", "`", "\u200b", "🙂", "on-call",
]  # fmt: skip
QUESTIONS = st.one_of(
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(" ".join),
    st.text(min_size=1, max_size=40).filter(lambda t: t.strip() and "\x00" not in t),
)
EXAMPLES = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.fixture
def asker(alpha, handbook, monkeypatch):
    monkeypatch.setattr(ratelimit, "hit", lambda *a, **k: (True, None))  # no throttling here
    user = make_user(alpha, "fuzz-asker", projects={HANDBOOK_KEY: "reader"})
    return user, token_for(alpha, user)


@EXAMPLES
@given(first=QUESTIONS, follow_up=QUESTIONS)
def test_the_chat_api_answers_or_refuses_any_short_question(alpha, asker, first, follow_up):
    client = alpha.client(HTTP_AUTHORIZATION=f"Token {asker[1]}")

    def ask(question: str, conversation_id: int | None = None):
        body: dict[str, object] = {"question": question}
        if conversation_id:
            body["conversation_id"] = conversation_id
        return client.post("/api/kb/chat", json.dumps(body), content_type="application/json")

    response = ask(first)
    assert response.status_code in (200, 400), response.content
    if response.status_code == 200:
        assert response.json()["answer"]
        second = ask(follow_up, response.json()["conversation_id"])
        assert second.status_code in (200, 400), second.content


@EXAMPLES
@given(first=QUESTIONS, follow_up=QUESTIONS)
def test_the_chat_page_answers_or_refuses_any_short_question(alpha, asker, first, follow_up):
    client = alpha.client()
    client.force_login(asker[0])
    page = client.post("/chat/send", {"question": first}, HTTP_HX_REQUEST="true")
    assert page.status_code == 200, page.content[:500]
    latest = Conversation.objects.filter(user=asker[0]).order_by("-updated_at").first()
    data = {"question": follow_up, "conversation_id": latest.pk if latest else ""}
    again = client.post("/chat/send", data, HTTP_HX_REQUEST="true")
    assert again.status_code == 200, again.content[:500]
