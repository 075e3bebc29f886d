"""Answer drift (issue 28 part 3): when a document that stored answers cite is superseded,
deprecated, deleted or its cited passage changes, the drift job (on the queue, per tenant)
marks each affected answer once and its asker sees it; editors see how many answers cite a
record before they change it."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from canonical import services
from chat.drift import answer_drifts_mark
from chat.models import AnswerDrift, CitedDocument, Message
from chat.services import message_send
from kb.curation import AuditContext, ChangeSource
from kb.drift import citing_count
from kb.filters import SearchFilters
from kb.models import Document
from kb.services import document_ingest, document_soft_delete
from kb.worker import run_queued_tasks
from portal.access.services import project_ensure
from tests.conftest import make_user, token_for

KEY = "drift"
DOC = """---
type: decision
status: accepted
slug: billing-queue
---

# Billing queue

## Decision

Billing events go through RabbitMQ quorum queues with three nodes.

## Consequences

Operators watch the queue depth dashboard.
"""
SUCCESSOR = """---
type: decision
status: accepted
slug: billing-kafka
---

# Billing on Kafka

## Decision

Billing events go through Kafka topics with six partitions.
"""
QUESTION = "Which queue do billing events go through?"
LIST_URL = "/admin/canonical/canonicalrecord/"


@pytest.fixture
def world(alpha, recording_provider, settings):
    settings.KB = {**settings.KB, "MIN_SIMILARITY": 0.0}
    recording_provider.reply = "Billing events go through RabbitMQ quorum queues [1]."
    project = project_ensure(key=KEY)
    document = document_ingest(project=project, source_path="billing.md", content=DOC).document
    successor = document_ingest(project=project, source_path="kafka.md", content=SUCCESSOR).document
    assert document is not None and successor is not None
    return {
        "project": project,
        "document": document,
        "successor": successor,
        "reader": make_user(alpha, "drift-reader", projects={KEY: "reader"}),
        "other": make_user(alpha, "drift-other", projects={KEY: "reader"}),
        "editor": make_user(alpha, "drift-editor", projects={KEY: "editor"}),
    }


def ask(user, document: Document) -> Message:
    turn = message_send(
        user=user,
        question=QUESTION,
        filters=SearchFilters(project_keys=(KEY,), doc_ids=(document.pk,)),
    )
    assert turn.refusal_reason is None, turn
    answer = Message.objects.filter(conversation=turn.conversation, role="assistant").latest("id")
    assert document.pk in {c["document_id"] for c in answer.citations}, answer.citations
    return answer


def by(world, source=ChangeSource.SERVICE, reason="moved to Kafka") -> AuditContext:
    return AuditContext(actor=world["editor"], source=source, reason=reason)


def drifts(answer: Message) -> list[tuple[str, int | None]]:
    return sorted(AnswerDrift.objects.filter(message=answer).values_list("kind", "successor_id"))


def test_a_stored_answer_keeps_its_citations_as_rows(world):
    answer = ask(world["reader"], world["document"])
    rows = CitedDocument.objects.filter(message=answer, document=world["document"])
    assert rows.exists()
    row = rows.first()
    assert row.version == 1 and row.status == "accepted" and len(row.chunk_hash) == 64


def test_a_supersede_through_the_service_marks_the_answer_once_on_the_queue(world):
    answer = ask(world["reader"], world["document"])
    services.record_supersede(old=world["document"], new=world["successor"], by=by(world))
    assert drifts(answer) == []  # nothing yet: the work is queued, not done in the request
    assert run_queued_tasks() == 1
    assert drifts(answer) == [("superseded", world["successor"].pk)]
    drift = AnswerDrift.objects.get(message=answer)
    assert drift.user == world["reader"] and drift.read_at is None
    assert drift.detail == "moved to Kafka"
    # idempotent: the job run again marks nothing new
    assert answer_drifts_mark(document_id=world["document"].pk)["superseded"] == 0
    assert AnswerDrift.objects.filter(message=answer).count() == 1


def test_a_supersede_through_the_console_marks_the_answer(alpha, world):
    answer = ask(world["reader"], world["document"])
    client = alpha.client()
    client.force_login(world["editor"])
    done = client.post(
        LIST_URL,
        {
            "action": "supersede_records",
            "_selected_action": [world["document"].pk],
            "apply": "1",
            "successor": world["successor"].pk,
            "reason": "moved to Kafka",
        },
        follow=True,
    )
    assert "Superseded 1 record(s)" in done.content.decode()
    run_queued_tasks()
    assert drifts(answer) == [("superseded", world["successor"].pk)]


def test_a_supersede_through_the_api_marks_the_answer(alpha, world):
    answer = ask(world["reader"], world["document"])
    api = alpha.client(HTTP_AUTHORIZATION=f"Token {token_for(alpha, world['editor'])}")
    response = api.post(
        f"/api/kb/documents/{world['document'].pk}/supersede",
        {"successor_id": world["successor"].pk, "reason": "moved"},
        "application/json",
    )
    assert response.status_code == 200, response.content
    run_queued_tasks()
    assert drifts(answer) == [("superseded", world["successor"].pk)]


def test_a_supersede_through_the_cli_marks_the_answer(alpha, world):
    answer = ask(world["reader"], world["document"])
    call_command(
        "kb_record",
        "billing-queue",
        "--tenant",
        alpha.schema,
        "--project",
        KEY,
        "--supersede-by",
        "billing-kafka",
        "--reason",
        "moved",
        stdout=StringIO(),
    )
    run_queued_tasks()
    assert drifts(answer) == [("superseded", world["successor"].pk)]


def test_a_deprecate_marks_the_answer(world):
    answer = ask(world["reader"], world["document"])
    services.record_deprecate(document=world["document"], by=by(world))
    run_queued_tasks()
    assert drifts(answer) == [("deprecated", None)]


def test_a_delete_marks_the_answer(world):
    answer = ask(world["reader"], world["document"])
    document_soft_delete(document=world["document"], origin=by(world))
    run_queued_tasks()
    assert drifts(answer) == [("deleted", None)]


def test_a_reingest_marks_the_answer_only_when_the_cited_passage_changed(world):
    answer = ask(world["reader"], world["document"])
    # another passage changes: the cited one is as it was, nothing to tell
    document_ingest(
        project=world["project"],
        source_path="billing.md",
        content=DOC.replace("queue depth dashboard", "queue depth and lag dashboards"),
        origin=by(world, source=ChangeSource.API),
    )
    run_queued_tasks()
    assert drifts(answer) == []
    # the cited passage changes
    document_ingest(
        project=world["project"],
        source_path="billing.md",
        content=DOC.replace("RabbitMQ quorum queues with three nodes", "Kafka topics"),
        origin=by(world, source=ChangeSource.API),
    )
    run_queued_tasks()
    assert drifts(answer) == [("changed", None)]


def test_an_answer_given_after_the_change_is_not_marked(world):
    services.record_deprecate(document=world["document"], by=by(world))
    run_queued_tasks()
    answer = ask(world["reader"], world["document"])
    answer_drifts_mark(document_id=world["document"].pk)
    assert drifts(answer) == []


def test_an_uncited_document_queues_no_work(world):
    services.record_deprecate(document=world["successor"], by=by(world))
    assert run_queued_tasks() == 0


def test_the_confirmation_pages_say_how_many_answers_and_people_cite_the_records(alpha, world):
    ask(world["reader"], world["document"])
    ask(world["reader"], world["document"])
    ask(world["other"], world["document"])
    assert citing_count([world["document"].pk]).answers == 3
    assert citing_count([world["document"].pk]).people == 2
    client = alpha.client()
    client.force_login(world["editor"])
    for action in ("deprecate_records", "supersede_records"):
        page = client.post(
            LIST_URL, {"action": action, "_selected_action": [world["document"].pk]}
        ).content.decode()
        assert "3 stored answers (asked by 2 people) cite" in page, action
    quiet = client.post(
        LIST_URL, {"action": "deprecate_records", "_selected_action": [world["successor"].pk]}
    ).content.decode()
    assert "No stored answer cites" in quiet
