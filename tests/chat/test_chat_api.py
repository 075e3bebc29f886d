"""POST /api/kb/chat: grounded answers, the refusal contract, typed provider errors, bad input."""

from __future__ import annotations

import json

import pytest

from chat.models import ChatLog, ContentGap, Conversation, Message
from chat.providers import ProviderError, ProviderTimeout
from chat.services import normalise_question, spelled_right
from tests.chat.conftest import HANDBOOK_KEY
from tests.conftest import make_user, token_for

pytestmark = pytest.mark.django_db

URL = "/api/kb/chat"
FAILOVER = "How do I fail over the Redis cluster when a primary is down?"
OFF_TOPIC = "zebra xylophone quantum marmalade"


@pytest.fixture
def answerable(settings):
    """The hash test embedder has no semantics: its cosines for a matching question sit near
    0.3, so tests that need an answer lower the cosine floor. Refusal tests keep every
    default, and test_chat_real_model.py runs the real model with the shipped settings."""
    settings.KB = {**settings.KB, "MIN_SIMILARITY": 0.2}


def _post(info, token, payload):
    client = info.client(HTTP_AUTHORIZATION=f"Token {token}")
    return client.post(URL, data=json.dumps(payload), content_type="application/json")


@pytest.fixture
def reader(alpha, handbook):
    user = make_user(alpha, "chat-reader", projects={HANDBOOK_KEY: "reader"})
    return user, token_for(alpha, user)


@pytest.fixture
def outsider(alpha, handbook):
    user = make_user(alpha, "chat-outsider", projects={"chat-empty": "reader"})
    return user, token_for(alpha, user)


def test_a_handbook_question_gets_a_cited_answer(answerable, alpha, reader):
    response = _post(alpha, reader[1], {"question": FAILOVER})
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["refusal_reason"] is None
    assert body["citations"], body
    slugs = {c["slug"] for c in body["citations"]}
    assert "rb-redis-failover" in slugs
    for citation in body["citations"]:
        assert f"[{citation['n']}]" in body["answer"]
        assert citation["project_key"] == HANDBOOK_KEY
        assert citation["preview_url"] == f"/api/kb/documents/{citation['document_id']}/preview"
        assert set(citation) == {
            "n", "document_id", "chunk_id", "version", "title", "slug", "project_key",
            "heading_path", "excerpt", "origin", "preview_url", "canonical_status",
            "canonical_type",
        }  # fmt: skip
        assert citation["version"] == 1  # the handbook as ingested: its version 1
    meta = body["meta"]
    assert meta["provider"] == "extractive"
    assert meta["citation_check"]["dropped"] == []
    assert meta["citation_check"]["valid"] == [c["n"] for c in body["citations"]]
    assert meta["chunks_used"] >= meta["primary_count"] >= 1
    assert isinstance(meta["latency_ms"], int)
    conversation = Conversation.objects.get(pk=body["conversation_id"])
    assert conversation.title == FAILOVER
    assert [m.role for m in conversation.messages.all()] == ["user", "assistant"]
    log = ChatLog.objects.get(question=FAILOVER, user=reader[0])
    assert log.provider == "extractive" and log.chunk_ids and log.project_keys == [HANDBOOK_KEY]


def test_a_slip_of_typing_is_read_as_the_word_the_documents_use(
    answerable, alpha, reader, outsider
):
    typed = "How do I fail over the Redis clustr when a primary is down?"
    assert spelled_right(user=reader[0], question=typed) == FAILOVER
    # a word split by a hyphen is its compound, not its last part ("mes-age" is not "age")
    queue = "what do we use as the mesage queue for tracking events?"
    assert spelled_right(user=reader[0], question=queue) == queue.replace("mesage", "message")
    # only words of documents the asker can see put a question right
    assert spelled_right(user=outsider[0], question=typed) == typed
    meant = _post(alpha, reader[1], {"question": FAILOVER}).json()
    slipped = _post(alpha, reader[1], {"question": typed}).json()
    assert slipped["answer"] == meant["answer"]
    assert "rb-redis-failover" in {c["slug"] for c in slipped["citations"]}
    asked = Message.objects.filter(conversation_id=slipped["conversation_id"], role="user")
    assert [m.content for m in asked] == [typed]  # kept as typed


def test_follow_up_questions_join_the_same_conversation(answerable, alpha, reader):
    first = _post(alpha, reader[1], {"question": FAILOVER}).json()
    second = _post(
        alpha,
        reader[1],
        {
            "question": "How long does the failover take?",
            "conversation_id": first["conversation_id"],
        },
    )
    assert second.status_code == 200
    assert second.json()["conversation_id"] == first["conversation_id"]
    assert Message.objects.filter(conversation_id=first["conversation_id"]).count() == 4


def test_a_follow_up_without_a_conversation_starts_one(answerable, alpha, reader):
    """A question that reads as a follow-up ("and the old one?") with no conversation_id was a
    500: the new conversation had no row yet to read a previous question from."""
    response = _post(alpha, reader[1], {"question": "And how long does it take?"})
    assert response.status_code == 200, response.content[:300]
    assert Conversation.objects.filter(pk=response.json()["conversation_id"]).exists()


def test_off_topic_question_is_refused_before_the_provider_and_counted_as_a_gap(
    alpha, reader, recording_provider
):
    for question in [OFF_TOPIC, "  Zebra,  XYLOPHONE quantum marmalade?! "]:
        response = _post(alpha, reader[1], {"question": question})
        assert response.status_code == 200
        body = response.json()
        assert body["refusal_reason"] == "no_relevant_context"
        assert body["citations"] == []
        assert "won't guess" in body["answer"]
    assert recording_provider.calls == []  # the expensive call never happened
    # "All my projects" searched the reader's one project: the gap is that project's editors'
    assert not ContentGap.objects.filter(project_key="").exists()
    gap = ContentGap.objects.get(
        project_key=HANDBOOK_KEY, normalised_question=normalise_question(OFF_TOPIC)
    )
    assert gap.count == 2
    assert gap.normalised_question == "zebra xylophone quantum marmalade"


def test_a_refusal_scoped_to_a_project_is_counted_for_that_project(
    alpha, reader, recording_provider
):
    body = _post(alpha, reader[1], {"question": OFF_TOPIC, "project_key": HANDBOOK_KEY}).json()
    assert body["refusal_reason"] == "no_relevant_context"
    assert body["meta"]["filters"] == {"project_keys": [HANDBOOK_KEY]}
    assert ContentGap.objects.filter(project_key=HANDBOOK_KEY).count() == 1
    assert recording_provider.calls == []


def test_a_resolved_gap_reopens_when_asked_again(alpha, reader):
    _post(alpha, reader[1], {"question": OFF_TOPIC})
    ContentGap.objects.filter(project_key=HANDBOOK_KEY).update(resolved=True)
    _post(alpha, reader[1], {"question": OFF_TOPIC})
    gap = ContentGap.objects.get(
        project_key=HANDBOOK_KEY, normalised_question=normalise_question(OFF_TOPIC)
    )
    assert (gap.count, gap.resolved) == (2, False)


def test_documents_of_other_projects_never_ground_an_answer(
    answerable, alpha, outsider, recording_provider
):
    for payload in [{"question": FAILOVER}, {"question": FAILOVER, "project_key": HANDBOOK_KEY}]:
        body = _post(alpha, outsider[1], payload).json()
        assert body["refusal_reason"] == "no_relevant_context"
        assert body["citations"] == []
    assert recording_provider.calls == []
    # a foreign project key is not recorded as a gap of that project
    assert not ContentGap.objects.filter(project_key=HANDBOOK_KEY).exists()


def test_the_provider_sees_numbered_sources_and_invented_citations_are_dropped(
    answerable, alpha, reader, recording_provider
):
    recording_provider.reply = "Promote a replica [1]. Also call the CEO [42]."
    body = _post(alpha, reader[1], {"question": FAILOVER}).json()
    assert len(recording_provider.calls) == 1
    prompt = recording_provider.calls[0]
    assert "## Context" in prompt.user and "[1] " in prompt.user
    assert body["answer"] == "Promote a replica [1]. Also call the CEO."
    assert body["meta"]["citation_check"] == {"valid": [1], "dropped": [42]}
    assert [c["n"] for c in body["citations"]] == [1]
    assert body["meta"]["provider"] == "recording"


def test_the_no_grounded_answer_protocol_is_a_typed_self_refusal(
    answerable, alpha, reader, recording_provider
):
    recording_provider.reply = "__NO_GROUNDED_ANSWER__"
    body = _post(alpha, reader[1], {"question": FAILOVER}).json()
    assert body["refusal_reason"] == "llm_self_refusal"
    assert body["citations"] == []
    assert "__NO_GROUNDED_ANSWER__" not in body["answer"] and body["answer"]


def test_an_answer_citing_nothing_real_is_not_shown(answerable, alpha, reader, recording_provider):
    recording_provider.reply = "Just reboot everything [99]."
    body = _post(alpha, reader[1], {"question": FAILOVER}).json()
    assert body["refusal_reason"] == "ungrounded_answer"
    assert "reboot" not in body["answer"]


@pytest.mark.parametrize(
    ("error", "status", "code"),
    [
        (
            ProviderError("The answer service is unavailable right now."),
            502,
            "provider_unavailable",
        ),
        (ProviderTimeout("The answer service took too long to respond."), 504, "provider_timeout"),
    ],
)
def test_provider_failures_are_typed_errors_not_500s(
    answerable, alpha, reader, recording_provider, error, status, code
):
    recording_provider.error = error
    response = _post(alpha, reader[1], {"question": FAILOVER})
    assert response.status_code == status
    assert response.json() == {"detail": error.message, "error": code}
    assert not Conversation.objects.filter(user=reader[0]).exists()
    assert ChatLog.objects.get(user=reader[0]).refusal_reason == code


def test_a_broken_chat_log_never_breaks_the_answer(answerable, alpha, reader, monkeypatch):
    def explode(**kwargs):
        raise RuntimeError("log table is gone")

    monkeypatch.setattr(ChatLog.objects, "create", explode)
    response = _post(alpha, reader[1], {"question": FAILOVER})
    assert response.status_code == 200
    assert response.json()["citations"]


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({}, "question"),
        ({"question": ""}, "question"),
        ({"question": "   "}, "question"),
        ({"question": "x" * 10_001}, "question"),
        ({"question": "q", "filters": "handbook"}, "filters"),
        ({"question": "q", "filters": {"colour": ["red"]}}, "filters"),
        ({"question": "q", "filters": {"tags": "not-a-list"}}, "filters"),
        ({"question": "q", "filters": {"date_from": "yesterday"}}, "filters"),
        (
            {"question": "q", "filters": {"date_from": "2024-02-01", "date_to": "2024-01-01"}},
            "filters",
        ),
        ({"question": "q", "filters": {"source_types": ["xlsx"]}}, "filters"),
        ({"question": "q", "conversation_id": "abc"}, "conversation_id"),
    ],
)
def test_bad_input_is_a_400_with_field_errors(alpha, reader, payload, field):
    response = _post(alpha, reader[1], payload)
    assert response.status_code == 400, response.content
    assert field in response.json()


def test_unknown_filter_keys_are_named_in_the_error(alpha, reader):
    body = _post(alpha, reader[1], {"question": "q", "filters": {"colour": ["red"]}}).json()
    assert "colour" in body["filters"]


def test_someone_elses_or_a_missing_conversation_is_the_same_404(alpha, reader, outsider):
    other = _post(alpha, outsider[1], {"question": OFF_TOPIC}).json()["conversation_id"]
    foreign = _post(alpha, reader[1], {"question": FAILOVER, "conversation_id": other})
    missing = _post(alpha, reader[1], {"question": FAILOVER, "conversation_id": 987654})
    assert foreign.status_code == missing.status_code == 404
    assert foreign.content == missing.content
    assert foreign.json() == {"detail": "Not found."}


def test_anonymous_and_other_tenant_tokens_are_rejected(alpha, beta, reader):
    anonymous = alpha.client().post(URL, data="{}", content_type="application/json")
    assert anonymous.status_code in (401, 403)
    beta_user = make_user(beta, "chat-beta", projects={HANDBOOK_KEY: "reader"})
    beta_token = token_for(beta, beta_user)
    assert _post(alpha, beta_token, {"question": FAILOVER}).status_code == 401


def test_the_same_project_key_in_another_tenant_sees_none_of_alphas_documents(
    answerable, beta, handbook
):
    user = make_user(beta, "chat-beta-reader", projects={HANDBOOK_KEY: "reader"})
    body = _post(beta, token_for(beta, user), {"question": FAILOVER}).json()
    assert body["refusal_reason"] == "no_relevant_context"


def test_embedding_provider_down_refuses_with_a_typed_reason_before_the_provider(
    answerable, alpha, reader, recording_provider, settings
):
    from kb.embeddings import reset_embedders

    settings.KB = {
        **settings.KB,
        "EMBEDDING_PROVIDER": "openai",
        "EMBEDDING_BASE_URL": "http://127.0.0.1:9/v1",  # nothing listens on the discard port
        "EMBEDDING_API_KEY": "x",
        "EMBEDDING_TIMEOUT": 2.0,
    }
    reset_embedders()
    try:
        response = _post(alpha, reader[1], {"question": FAILOVER})
    finally:
        reset_embedders()
    assert response.status_code == 200
    body = response.json()
    assert body["refusal_reason"] == "embedding_unavailable"
    assert body["citations"] == []
    assert "try again" in body["answer"]
    assert recording_provider.calls == []
    assert not ContentGap.objects.filter(normalised_question=normalise_question(FAILOVER)).exists()


@pytest.mark.parametrize(
    "question",
    [
        "Where do our services ship their logs?",
        "whats the first response time on a P2?",
        "is it down?",
        "and that?",
    ],
)
def test_a_short_first_question_with_pronouns_is_answered_or_refused_never_a_500(
    answerable, alpha, reader, question
):
    # A first question has no earlier turn to follow up on, whatever words it uses.
    response = _post(alpha, reader[1], {"question": question})
    assert response.status_code == 200, response.content
    body = response.json()
    conversation = Conversation.objects.get(pk=body["conversation_id"])
    assert [m.role for m in conversation.messages.all()] == ["user", "assistant"]
