"""Per-user export (GDPR art. 15) and erasure (art. 17) in one tenant."""

from __future__ import annotations

import json

import pytest
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.core.management.base import CommandError

from canonical.models import RecordChange
from canonical.services import record_set_priority
from chat.feedback import feedback_give
from chat.models import ChatLog, Conversation, Message
from chat.services import message_send
from kb.curation import AuditContext, ChangeSource
from kb.filters import SearchFilters
from kb.models import Document, DocumentVersion
from kb.services import document_ingest
from portal.access.models import Membership, Project
from privacy.services import user_data_export, user_erase
from tests.conftest import make_user, token_for

NORTH, SOUTH = "priv-north", "priv-south"
DOC = """---
type: decision
status: accepted
slug: {slug}
---

# {title}

The {title} team deploys on Tuesdays after the review meeting.
"""


@pytest.fixture
def world(alpha):
    docs = {}
    for key, title in ((NORTH, "North"), (SOUTH, "South")):
        project = Project.objects.create(key=key, name=title)
        document_ingest(
            project=project,
            source_path=f"{key}.md",
            content=DOC.format(slug=f"{key}-deploys", title=title),
        )
        docs[key] = Document.objects.get(project=project)
    anna = make_user(alpha, "anna", projects={NORTH: "editor", SOUTH: "reader"})
    bob = make_user(alpha, "bob", projects={NORTH: "editor", SOUTH: "reader"})
    for user in (anna, bob):
        for key in (NORTH, SOUTH):
            message_send(
                user=user,
                question=f"When does {user.username} deploy in {key}?",
                filters=SearchFilters(project_keys=(key,)),
            )
    record_set_priority(
        document=docs[NORTH],
        priority=70,
        by=AuditContext(actor=anna, source=ChangeSource.API, reason="anna's call"),
    )
    record_set_priority(
        document=docs[NORTH],
        priority=60,
        by=AuditContext(actor=bob, source=ChangeSource.API, reason="bob's call"),
    )
    for user in (anna, bob):
        answer = Message.objects.filter(conversation__user=user, role="assistant").first()
        assert answer is not None
        feedback_give(user=user, message=answer, rating="down", comment=f"{user.username} says no")
    for user in (anna, bob):
        LogEntry.objects.create(
            user=user,
            content_type=ContentType.objects.get_for_model(Project),
            object_id=str(Project.objects.get(key=NORTH).pk),
            object_repr=f"{NORTH} renamed by {user.username}",
            action_flag=CHANGE,
            change_message="",
        )
    return {"anna": anna, "bob": bob, "docs": docs}


def test_export_holds_exactly_the_users_rows(world):
    anna = world["anna"]
    export = user_data_export(user=anna)

    assert export["format"] == "groundwork-personal-data/1"
    assert export["tenant"] == "alpha"
    assert export["profile"]["username"] == "anna"
    assert "password" not in json.dumps(export["profile"])
    assert [(m["project_key"], m["role"]) for m in export["memberships"]] == [
        (NORTH, "editor"),
        (SOUTH, "reader"),
    ]
    conversations = export["conversations"]
    assert {c["id"] for c in conversations} == set(
        Conversation.objects.filter(user=anna).values_list("pk", flat=True)
    )
    assert len(conversations) == 2
    questions = [m["content"] for c in conversations for m in c["messages"] if m["role"] == "user"]
    assert questions == [f"When does anna deploy in {NORTH}?", f"When does anna deploy in {SOUTH}?"]
    message_ids = {m["id"] for c in conversations for m in c["messages"]}
    assert message_ids == set(
        Message.objects.filter(conversation__user=anna).values_list("pk", flat=True)
    )
    assert {row["id"] for row in export["chat_log"]} == set(
        ChatLog.objects.filter(user=anna).values_list("pk", flat=True)
    )
    assert sorted(row["project_keys"][0] for row in export["chat_log"]) == [NORTH, SOUTH]
    assert [(r["field"], r["to_value"], r["reason"]) for r in export["audit_trail"]] == [
        ("retrieval_priority", "70", "anna's call")
    ]
    assert [
        (v["document_slug"], v["number"], v["reason"]) for v in export["document_versions"]
    ] == [(f"{NORTH}-deploys", 2, "anna's call")]
    assert [(a["action"], a["object"]) for a in export["console_actions"]] == [
        ("Change", f"{NORTH} renamed by anna")
    ]
    assert [(f["rating"], f["comment"]) for f in export["feedback"]] == [("down", "anna says no")]
    # nothing of bob anywhere in it
    assert "bob" not in json.dumps(export)


def test_answers_citing_documents_no_longer_visible_are_withheld_from_the_export(world):
    """The chat page's rule (chat.selectors.message_list): once the membership is gone, an
    answer that cites the project's documents is not shown, and the export says why."""
    anna = world["anna"]

    def answers(export: dict) -> dict[str, dict]:
        by_question: dict[str, dict] = {}
        for conversation in export["conversations"]:
            question = conversation["messages"][0]["content"]
            by_question[question] = conversation["messages"][1]
        return by_question

    asked = {}
    for key, title in ((NORTH, "North"), (SOUTH, "South")):
        asked[key] = f"When does the {title} team deploy after the review meeting?"
        message_send(user=anna, question=asked[key], filters=SearchFilters(project_keys=(key,)))
    south_question = asked[SOUTH]
    before = answers(user_data_export(user=anna))[south_question]
    assert before["citations"] and "South" in before["content"]
    assert before["withheld"] is None

    Membership.objects.filter(user=anna, project__key=SOUTH).delete()
    export = user_data_export(user=anna)
    withheld = answers(export)[south_question]
    assert withheld["withheld"] == "access_ended"
    assert withheld["citations"] == []
    assert "South" not in withheld["content"] and "no longer" in withheld["content"]
    kept = answers(export)[asked[NORTH]]
    assert kept["withheld"] is None and "North" in kept["content"] and kept["citations"]
    # the question is the user's own and stays; the chat log's copy of the answer goes too
    log = {row["question"]: row for row in export["chat_log"]}
    assert log[south_question]["answer_withheld"] == "access_ended"
    assert "South" not in log[south_question]["answer"]
    assert "North" in log[asked[NORTH]]["answer"] and log[asked[NORTH]]["answer_withheld"] is None
    assert "withheld" in export["notes"] and "access" in export["notes"]["withheld"]
    # nothing of the south document's text anywhere in the export
    assert "The South team deploys" not in json.dumps(export)


def test_the_api_and_the_profile_page_export_the_callers_data(world, alpha):
    anna = world["anna"]
    api = alpha.client(HTTP_AUTHORIZATION=f"Token {token_for(alpha, anna)}")
    response = api.get("/api/auth/me/export")
    assert response.status_code == 200
    assert 'filename="groundwork-anna-' in response["Content-Disposition"]
    body = response.json()
    assert body["profile"]["username"] == "anna" and len(body["conversations"]) == 2

    browser = alpha.client()
    assert browser.get("/account/").status_code == 302  # sign in first
    browser.force_login(anna)
    page = browser.get("/account/")
    assert page.status_code == 200
    assert b"Download my data" in page.content
    download = browser.get("/account/export.json")
    assert download.status_code == 200 and download["Content-Type"] == "application/json"
    assert json.loads(download.content)["conversations"] == body["conversations"]

    assert alpha.client().get("/api/auth/me/export").status_code in (401, 403)


def test_erasure_removes_the_person_and_keeps_the_audit_trail(world, alpha):
    anna, bob, north = world["anna"], world["bob"], world["docs"][NORTH]
    token = token_for(alpha, anna)
    counts = user_erase(user=anna)
    assert counts == {
        "sign_in_audit": 0,
        "conversations": 2,
        "chat_log": 2,
        "audit_trail": 1,
        "document_versions": 1,
        "account": 1,
    }

    assert not get_user_model().objects.filter(username="anna").exists()
    assert not Conversation.objects.filter(title__contains="anna").exists()
    assert not Message.objects.filter(content__contains="anna deploy").exists()
    assert not ChatLog.objects.filter(question__contains="anna").exists()
    assert not Membership.objects.filter(user_id=anna.pk).exists()
    # bob is untouched
    assert Conversation.objects.filter(user=bob).count() == 2
    assert ChatLog.objects.filter(user=bob).count() == 2
    trail = list(
        RecordChange.objects.filter(document=north)
        .order_by("at", "id")
        .values_list("actor_name", "to_value", "reason")
    )
    assert trail == [("erased user", "70", "anna's call"), ("bob", "60", "bob's call")]
    # the document's versions keep what changed and why, not who (when it was anna)
    versions = list(
        DocumentVersion.objects.filter(document=north)
        .order_by("number")
        .values_list("actor_name", "retrieval_priority", "reason")
    )
    assert versions == [
        ("system", 50, ""),
        ("erased user", 70, "anna's call"),
        ("bob", 60, "bob's call"),
    ]

    # the erased user cannot sign in, and their token is gone
    client = alpha.client()
    assert not client.login(username="anna", password="pw-secret-123")
    response = client.post(
        "/api/auth/token",
        {"username": "anna", "password": "pw-secret-123"},
        content_type="application/json",
    )
    assert response.status_code == 400
    old_token = alpha.client(HTTP_AUTHORIZATION=f"Token {token}")
    assert old_token.get("/api/auth/me").status_code == 401

    # the audit trail still renders in the console
    admin = make_user(alpha, "root", superuser=True)
    console = alpha.client()
    console.force_login(admin)
    page = console.get(f"/admin/canonical/canonicalrecord/{north.pk}/change/")
    assert page.status_code == 200
    assert b"erased user" in page.content and b"anna&#x27;s call" in page.content
    history = console.get("/admin/canonical/recordchange/")
    assert history.status_code == 200 and b"erased user" in history.content


def test_erasure_is_all_or_nothing(world, monkeypatch):
    from privacy import registry

    def broken(user):
        raise RuntimeError("disk on fire")

    entries = list(registry.PERSONAL_DATA)
    entries[-1] = registry.PersonalData(key="audit_trail", export=lambda u: [], erase=broken)
    monkeypatch.setattr("privacy.services.PERSONAL_DATA", tuple(entries))
    with pytest.raises(RuntimeError):
        user_erase(user=world["anna"])
    assert Conversation.objects.filter(user=world["anna"]).count() == 2
    assert get_user_model().objects.filter(username="anna").exists()


def test_tenant_admin_exports_and_erases_in_the_console(world, alpha):
    admin = make_user(alpha, "root", superuser=True)
    console = alpha.client()
    console.force_login(admin)
    changelist = "/admin/privacy/datasubject/"
    anna = world["anna"]

    exported = console.post(changelist, {"action": "export_data", "_selected_action": [anna.pk]})
    assert exported.status_code == 200
    assert json.loads(exported.content)["profile"]["username"] == "anna"

    confirm = console.post(changelist, {"action": "erase_data", "_selected_action": [anna.pk]})
    assert confirm.status_code == 200 and b"cannot be undone" in confirm.content
    assert get_user_model().objects.filter(username="anna").exists()
    done = console.post(
        changelist,
        {"action": "erase_data", "_selected_action": [anna.pk], "confirm": "yes"},
    )
    assert done.status_code == 302
    assert not get_user_model().objects.filter(username="anna").exists()

    # an editor who is not a tenant superuser does not see the console page
    editor = alpha.client()
    editor.force_login(world["bob"])
    assert editor.get(changelist).status_code == 403


def test_commands_export_and_erase(world, tmp_path, capsys):
    out = tmp_path / "anna.json"
    call_command("user_export", "--tenant", "alpha", "--username", "anna", "--output", str(out))
    assert json.loads(out.read_text())["profile"]["username"] == "anna"
    with pytest.raises(CommandError, match="--yes"):
        call_command("user_erase", "--tenant", "alpha", "--username", "anna")
    call_command("user_erase", "--tenant", "alpha", "--username", "anna", "--yes")
    assert (
        "Erased anna: 0 sign_in_audit, 2 conversations, 2 chat_log, 1 audit_trail, 1 document_versions, 1 account"
        in capsys.readouterr().out
    )
    with pytest.raises(CommandError, match="No user 'anna'"):
        call_command("user_export", "--tenant", "alpha", "--username", "anna")
