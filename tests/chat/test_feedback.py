"""Feedback, round 2 (issue 27, item 10): a rating first, then optional reasons and a comment
after a thumbs-down; the editors' item page with the whole conversation up to the rated
answer, and resolving it there with a note."""

from __future__ import annotations

import re

import pytest

from chat.feedback import feedback_give, feedback_resolve_one
from chat.models import Conversation, Feedback, Message
from chat.services import ChatInputError
from kb.models import Document
from kb.services import document_ingest
from portal.access.models import Project
from tests.chat.conftest import HANDBOOK_KEY
from tests.conftest import make_user

pytestmark = pytest.mark.django_db

SECRET_KEY = "fb-secret"
HTMX = {"HTTP_HX_REQUEST": "true"}
QUEUE = "/admin/chat/feedback/"

EARLIER_QUESTION = "Where is the Redis runbook kept?"
EARLIER_ANSWER = "In the operations handbook [1]."
SECRET_QUESTION = "What do we pay for the Quokka acquisition?"
SECRET_ANSWER = "Forty-two million, says the board memo [1]."
RATED_QUESTION = "How do I fail over the Redis cluster when a primary is down?"
RATED_ANSWER = "Promote a replica [1]."
LATER_QUESTION = "And who gets paged afterwards?"
LATER_ANSWER = "The on-call database engineer."


@pytest.fixture
def reader(alpha, handbook):
    return make_user(alpha, "fb-reader", projects={HANDBOOK_KEY: "reader", SECRET_KEY: "reader"})


@pytest.fixture
def editor(alpha, handbook):
    return make_user(alpha, "fb-editor", projects={HANDBOOK_KEY: "editor"})


@pytest.fixture
def secret_document(alpha, reader) -> Document:
    project = Project.objects.get(key=SECRET_KEY)
    document_ingest(
        project=project,
        source_path="board/quokka.md",
        content="# Quokka acquisition\n\nThe board agreed to pay forty-two million.\n",
    )
    return Document.objects.get(project=project)


def _section(html: str, section_id: str) -> str:
    """The text of one <section> of a page, tags stripped."""
    start = html.index(f'<section class="module" id="{section_id}"')
    return re.sub(
        r"\s+", " ", re.sub(r"<[^>]+>", " ", html[start : html.index("</section>", start)])
    )


def _client(info, user):
    client = info.client()
    client.force_login(user)
    return client


def _citation(document: Document, n: int = 1) -> dict:
    return {
        "n": n,
        "document_id": document.pk,
        "chunk_id": 0,
        "title": document.title,
        "slug": document.slug,
        "project_key": document.project.key,
        "canonical_status": document.canonical_status,
    }


def _turn(conversation, question: str, answer: str, *, citations=(), scope=HANDBOOK_KEY):
    Message.objects.create(conversation=conversation, role="user", content=question)
    return Message.objects.create(
        conversation=conversation,
        role="assistant",
        content=answer,
        citations=list(citations),
        meta={"filters": {"project_keys": [scope]}},
    )


def _answer(user) -> Message:
    conversation = Conversation.objects.create(user=user, title="Redis failover")
    return _turn(conversation, RATED_QUESTION, RATED_ANSWER)


# --- the service: reasons ----------------------------------------------------------------


def test_reasons_are_stored_once_each_in_a_fixed_order(alpha, reader):
    message = _answer(reader)
    feedback = feedback_give(
        user=reader,
        message=message,
        rating="down",
        reasons=["missing", "outdated", "missing"],
        comment="  It skipped the Sentinel step ",
    )
    feedback.refresh_from_db()
    assert feedback.reasons == ["outdated", "missing"]
    assert feedback.comment == "It skipped the Sentinel step"
    assert feedback.reason_labels == ["Outdated", "Missing information"]


def test_an_unknown_reason_is_refused_by_name_and_nothing_changes(alpha, reader):
    message = _answer(reader)
    feedback_give(user=reader, message=message, rating="down", reasons=["unclear"])
    with pytest.raises(ChatInputError) as refused:
        feedback_give(user=reader, message=message, rating="down", reasons=["outdated", "boring"])
    error = " ".join(refused.value.errors["reasons"])
    assert "“boring”" in error
    assert "outdated, wrong_source, missing, unclear" in error
    assert Feedback.objects.get(message=message).reasons == ["unclear"]


def test_reasons_explain_a_thumbs_down_only(alpha, reader):
    message = _answer(reader)
    with pytest.raises(ChatInputError) as refused:
        feedback_give(user=reader, message=message, rating="up", reasons=["outdated"])
    assert "thumbs-down" in " ".join(refused.value.errors["reasons"])
    assert not Feedback.objects.exists()


def test_changing_the_rating_keeps_one_row_and_drops_the_reasons_of_the_old_one(alpha, reader):
    message = _answer(reader)
    feedback_give(
        user=reader, message=message, rating="down", reasons=["wrong_source"], comment="Old doc"
    )
    # rating down again without saying anything new keeps what was said
    again = feedback_give(user=reader, message=message, rating="down")
    assert (again.reasons, again.comment) == (["wrong_source"], "Old doc")
    up = feedback_give(user=reader, message=message, rating="up")
    assert (up.rating, up.reasons, up.comment) == ("up", [], "")
    down = feedback_give(user=reader, message=message, rating="down")
    assert (down.rating, down.reasons) == ("down", [])
    assert Feedback.objects.filter(message=message).count() == 1


# --- the chat page: rating first, then reasons -------------------------------------------


def test_a_thumbs_down_offers_reason_chips_and_a_comment_a_thumbs_up_nothing(alpha, reader):
    message = _answer(reader)
    client = _client(alpha, reader)
    url = f"/chat/m/{message.pk}/feedback"
    down = client.post(url, {"rating": "down"}, **HTMX).content.decode()
    assert "<html" not in down and f'id="feedback-{message.pk}"' in down
    assert 'value="down" class="thumb" aria-pressed="true"' in down
    for value, label in (
        ("outdated", "Outdated"),
        ("wrong_source", "Wrong source"),
        ("missing", "Missing information"),
        ("unclear", "Unclear"),
    ):
        assert f'type="checkbox" name="reasons" value="{value}"' in down
        assert f"{label}</label>" in down
    assert 'name="comment"' in down and ">Send</button>" in down
    assert Feedback.objects.get(message=message).rating == "down"

    up = client.post(url, {"rating": "up"}, **HTMX).content.decode()
    assert 'value="up" class="thumb" aria-pressed="true"' in up
    assert 'name="reasons"' not in up and "Thanks for the feedback." in up


def test_reasons_and_comment_are_sent_after_the_rating(alpha, reader):
    message = _answer(reader)
    client = _client(alpha, reader)
    url = f"/chat/m/{message.pk}/feedback"
    client.post(url, {"rating": "down"}, **HTMX)
    sent = client.post(
        url,
        {"rating": "down", "reasons": ["outdated", "wrong_source"], "comment": "Old runbook"},
        **HTMX,
    ).content.decode()
    assert "The editors will review this answer." in sent
    assert 'name="reasons" value="outdated" checked' in sent
    assert 'name="reasons" value="unclear">' in sent  # not ticked
    feedback = Feedback.objects.get(message=message)
    assert (feedback.reasons, feedback.comment) == (["outdated", "wrong_source"], "Old runbook")
    # the conversation page shows what was said
    page = client.get(f"/chat/c/{message.conversation_id}/").content.decode()
    assert 'name="reasons" value="wrong_source" checked' in page and "Old runbook" in page
    # the form sends no ticked box at all when every reason is cleared
    client.post(url, {"rating": "down", "comment": ""}, **HTMX)
    assert Feedback.objects.get(message=message).reasons == []


def test_an_unknown_reason_gets_a_clear_error_on_the_page(alpha, reader):
    message = _answer(reader)
    client = _client(alpha, reader)
    url = f"/chat/m/{message.pk}/feedback"
    fragment = client.post(url, {"rating": "down", "reasons": ["boring"]}, **HTMX)
    assert fragment.status_code == 200
    assert "Unknown reason “boring”" in fragment.content.decode()
    plain = client.post(url, {"rating": "down", "reasons": ["boring"]})
    assert plain.status_code == 400 and "Unknown reason “boring”" in plain.content.decode()
    assert not Feedback.objects.exists()


# --- the editors' queue -------------------------------------------------------------------


@pytest.fixture
def rated(alpha, reader, handbook, secret_document) -> Feedback:
    runbook = Document.objects.filter(project=handbook).order_by("pk")[0]
    conversation = Conversation.objects.create(user=reader, title="Redis failover")
    _turn(conversation, EARLIER_QUESTION, EARLIER_ANSWER, citations=[_citation(runbook)])
    _turn(
        conversation,
        SECRET_QUESTION,
        SECRET_ANSWER,
        citations=[_citation(secret_document)],
        scope=SECRET_KEY,
    )
    message = _turn(conversation, RATED_QUESTION, RATED_ANSWER, citations=[_citation(runbook)])
    _turn(conversation, LATER_QUESTION, LATER_ANSWER)
    return feedback_give(
        user=reader,
        message=message,
        rating="down",
        reasons=["outdated", "missing"],
        comment="It skipped the Sentinel step",
    )


def test_the_queue_lists_the_reasons(alpha, editor, rated):
    listing = _client(alpha, editor).get(QUEUE, follow=True).content.decode()
    assert "It skipped the Sentinel step" in listing
    assert "Outdated, Missing information" in listing


def test_the_item_page_shows_the_conversation_up_to_the_rated_answer(alpha, editor, rated):
    runbook_title = rated.message.citations[0]["title"]
    page = _client(alpha, editor).get(f"{QUEUE}{rated.pk}/change/").content.decode()
    html = _section(page, "feedback-conversation")
    # in order: the earlier turn with its citation, then the rated one
    positions = [
        html.index(text)
        for text in (EARLIER_QUESTION, EARLIER_ANSWER, RATED_QUESTION, RATED_ANSWER)
    ]
    assert positions == sorted(positions)
    assert runbook_title in html[positions[1] :]
    # the reader's verdict
    for text in ("Outdated", "Missing information", "It skipped the Sentinel step"):
        assert text in html
    # nothing said after the rated answer
    assert LATER_QUESTION not in page and LATER_ANSWER not in page
    # a turn about a project the editor cannot see is withheld, question and answer
    assert SECRET_QUESTION not in page and "Forty-two million" not in page
    assert "withheld" in html


def test_a_superuser_sees_every_turn(alpha, rated):
    root = make_user(alpha, "fb-root", superuser=True)
    html = _client(alpha, root).get(f"{QUEUE}{rated.pk}/change/").content.decode()
    assert SECRET_QUESTION in html and SECRET_ANSWER in html
    assert LATER_ANSWER not in html


def test_an_editor_of_another_project_cannot_open_or_resolve_the_item(alpha, rated):
    other = make_user(alpha, "fb-other-editor", projects={SECRET_KEY: "editor"})
    console = _client(alpha, other)
    assert console.get(f"{QUEUE}{rated.pk}/change/").status_code == 404
    assert console.post(f"{QUEUE}{rated.pk}/resolve/", {"note": "mine"}).status_code == 404
    assert console.post(f"{QUEUE}999999/resolve/", {"note": "gone"}).status_code == 404
    rated.refresh_from_db()
    assert rated.resolved_at is None and rated.resolution_note == ""


def test_an_editor_resolves_the_item_from_its_page_with_a_note(alpha, editor, rated):
    console = _client(alpha, editor)
    response = console.post(
        f"{QUEUE}{rated.pk}/resolve/", {"note": "  Runbook updated with the Sentinel step. "}
    )
    assert response.status_code == 302
    assert response["Location"].endswith(f"{QUEUE}{rated.pk}/change/")
    rated.refresh_from_db()
    assert rated.resolved_by == editor and rated.resolved_at is not None
    assert rated.resolution_note == "Runbook updated with the Sentinel step."
    page = console.get(response["Location"]).content.decode()
    resolution = _section(page, "feedback-resolution")
    assert "Runbook updated with the Sentinel step." in resolution
    assert "Resolved by fb-editor" in resolution
    assert 'name="note"' not in page  # nothing left to resolve

    twice = console.post(f"{QUEUE}{rated.pk}/resolve/", {"note": "again"}, follow=True)
    assert "already resolved by fb-editor" in twice.content.decode()
    rated.refresh_from_db()
    assert rated.resolution_note == "Runbook updated with the Sentinel step."
    assert console.get(f"{QUEUE}{rated.pk}/resolve/").status_code == 405


def test_a_too_long_note_is_refused_and_nothing_is_resolved(alpha, editor, rated):
    with pytest.raises(ChatInputError) as refused:
        feedback_resolve_one(feedback=rated, by=editor, note="x" * 2001)
    assert "note" in refused.value.errors
    page = _client(alpha, editor).post(
        f"{QUEUE}{rated.pk}/resolve/", {"note": "x" * 2001}, follow=True
    )
    assert "Keep the note under 2001 characters." in page.content.decode()
    rated.refresh_from_db()
    assert rated.resolved_at is None


def test_rating_again_reopens_the_item_and_clears_the_note(alpha, reader, editor, rated):
    feedback_resolve_one(feedback=rated, by=editor, note="Fixed")
    again = feedback_give(user=reader, message=rated.message, rating="down", reasons=["unclear"])
    assert (again.resolved_at, again.resolved_by, again.resolution_note) == (None, None, "")


def test_the_personal_data_export_holds_the_reasons(alpha, reader):
    from privacy.services import user_data_export

    feedback_give(user=reader, message=_answer(reader), rating="down", reasons=["unclear"])
    [row] = user_data_export(user=reader)["feedback"]
    assert (row["rating"], row["reasons"]) == ("down", ["unclear"])
