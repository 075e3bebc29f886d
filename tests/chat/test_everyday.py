"""Everyday chat (issue 15): rename/delete/search conversations, API ones kept apart, the
question limit, regenerate, feedback reaching the editors' queue, refusals over all projects."""

from __future__ import annotations

import json

import pytest

from chat.models import ChatLog, ContentGap, Conversation, Feedback, Message
from chat.services import REFUSAL_NO_CONTEXT
from tests.chat.conftest import HANDBOOK_KEY
from tests.conftest import make_user, token_for

pytestmark = pytest.mark.django_db

FAILOVER = "How do I fail over the Redis cluster when a primary is down?"
NONSENSE = "zqxv wuggle frombat plinth quorble?"
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def answerable(settings):
    """Hash embedder cosines sit near 0.3; see test_chat_api.answerable."""
    settings.KB = {**settings.KB, "MIN_SIMILARITY": 0.2}


@pytest.fixture
def reader(alpha, handbook):
    return make_user(
        alpha, "everyday-reader", projects={HANDBOOK_KEY: "reader", "ed-two": "reader"}
    )


@pytest.fixture
def editor(alpha, handbook):
    return make_user(alpha, "everyday-editor", projects={HANDBOOK_KEY: "editor"})


def _client(info, user):
    client = info.client()
    client.force_login(user)
    return client


def _conversation_with_answer(user, *, refusal: str = "", citations=None) -> Message:
    conversation = Conversation.objects.create(user=user, title="Redis failover")
    Message.objects.create(conversation=conversation, role="user", content=FAILOVER)
    return Message.objects.create(
        conversation=conversation,
        role="assistant",
        content="Promote a replica [1].",
        refusal_reason=refusal,
        citations=citations if citations is not None else [],
        meta={"filters": {"project_keys": [HANDBOOK_KEY]}},
    )


# --- conversations -------------------------------------------------------------------------


def test_rename_changes_the_title_everywhere_and_rejects_a_blank_name(alpha, reader):
    message = _conversation_with_answer(reader)
    conversation = message.conversation
    client = _client(alpha, reader)
    response = client.post(
        f"/chat/c/{conversation.pk}/rename", {"title": "  Failover   notes "}, **HTMX
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="conversation-header"' in html and "<html" not in html
    assert "Failover notes" in html
    conversation.refresh_from_db()
    assert conversation.title == "Failover notes"
    assert "Failover notes" in client.get("/chat/").content.decode()

    blank = client.post(f"/chat/c/{conversation.pk}/rename", {"title": "   "}, **HTMX)
    assert "Give the conversation a name." in blank.content.decode()
    conversation.refresh_from_db()
    assert conversation.title == "Failover notes"
    plain = client.post(f"/chat/c/{conversation.pk}/rename", {"title": "x" * 201})
    assert plain.status_code == 400


def test_delete_removes_the_conversation_and_its_messages(alpha, reader):
    message = _conversation_with_answer(reader)
    conversation_id = message.conversation_id
    client = _client(alpha, reader)
    response = client.post(f"/chat/c/{conversation_id}/delete", **HTMX)
    assert response.status_code == 204 and response["HX-Redirect"] == "/chat/"
    assert not Conversation.objects.filter(pk=conversation_id).exists()
    assert not Message.objects.filter(conversation_id=conversation_id).exists()
    assert client.get(f"/chat/c/{conversation_id}/").status_code == 404


def test_someone_elses_conversation_cannot_be_renamed_deleted_or_rated(alpha, reader):
    message = _conversation_with_answer(reader)
    stranger = make_user(alpha, "everyday-stranger", projects={HANDBOOK_KEY: "reader"})
    client = _client(alpha, stranger)
    conversation_id = message.conversation_id
    assert client.post(f"/chat/c/{conversation_id}/rename", {"title": "mine"}).status_code == 404
    assert client.post(f"/chat/c/{conversation_id}/delete").status_code == 404
    assert client.post(f"/chat/m/{message.pk}/feedback", {"rating": "down"}).status_code == 404
    assert Conversation.objects.filter(pk=conversation_id, title="Redis failover").exists()
    assert not Feedback.objects.exists()


def test_other_tenants_cannot_reach_the_actions(alpha, beta, reader):
    message = _conversation_with_answer(reader)
    outsider = make_user(beta, "everyday-beta")
    client = beta.client()
    with beta.scope():
        client.force_login(outsider)
        assert client.post(f"/chat/m/{message.pk}/feedback", {"rating": "up"}).status_code == 404
        assert client.post(f"/chat/c/{message.conversation_id}/delete").status_code == 404


def test_search_filters_the_sidebar_by_title_or_message_and_dates_it(alpha, reader):
    _conversation_with_answer(reader)
    Conversation.objects.create(user=reader, title="Holiday policy")
    client = _client(alpha, reader)
    full = client.get("/chat/").content.decode()
    assert "Redis failover" in full and "Holiday policy" in full
    assert '<time class="conversation-date"' in full
    fragment = client.get(
        "/chat/?q=promote", HTTP_HX_REQUEST="true", HTTP_HX_TARGET="conversation-list"
    ).content.decode()
    assert fragment.lstrip().startswith('<nav id="conversation-list"')
    assert "Redis failover" in fragment and "Holiday policy" not in fragment
    none = client.get("/chat/?q=kubernetes").content.decode()
    assert "No conversation matches “kubernetes”." in none


def test_api_conversations_stay_out_of_the_browser_sidebar(alpha, reader, answerable):
    api = alpha.client(HTTP_AUTHORIZATION=f"Token {token_for(alpha, reader)}")
    response = api.post(
        "/api/kb/chat", {"question": "Scripted nightly check"}, content_type="application/json"
    )
    assert response.status_code == 200
    conversation = Conversation.objects.get(pk=response.json()["conversation_id"])
    assert conversation.source == "api"
    page = _client(alpha, reader)
    page.post("/chat/send", {"question": FAILOVER, "project": ""})
    html = page.get("/chat/").content.decode()
    assert "Scripted nightly check" not in html
    assert Conversation.objects.get(user=reader, source="browser").title in html


# --- the question box --------------------------------------------------------------------


def test_the_box_says_enter_sends_and_counts_without_cutting(alpha, reader, settings):
    settings.CHAT = {**settings.CHAT, "QUESTION_MAX_CHARS": 50}
    client = _client(alpha, reader)
    html = client.get("/chat/").content.decode()
    assert "Enter sends · Shift+Enter adds a new line" in html
    assert 'data-max-chars="50"' in html and "/ 50 characters" in html
    assert 'maxlength="10000"' not in html  # a paste is never cut silently
    long_question = "why " * 30
    response = client.post("/chat/send", {"question": long_question}, **HTMX)
    body = response.content.decode()
    assert (
        "Your question is 119 characters long; the limit is 50. Shorten it and ask again." in body
    )
    assert long_question.strip() in body  # kept whole in the box to shorten
    assert not Message.objects.filter(conversation__user=reader).exists()
    api = alpha.client(HTTP_AUTHORIZATION=f"Token {token_for(alpha, reader)}")
    refused = api.post("/api/kb/chat", {"question": long_question}, content_type="application/json")
    assert refused.status_code == 400
    assert "the limit is 50" in refused.json()["question"][0]


def test_the_last_answer_offers_regenerate_and_every_answer_copy_and_thumbs(
    alpha, reader, answerable
):
    client = _client(alpha, reader)
    client.post("/chat/send", {"question": FAILOVER, "project": HANDBOOK_KEY})
    conversation = Conversation.objects.get(user=reader)
    client.post(
        "/chat/send",
        {"question": "And the cache?", "project": HANDBOOK_KEY, "conversation_id": conversation.pk},
    )
    html = client.get(f"/chat/c/{conversation.pk}/").content.decode()
    assert html.count("data-copy-answer") == 2
    assert html.count('aria-label="Not helpful"') == 2
    assert html.count("Regenerate</button>") == 1
    assert 'name="question" value="And the cache?"' in html
    regenerated = client.post(
        "/chat/send",
        {"question": "And the cache?", "project": HANDBOOK_KEY, "conversation_id": conversation.pk},
        **HTMX,
    )
    assert regenerated.status_code == 200
    assert conversation.messages.filter(role="assistant").count() == 3


# --- feedback ------------------------------------------------------------------------------


def test_thumbs_down_with_comment_is_stored_and_shown(alpha, reader, editor):
    citation = {
        "n": 1,
        "document_id": 0,
        "title": "Redis",
        "slug": "redis",
        "project_key": HANDBOOK_KEY,
    }
    message = _conversation_with_answer(reader, citations=[citation])
    client = _client(alpha, reader)
    response = client.post(
        f"/chat/m/{message.pk}/feedback",
        {"rating": "down", "comment": "Wrong runbook"},
        **HTMX,
    )
    html = response.content.decode()
    assert response.status_code == 200 and f'id="feedback-{message.pk}"' in html
    assert 'value="down" class="thumb" aria-pressed="true"' in html
    assert "The editors will review this answer." in html
    feedback = Feedback.objects.get(message=message)
    assert (feedback.rating, feedback.comment, feedback.project_keys) == (
        "down",
        "Wrong runbook",
        [HANDBOOK_KEY],
    )
    # changing one's mind updates the one row
    client.post(f"/chat/m/{message.pk}/feedback", {"rating": "up"})
    assert Feedback.objects.get(message=message).rating == "up"
    bad = client.post(f"/chat/m/{message.pk}/feedback", {"rating": "meh"})
    assert bad.status_code == 400


QUEUE = "/admin/chat/feedback/"


def test_thumbs_down_reaches_the_editors_queue_and_can_be_resolved(alpha, reader, editor):
    message = _conversation_with_answer(reader)
    _client(alpha, reader).post(
        f"/chat/m/{message.pk}/feedback", {"rating": "down", "comment": "Outdated"}
    )
    console = _client(alpha, editor)
    listing = console.get(QUEUE, follow=True).content.decode()
    assert "How do I fail over the Redis cluster" in listing and "Outdated" in listing
    feedback = Feedback.objects.get(message=message)
    detail = console.get(f"{QUEUE}{feedback.pk}/change/").content.decode()
    assert "Promote a replica [1]." in detail and "Outdated" in detail
    console.post(QUEUE, {"action": "mark_resolved", "_selected_action": [feedback.pk]})
    feedback.refresh_from_db()
    assert feedback.resolved_at is not None and feedback.resolved_by == editor
    assert (
        "How do I fail over" not in console.get(QUEUE, follow=True).content.decode()
    )  # open queue is empty


def test_editors_of_other_projects_do_not_see_the_feedback(alpha, reader):
    message = _conversation_with_answer(reader)
    Feedback.objects.create(
        message=message, user=reader, rating="down", project_keys=[HANDBOOK_KEY]
    )
    other = make_user(alpha, "everyday-other-editor", projects={"ed-two": "editor"})
    console = _client(alpha, other)
    assert "How do I fail over" not in console.get(QUEUE, follow=True).content.decode()
    feedback = Feedback.objects.get(message=message)
    assert console.get(f"{QUEUE}{feedback.pk}/change/").status_code == 404


def test_gold_export_writes_the_harness_format(alpha, reader, editor):
    citation = {
        "n": 1,
        "document_id": 1,
        "title": "Redis",
        "slug": "redis-cluster",
        "project_key": HANDBOOK_KEY,
    }
    message = _conversation_with_answer(reader, citations=[citation])
    feedback = Feedback.objects.create(
        message=message,
        user=reader,
        rating="down",
        project_keys=[HANDBOOK_KEY],
        gold_facts="promote a replica | failover\nsentinel",
    )
    response = _client(alpha, editor).post(
        QUEUE, {"action": "export_gold", "_selected_action": [feedback.pk]}
    )
    assert response["Content-Disposition"].endswith('gold-from-feedback.jsonl"')
    line = json.loads(response.content.decode().strip())
    assert line == {
        "q": FAILOVER,
        "facts": [["promote a replica", "failover"], ["sentinel"]],
        "slugs": ["redis-cluster"],
        "refuse": False,
    }


def test_feedback_counts_per_document(alpha, reader, editor, handbook):
    from kb.models import Document

    document = Document.objects.filter(project=handbook).order_by("pk").first()
    citation = {
        "n": 1,
        "document_id": document.pk,
        "title": document.title,
        "slug": document.slug,
        "project_key": HANDBOOK_KEY,
    }
    for rating in ("down", "down", "up"):
        message = _conversation_with_answer(reader, citations=[citation])
        Feedback.objects.create(
            message=message,
            user=reader,
            rating=rating,
            project_keys=[HANDBOOK_KEY],
            document_ids=[document.pk],
        )
    html = _client(alpha, editor).get(f"{QUEUE}documents/").content.decode()
    assert document.title in html
    assert "<td>2</td><td>1</td>" in html


# --- refusals over "All my projects" -------------------------------------------------------


def test_an_unscoped_refusal_reaches_the_editors_of_every_project_searched(
    alpha, reader, recording_provider
):
    make_user(alpha, "everyday-two-editor", projects={"ed-two": "editor"})
    _client(alpha, reader).post("/chat/send", {"question": NONSENSE, "project": ""})
    assert Message.objects.filter(refusal_reason=REFUSAL_NO_CONTEXT).exists()
    gaps = set(
        ContentGap.objects.filter(example_question=NONSENSE).values_list("project_key", flat=True)
    )
    assert gaps == {HANDBOOK_KEY, "ed-two"}
    log = ChatLog.objects.get(question=NONSENSE)
    assert sorted(log.project_keys) == sorted([HANDBOOK_KEY, "ed-two"])
    from django.contrib.auth import get_user_model

    from chat.selectors import chat_logs_for, content_gaps_for

    two_editor = get_user_model().objects.get(username="everyday-two-editor")
    assert chat_logs_for(user=two_editor).filter(pk=log.pk).exists()
    assert content_gaps_for(user=two_editor).filter(example_question=NONSENSE).exists()


def test_feedback_on_a_foreign_scope_does_not_reach_that_projects_editors(alpha, reader):
    conversation = Conversation.objects.create(user=reader, title="probe")
    Message.objects.create(conversation=conversation, role="user", content="secret roadmap?")
    message = Message.objects.create(
        conversation=conversation,
        role="assistant",
        content="No answer.",
        refusal_reason=REFUSAL_NO_CONTEXT,
        meta={"filters": {"project_keys": ["ed-secret"]}},
    )
    _client(alpha, reader).post(f"/chat/m/{message.pk}/feedback", {"rating": "down"})
    feedback = Feedback.objects.get(message=message)
    assert "ed-secret" not in feedback.project_keys
    assert sorted(feedback.project_keys) == sorted([HANDBOOK_KEY, "ed-two"])
