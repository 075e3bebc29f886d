"""Answer drift (issue 28 part 3): when a document that stored answers cite is superseded
(again: by another successor), deprecated, re-typed as a rejected approach, deleted or its
cited passage changes, the drift job (on the queue, per tenant)
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
from kb.models import Document, DocumentVersion
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
THIRD = """---
type: decision
status: accepted
slug: billing-pulsar
---

# Billing on Pulsar

## Decision

Billing events go through Pulsar topics with tiered storage.
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


@pytest.fixture
def third(world) -> Document:
    document = document_ingest(
        project=world["project"], source_path="pulsar.md", content=THIRD
    ).document
    assert document is not None
    return document


def supersede_through(door: str, alpha, world, *, old: Document, new: Document) -> None:
    """Supersede `old` by `new` through one of the doors an editor uses."""
    if door == "service":
        services.record_supersede(old=old, new=new, by=by(world, reason="moved to Pulsar"))
    elif door == "console":
        client = alpha.client()
        client.force_login(world["editor"])
        done = client.post(
            LIST_URL,
            {
                "action": "supersede_records",
                "_selected_action": [old.pk],
                "apply": "1",
                "successor": new.pk,
                "reason": "moved to Pulsar",
            },
            follow=True,
        )
        assert "Superseded 1 record(s)" in done.content.decode()
    elif door == "api":
        api = alpha.client(HTTP_AUTHORIZATION=f"Token {token_for(alpha, world['editor'])}")
        response = api.post(
            f"/api/kb/documents/{old.pk}/supersede",
            {"successor_id": new.pk, "reason": "moved to Pulsar"},
            "application/json",
        )
        assert response.status_code == 200, response.content
    else:
        call_command(
            "kb_record",
            old.slug,
            "--tenant",
            alpha.schema,
            "--project",
            KEY,
            "--supersede-by",
            new.slug,
            "--reason",
            "moved to Pulsar",
            stdout=StringIO(),
        )


@pytest.mark.parametrize("door", ["service", "console", "api", "cli"])
def test_a_second_supersede_marks_the_answer_again_for_the_new_successor(alpha, world, third, door):
    document, successor = world["document"], world["successor"]
    answer = ask(world["reader"], document)
    services.record_supersede(old=document, new=successor, by=by(world))
    run_queued_tasks()
    assert drifts(answer) == [("superseded", successor.pk)]
    document.refresh_from_db()
    before = document.current_version
    supersede_through(door, alpha, world, old=document, new=third)
    # a new version names the new successor
    document.refresh_from_db()
    assert document.current_version == before + 1
    version = DocumentVersion.objects.get(document=document, number=document.current_version)
    assert (version.canonical_status, version.superseded_by) == ("superseded", "billing-pulsar")
    assert drifts(answer) == [("superseded", successor.pk)]  # queued, not done in the request
    assert run_queued_tasks() == 1
    assert drifts(answer) == [("superseded", successor.pk), ("superseded", third.pk)]
    new_mark = AnswerDrift.objects.get(message=answer, successor=third)
    assert new_mark.user == world["reader"] and new_mark.read_at is None
    assert new_mark.detail == "moved to Pulsar"  # the reason of this supersede, not the first
    # idempotent: the job run again marks nothing new
    assert answer_drifts_mark(document_id=document.pk)["superseded"] == 0
    assert AnswerDrift.objects.filter(message=answer).count() == 2


def test_a_second_supersede_tells_whoever_read_the_record_before_it(alpha, world, third):
    document, successor = world["document"], world["successor"]
    services.record_supersede(old=document, new=successor, by=by(world))
    run_queued_tasks()
    # asked while the record pointed at Kafka: it read that, and is told about Pulsar
    between = ask(world["reader"], document)
    services.record_supersede(old=document, new=third, by=by(world, reason="moved to Pulsar"))
    run_queued_tasks()
    after = ask(world["other"], document)
    answer_drifts_mark(document_id=document.pk)
    assert drifts(between) == [("superseded", third.pk)]
    assert drifts(after) == []  # it read the record already pointing at Pulsar
    page = page_client(alpha, world["reader"]).get("/chat/notifications/").content.decode()
    assert "Billing queue</a>, now superseded by" in page and "Billing on Pulsar</a>." in page
    assert "Reason given: moved to Pulsar" in page


def test_retyping_a_cited_record_as_a_rejected_approach_marks_the_answer(alpha, world):
    answer = ask(world["reader"], world["document"])
    services.record_set_type(
        document=world["document"],
        canonical_type="rejected-approach",
        by=by(world, reason="quorum queues could not keep up"),
    )
    assert drifts(answer) == []  # queued, not done in the request
    assert run_queued_tasks() == 1
    assert drifts(answer) == [("rejected", None)]
    drift = AnswerDrift.objects.get(message=answer)
    assert drift.user == world["reader"] and drift.detail == "quorum queues could not keep up"
    # idempotent, and a later change that leaves it rejected marks nothing new
    assert answer_drifts_mark(document_id=world["document"].pk)["rejected"] == 0
    services.record_set_priority(document=world["document"], priority=10, by=by(world))
    run_queued_tasks()
    assert drifts(answer) == [("rejected", None)]
    client = page_client(alpha, world["reader"])
    assert 'aria-label="Notifications, 1 unread"' in client.get("/chat/").content.decode()
    page = client.get("/chat/notifications/").content.decode()
    assert "Billing queue</a>, now marked as a rejected approach." in page
    assert "Reason given: quorum queues could not keep up" in page
    api = alpha.client(HTTP_AUTHORIZATION=f"Token {token_for(alpha, world['reader'])}")
    [row] = api.get("/api/chat/notifications").json()["results"]
    assert row["kind"] == "rejected"
    assert row["text"].endswith("cites Billing queue, now marked as a rejected approach.")


def test_retyping_through_the_api_and_the_console_marks_the_answer(alpha, world):
    answer = ask(world["reader"], world["document"])
    api = alpha.client(HTTP_AUTHORIZATION=f"Token {token_for(alpha, world['editor'])}")
    response = api.patch(
        f"/api/kb/documents/{world['document'].pk}",
        {"canonical_type": "rejected-approach", "reason": "dropped"},
        "application/json",
    )
    assert response.status_code == 200, response.content
    assert run_queued_tasks() == 1
    assert drifts(answer) == [("rejected", None)]
    # the console's edit form: a second cited record re-typed there
    other = ask(world["other"], world["successor"])
    client = page_client(alpha, world["editor"])
    url = f"{LIST_URL}{world['successor'].pk}/change/"
    form = {
        "title": "Billing on Kafka",
        "summary": "",
        "tags": "",
        "owners": "",
        "canonical_type": "rejected-approach",
        "canonical_status": "accepted",
        "retrieval_priority": "50",
        "reason": "dropped too",
        "_save": "Save",
    }
    done = client.post(url, form)
    assert done.status_code == 302, done.content.decode()[:2000]
    run_queued_tasks()
    assert drifts(other) == [("rejected", None)]
    assert AnswerDrift.objects.filter(user=world["other"]).count() == 1


def test_an_answer_that_read_a_rejected_approach_is_not_marked(world):
    answer = ask(world["reader"], world["document"])
    assert CitedDocument.objects.get(message=answer).canonical_type == "decision"
    # an answer that read the record as a rejected approach already (an answer never states
    # one as current; it may cite one as what was tried): nothing new to tell
    CitedDocument.objects.filter(message=answer).update(canonical_type="rejected-approach")
    services.record_set_type(
        document=world["document"], canonical_type="rejected-approach", by=by(world)
    )
    run_queued_tasks()
    assert drifts(answer) == []


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


# --- notifications ------------------------------------------------------------------------


@pytest.fixture
def notified(alpha, world):
    """The reader's answer, its document superseded, the job run: one notification."""
    answer = ask(world["reader"], world["document"])
    services.record_supersede(old=world["document"], new=world["successor"], by=by(world))
    run_queued_tasks()
    drift = AnswerDrift.objects.get(message=answer)
    return {**world, "answer": answer, "drift": drift}


def page_client(alpha, user):
    client = alpha.client()
    client.force_login(user)
    return client


def test_the_bell_counts_unread_notifications_on_every_page(alpha, notified):
    client = page_client(alpha, notified["reader"])
    for url in ("/", "/chat/", "/search/"):
        page = client.get(url).content.decode()
        assert 'aria-label="Notifications, 1 unread"' in page, url
        assert '<span class="bell-count" aria-hidden="true">1</span>' in page
    quiet = page_client(alpha, notified["other"]).get("/chat/").content.decode()
    assert 'aria-label="Notifications"' in quiet and "bell-count" not in quiet


def test_the_notifications_page_says_what_changed_and_offers_to_ask_again(alpha, notified):
    page = page_client(alpha, notified["reader"]).get("/chat/notifications/").content.decode()
    answered = notified["answer"].created_at
    assert "Your answer of <time datetime=" in page
    assert f">{answered.day} {answered:%b}</time> about “" in page
    assert QUESTION in page and "Billing queue</a>, now superseded by" in page
    assert "Billing on Kafka</a>." in page and "Reason given: moved to Kafka" in page
    assert 'class="reask-form"' in page
    assert f'name="conversation_id" value="{notified["answer"].conversation_id}"' in page


def test_reask_creates_a_new_turn_in_the_same_conversation(alpha, notified):
    client = page_client(alpha, notified["reader"])
    conversation_id = notified["answer"].conversation_id
    before = Message.objects.filter(conversation_id=conversation_id).count()
    response = client.post(
        "/chat/send",
        {"question": QUESTION, "conversation_id": conversation_id, "project_keys": KEY},
    )
    assert response.status_code == 302
    assert response["Location"] == f"/chat/c/{conversation_id}/"
    assert Message.objects.filter(conversation_id=conversation_id).count() == before + 2


def test_the_conversation_page_notes_the_changed_source(alpha, notified):
    client = page_client(alpha, notified["reader"])
    page = client.get(f"/chat/c/{notified['answer'].conversation_id}/").content.decode()
    assert "Source changed since this answer:</strong> Billing queue: now superseded by" in page


def test_mark_one_and_all_read(alpha, notified, world):
    client = page_client(alpha, notified["reader"])
    drift = notified["drift"]
    response = client.post(f"/chat/notifications/{drift.pk}/read")
    assert response.status_code == 302
    drift.refresh_from_db()
    assert drift.read_at is not None
    assert "bell-count" not in client.get("/chat/").content.decode()
    # a second answer drifts: mark all read; the htmx form gets the list fragment
    ask(notified["reader"], world["document"])
    services.record_deprecate(document=world["successor"], by=by(world))
    document_soft_delete(document=world["document"], origin=by(world))
    run_queued_tasks()
    assert AnswerDrift.objects.filter(user=notified["reader"], read_at__isnull=True).exists()
    fragment = client.post(
        "/chat/notifications/read", HTTP_HX_REQUEST="true", HTTP_HX_TARGET="notifications"
    ).content.decode()
    assert fragment.startswith('\n<section id="notifications"') or fragment.lstrip().startswith(
        '<section id="notifications"'
    )
    assert "<html" not in fragment
    assert not AnswerDrift.objects.filter(user=notified["reader"], read_at__isnull=True).exists()


def test_another_users_notification_is_a_404(alpha, beta, notified):
    drift = notified["drift"]
    other = page_client(alpha, notified["other"])
    assert other.post(f"/chat/notifications/{drift.pk}/read").status_code == 404
    assert "Billing queue" not in other.get("/chat/notifications/").content.decode()
    api = alpha.client(HTTP_AUTHORIZATION=f"Token {token_for(alpha, notified['other'])}")
    assert api.post(f"/api/chat/notifications/{drift.pk}/read").status_code == 404
    assert api.get("/api/chat/notifications").json() == {"unread": 0, "results": []}
    drift.refresh_from_db()
    assert drift.read_at is None
    # another tenant's reader does not even reach the row
    stranger = make_user(beta, "drift-stranger")
    with beta.scope():
        client = beta.client()
        client.force_login(stranger)
        assert client.post(f"/chat/notifications/{drift.pk}/read").status_code == 404


def test_notifications_over_the_api(alpha, notified):
    api = alpha.client(HTTP_AUTHORIZATION=f"Token {token_for(alpha, notified['reader'])}")
    listing = api.get("/api/chat/notifications")
    assert listing.status_code == 200
    body = listing.json()
    assert body["unread"] == 1
    [row] = body["results"]
    assert row["kind"] == "superseded" and row["unread"] is True
    assert row["successor_title"] == "Billing on Kafka" and row["question"] == QUESTION
    assert row["conversation_id"] == notified["answer"].conversation_id
    assert "now superseded by Billing on Kafka" in row["text"]
    read = api.post(f"/api/chat/notifications/{row['id']}/read")
    assert read.status_code == 200 and read.json()["read_at"]
    assert api.get("/api/chat/notifications").json()["unread"] == 0


def test_the_export_includes_notifications_and_erasure_removes_them(notified):
    from privacy.services import user_data_export, user_erase

    reader = notified["reader"]
    export = user_data_export(user=reader)
    [row] = export["notifications"]
    assert row["kind"] == "superseded" and "now superseded by Billing on Kafka" in row["text"]
    user_erase(user=reader)
    assert not AnswerDrift.objects.filter(pk=notified["drift"].pk).exists()


def test_the_migration_backfills_citation_rows_of_answers_stored_before(world):
    import importlib

    from django.apps import apps

    answer = ask(world["reader"], world["document"])
    kept = list(
        CitedDocument.objects.filter(message=answer).values_list(
            "document_id", "version", "chunk_id", "chunk_hash", "status"
        )
    )
    CitedDocument.objects.filter(message=answer).delete()
    migration = importlib.import_module("chat.migrations.0005_backfill_cited_documents")
    CitedDocument.objects.exclude(message=answer).delete()  # only this answer's rows to write
    migration.backfill(apps, None)
    assert (
        list(
            CitedDocument.objects.filter(message=answer).values_list(
                "document_id", "version", "chunk_id", "chunk_hash", "status"
            )
        )
        == kept
    )


def test_the_migration_gives_existing_rows_the_type_read_and_their_successor_key(world):
    import importlib

    from django.apps import apps

    answer = ask(world["reader"], world["document"])
    services.record_supersede(old=world["document"], new=world["successor"], by=by(world))
    run_queued_tasks()
    CitedDocument.objects.filter(message=answer).update(canonical_type="")
    AnswerDrift.objects.filter(message=answer).update(successor_key=0)
    migration = importlib.import_module("chat.migrations.0006_drift_rejected_and_successor")
    migration.backfill(apps, None)
    assert CitedDocument.objects.get(message=answer).canonical_type == "decision"
    assert AnswerDrift.objects.get(message=answer).successor_key == world["successor"].pk
    # and the job run again (after the migration) marks nothing twice
    assert answer_drifts_mark(document_id=world["document"].pk)["superseded"] == 0
