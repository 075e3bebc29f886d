"""The tenant home as a start page: ask box, projects with counts, recent chats, editor queue."""

from __future__ import annotations

import pytest

from chat.models import ContentGap, Conversation, Feedback, Message
from tests.chat.conftest import HANDBOOK_KEY
from tests.conftest import make_user

pytestmark = pytest.mark.django_db


def _client(info, user):
    client = info.client()
    client.force_login(user)
    return client


def test_readers_get_an_ask_box_projects_with_counts_and_recent_conversations(alpha, handbook):
    reader = make_user(alpha, "home-reader", projects={HANDBOOK_KEY: "reader"})
    Conversation.objects.create(user=reader, title="Where are the logs?")
    Conversation.objects.create(user=reader, title="Scripted", source="api")
    html = _client(alpha, reader).get("/").content.decode()
    assert html.count("<h1") == 1
    assert 'action="/chat/send"' in html and 'name="question"' in html
    count = handbook.documents.filter(deleted_at__isnull=True).count()
    assert f"{count} documents" in html
    assert "Chat handbook" in html and f"<code>{HANDBOOK_KEY}</code>" in html
    assert "Where are the logs?" in html and "Scripted" not in html
    assert "For editors" not in html


def test_a_project_named_like_its_key_is_listed_once(alpha):
    from portal.access.models import Project

    Project.objects.create(key="handbook-x", name="handbook-x")
    reader = make_user(alpha, "home-once", projects={"handbook-x": "reader"})
    html = _client(alpha, reader).get("/").content.decode()
    assert html.count("handbook-x") == 2  # the link text and its ?project= link, no <code> twin
    assert "<code>handbook-x</code>" not in html


def test_editors_see_open_feedback_and_content_gaps(alpha, handbook):
    editor = make_user(alpha, "home-editor", projects={HANDBOOK_KEY: "editor"})
    asker = make_user(alpha, "home-asker", projects={HANDBOOK_KEY: "reader"})
    conversation = Conversation.objects.create(user=asker, title="q")
    message = Message.objects.create(conversation=conversation, role="assistant", content="a")
    Feedback.objects.create(message=message, user=asker, rating="down", project_keys=[HANDBOOK_KEY])
    ContentGap.objects.create(
        project_key=HANDBOOK_KEY,
        normalised_question="who owns billing",
        example_question="Who owns billing?",
        count=4,
    )
    html = _client(alpha, editor).get("/").content.decode()
    assert "For editors" in html
    assert "1 open feedback item" in html
    assert "Who owns billing?" in html and "asked 4×" in html


def test_anonymous_is_sent_to_login(alpha):
    response = alpha.client().get("/")
    assert response.status_code == 302 and "/login/" in response["Location"]
