"""The whole turn on the real embedding model and shipped thresholds: gold questions answered
with the right sources cited, off-topic questions refused before any provider call."""

from __future__ import annotations

import json

import pytest

from chat.answers.question import read_question
from chat.services import conversation_state, message_send
from kb.demo import DEMO_CORPUS_DIR
from tests.chat.conftest import REAL_HANDBOOK_KEY
from tests.conftest import make_user

pytestmark = [pytest.mark.django_db, pytest.mark.real_model]

QUESTIONS = [
    json.loads(line)
    for line in (DEMO_CORPUS_DIR.parent / "QUESTIONS.jsonl").read_text().splitlines()
    if line.strip()
]
ANSWERABLE = [q for q in QUESTIONS if not q.get("expect_refusal")]
OFF_TOPIC = [q for q in QUESTIONS if q.get("expect_refusal")]


@pytest.fixture
def real_model(settings, real_handbook):
    settings.KB = {**settings.KB, "EMBEDDING_PROVIDER": "local"}
    return real_handbook


@pytest.fixture
def reader(alpha, real_model):
    return make_user(alpha, "real-reader", projects={REAL_HANDBOOK_KEY: "reader"})


def test_gold_questions_are_answered_citing_a_gold_document(alpha, reader):
    hits, misses = 0, []
    for item in ANSWERABLE:
        turn = message_send(user=reader, question=item["q"])
        cited = {c["slug"] for c in turn.citations}
        if turn.refusal_reason is None and cited & set(item["slugs"]):
            hits += 1
        else:
            misses.append((item["q"], turn.refusal_reason, sorted(cited)))
        assert turn.meta["citation_check"]["dropped"] == []
    print(f"\nchat gold questions: {hits}/{len(ANSWERABLE)} cite a gold source; misses={misses}")
    # 20 gold questions: at least 17 must cite a gold source (measured: see the report)
    assert hits >= 17, misses


def test_off_topic_questions_are_refused(alpha, reader, recording_provider):
    for item in OFF_TOPIC:
        turn = message_send(user=reader, question=item["q"])
        assert turn.refusal_reason == "no_relevant_context", (item["q"], turn.answer)
        assert turn.citations == []
    assert recording_provider.calls == []


def test_a_rejected_approach_question_warns_about_it(alpha, reader):
    turn = message_send(user=reader, question="Should we use Memcached for sessions?")
    assert turn.refusal_reason is None
    slugs = {c["slug"]: c for c in turn.citations}
    assert "rej-memcached" in slugs, turn.citations
    assert "Memcached" in turn.answer


def test_why_a_rejected_approach_was_rejected_is_answered_by_its_reasons(alpha, reader):
    # the record is long; its reasons are a section of their own that retrieval did not
    # return (the answer quoted the decision's "Alternatives considered" line instead)
    turn = message_send(user=reader, question="Why was MongoDB rejected for tracking events?")
    assert turn.refusal_reason is None
    assert "rej-mongodb-events" in {c["slug"] for c in turn.citations}
    assert "transaction" in turn.answer, turn.answer
    # ...supported by its other reasons, not by the lines of other records that say it was
    assert "Alternatives considered" not in turn.answer, turn.answer


GOLDSET = DEMO_CORPUS_DIR.parent / "ANSWERS.jsonl"


def test_the_answer_harness_on_the_gold_set_meets_the_measured_bar(alpha, reader):
    """The offline answer on the demo gold set (numbers in benchmarks/RESULTS.md). Measured
    here: fact recall 0.897, gold citation 0.932, refusal accuracy 0.962 (this tenant holds
    other tests' documents, so its word statistics differ from the demo tenant's)."""
    from chat.evaluation import load_answer_goldset, run_goldset

    report = run_goldset(user=reader, questions=load_answer_goldset(GOLDSET))
    metrics = report.metrics
    failures = [(s.question.q, s.answer[:160]) for s in report.failures()]
    print(f"\nchat gold set: {metrics}")
    assert metrics["refusal_accuracy"] >= 0.94, failures
    assert metrics["stale_leaks"] == 0, failures
    assert metrics["gold_citation"] >= 0.88, failures
    assert metrics["fact_recall"] >= 0.82, failures


def test_a_deleted_documents_question_is_refused_not_answered_from_weak_matches(alpha, reader):
    from django.utils import timezone

    from kb.models import Document

    question = "How much is on-call compensation?"
    before = message_send(user=reader, question=question)
    assert before.refusal_reason is None
    assert "on-call" in {c["slug"] for c in before.citations}
    document = Document.objects.get(project__key=REAL_HANDBOOK_KEY, slug="on-call")
    document.deleted_at = timezone.now()
    document.save(update_fields=["deleted_at"])
    after = message_send(user=reader, question=question)
    assert after.refusal_reason == "no_relevant_context", after.answer
    assert after.citations == []


def test_a_follow_up_is_answered_in_the_context_of_the_question_before_it(alpha, reader):
    first = message_send(user=reader, question="How do I rotate a merchant API key?")
    follow_up = message_send(
        user=reader, question="And what if the key was leaked?", conversation=first.conversation
    )
    assert follow_up.conversation == first.conversation
    assert follow_up.refusal_reason is None
    assert "rb-rotate-api-keys" in {c["slug"] for c in follow_up.citations}
    # the conversation's subject is the last answered turn: its question, after those it
    # followed up ("And ..." goes on from the turn before), and the documents it cited
    state = conversation_state(first.conversation)
    assert state.subject_questions == (
        "How do I rotate a merchant API key?",
        "And what if the key was leaked?",
    )
    assert state.previous_question == (
        "How do I rotate a merchant API key? And what if the key was leaked?"
    )
    assert "rb-rotate-api-keys" in state.cited_slugs
    # a question that names its own subject is searched on its own
    assert not state.carries_into(read_question("Which laptop do new engineers get?"))
    assert state.carries_into(read_question("and who made that call?"))
    # ...unless a pronoun stands for something named before it
    assert state.carries_into(read_question("How often is it rotated at the Berlin office?"))
    # a follow-up of a follow-up leans on every turn of the chain
    third = message_send(
        user=reader, question="who has to approve it?", conversation=first.conversation
    )
    assert third.meta["subject_questions"] == [
        "How do I rotate a merchant API key?",
        "And what if the key was leaked?",
        "who has to approve it?",
    ]
    if third.refusal_reason is None:
        assert conversation_state(first.conversation).previous_question == (
            "How do I rotate a merchant API key? And what if the key was leaked? "
            "who has to approve it?"
        )


def test_an_adr_number_is_honoured_in_retrieval_and_in_the_answer(alpha, reader):
    turn = message_send(user=reader, question="What did ADR-0005 decide?")
    assert turn.refusal_reason is None
    assert turn.citations[0]["slug"] == "dec-message-queue", turn.citations
    assert "Kafka" in turn.answer
