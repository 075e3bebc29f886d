"""Feedback becomes a proposal (issue 29 part 2): a thumbs-down saying "outdated", "wrong
source", "should have cited <document>" or "missing" proposes a change to the project's
editors, with its evidence; accepting it in the console goes through the curation services
(audited) and the next answer to the same question changes. The extractive provider answers
(no scripted text): what changes is what the knowledge base says."""

from __future__ import annotations

import re

import pytest

from canonical.models import RecordChange
from chat.feedback import feedback_give
from chat.models import (
    ContentGap,
    Feedback,
    FeedbackReason,
    Message,
    Proposal,
    ProposalKind,
    ProposalState,
)
from chat.proposals.selectors import proposals_for
from chat.proposals.services import ProposalError, proposal_accept, proposal_reject
from chat.services import ChatInputError, message_send
from kb.filters import SearchFilters
from kb.models import CanonicalStatus, Document
from kb.services import document_ingest
from portal.access.services import project_ensure
from tests.conftest import make_user

pytestmark = pytest.mark.django_db

KEY = "proposals"
LIST = "/admin/chat/proposal/"
VPN_RECORD = """---
type: standard
status: accepted
slug: vpn-policy
---

# VPN policy

## Tokens

- VPN token lifetime: 12 hours before the client asks to sign in again.
- Tokens are issued by the identity team.
"""
VPN_NOTE = """# VPN change, March

From March the VPN token lifetime is 8 hours before the client asks to sign in again.
"""
# two copies of one notice that match the question alike: the ranking decides between them
PARKING_A = """# Visitor parking (facilities)

The visitor car park at the main site closes at 22:00 and opens at 06:30.
"""
PARKING_B = """# Visitor parking (reception)

The visitor car park at the main site closes at 22:00 and opens at 06:30.
"""
VPN_QUESTION = "What is the VPN token lifetime?"
PARKING_QUESTION = "When does the visitor car park at the main site close?"


@pytest.fixture
def world(alpha):
    project = project_ensure(key=KEY)
    docs = {}
    for name, text in {
        "record": VPN_RECORD,
        "note": VPN_NOTE,
        "parking-a": PARKING_A,
        "parking-b": PARKING_B,
    }.items():
        docs[name] = document_ingest(
            project=project, source_path=f"{name}.md", content=text
        ).document
    return {
        "project": project,
        "docs": docs,
        "reader": make_user(alpha, "proposal-reader", projects={KEY: "reader"}),
        "editor": make_user(alpha, "proposal-editor", projects={KEY: "editor"}),
        "outsider": make_user(alpha, "proposal-outsider", projects={"elsewhere": "editor"}),
    }


def ask(user, question: str) -> Message:
    turn = message_send(user=user, question=question, filters=SearchFilters(project_keys=(KEY,)))
    return Message.objects.filter(conversation=turn.conversation, role="assistant").latest("id")


def cited(answer: Message) -> list[int]:
    return list(dict.fromkeys(c["document_id"] for c in answer.citations or []))


def parking_pair(world, answer: Message) -> tuple[Document, Document]:
    """The copy of the parking notice the answer cited first, and the other one."""
    a, b = world["docs"]["parking-a"], world["docs"]["parking-b"]
    first = cited(answer)[0]
    assert first in {a.pk, b.pk}
    return (a, b) if first == a.pk else (b, a)


def states_as_current(answer: Message, value: str) -> bool:
    """The answer states `value` in a clause that does not call its source stale."""
    clauses = re.split(r"(?<=[.\]])\s+|,\s+but\s+", answer.content)
    return any(value in c and not re.search(r"superseded|deprecated", c) for c in clauses)


def thumbs_down(world, answer: Message, reasons: list[str], suggested: str | None = None):
    return feedback_give(
        user=world["reader"],
        message=answer,
        rating="down",
        reasons=reasons,
        suggested=suggested,
    )


def accept_in_console(alpha, world, proposal: Proposal) -> str:
    client = alpha.client()
    client.force_login(world["editor"])
    page = client.get(f"{LIST}{proposal.pk}/change/")
    assert page.status_code == 200
    response = client.post(f"{LIST}{proposal.pk}/decide/", {"action": "accept"}, follow=True)
    return response.content.decode()


def test_should_have_cited_is_a_priority_raise_and_then_that_document_is_cited_first(alpha, world):
    before = ask(world["reader"], PARKING_QUESTION)
    first, other = parking_pair(world, before)
    thumbs_down(world, before, [], suggested=other.slug)
    feedback = Feedback.objects.get(message=before)
    assert feedback.reasons == [FeedbackReason.SHOULD_HAVE_CITED]
    [proposal] = proposals_for(user=world["editor"])
    assert (proposal.kind, proposal.document) == (ProposalKind.RAISE_PRIORITY, other)
    # the evidence: the question, the answer, the cited and the suggested documents
    assert proposal.question == PARKING_QUESTION
    assert "22:00" in proposal.answer
    assert proposal.cited_document_ids == [first.pk]
    assert proposal.suggested == other
    assert list(proposals_for(user=world["outsider"])) == []
    outsider = alpha.client()
    outsider.force_login(world["outsider"])
    assert outsider.get(f"{LIST}{proposal.pk}/change/").status_code == 404

    # the feedback's page in the queue links to what it proposes
    editor = alpha.client()
    editor.force_login(world["editor"])
    item = editor.get(f"/admin/chat/feedback/{feedback.pk}/change/").content.decode()
    assert "Raise the document&#x27;s priority" in item and f"{LIST}{proposal.pk}/change/" in item

    html = accept_in_console(alpha, world, proposal)
    assert "Proposal accepted" in html
    proposal.refresh_from_db()
    assert proposal.state == ProposalState.ACCEPTED and proposal.decided_by == world["editor"]
    change = RecordChange.objects.get(document=other, field="retrieval_priority")
    assert (change.from_value, change.to_value, change.actor) == ("50", "90", world["editor"])
    feedback.refresh_from_db()
    assert feedback.resolved_at is not None  # nothing of it is open any more

    after = ask(world["reader"], PARKING_QUESTION)
    assert cited(after)[0] == other.pk


def test_outdated_marks_the_record_stale_and_the_next_answer_no_longer_states_its_value(
    alpha, world
):
    docs = world["docs"]
    before = ask(world["reader"], VPN_QUESTION)
    assert states_as_current(before, "12 hours") and cited(before)[0] == docs["record"].pk
    thumbs_down(world, before, [FeedbackReason.OUTDATED])
    [proposal] = proposals_for(user=world["editor"])
    assert (proposal.kind, proposal.document) == (ProposalKind.DEPRECATE, docs["record"])

    accept_in_console(alpha, world, proposal)
    docs["record"].refresh_from_db()
    assert docs["record"].canonical_status == CanonicalStatus.DEPRECATED
    assert RecordChange.objects.filter(
        document=docs["record"], field="canonical_status", to_value="deprecated"
    ).exists()

    after = ask(world["reader"], VPN_QUESTION)
    assert states_as_current(after, "8 hours") and not states_as_current(after, "12 hours")
    assert cited(after)[0] == docs["note"].pk


def test_outdated_naming_the_newer_document_links_it_as_the_successor(alpha, world):
    docs = world["docs"]
    before = ask(world["reader"], VPN_QUESTION)
    thumbs_down(world, before, [FeedbackReason.OUTDATED], suggested="VPN change, March")
    kinds = {(p.kind, p.document_id) for p in proposals_for(user=world["editor"])}
    # the successor is linked; the note is also ranked up as the source to cite
    assert kinds == {
        (ProposalKind.SUPERSEDE, docs["record"].pk),
        (ProposalKind.RAISE_PRIORITY, docs["note"].pk),
    }
    proposal = Proposal.objects.get(kind=ProposalKind.SUPERSEDE)
    assert proposal.successor == docs["note"]

    accept_in_console(alpha, world, proposal)
    docs["record"].refresh_from_db()
    assert docs["record"].canonical_status == CanonicalStatus.SUPERSEDED
    assert RecordChange.objects.filter(
        document=docs["record"], field="superseded_by", to_value=docs["note"].slug
    ).exists()
    after = ask(world["reader"], VPN_QUESTION)
    assert states_as_current(after, "8 hours") and not states_as_current(after, "12 hours")


def test_wrong_source_ranks_the_cited_document_down(alpha, world):
    before = ask(world["reader"], PARKING_QUESTION)
    first, other = parking_pair(world, before)
    thumbs_down(world, before, [FeedbackReason.WRONG_SOURCE])
    [proposal] = proposals_for(user=world["editor"])
    assert (proposal.kind, proposal.document) == (ProposalKind.LOWER_PRIORITY, first)
    accept_in_console(alpha, world, proposal)
    first.refresh_from_db()
    assert first.retrieval_priority == 10
    after = ask(world["reader"], PARKING_QUESTION)
    assert cited(after)[0] == other.pk


def test_missing_opens_a_content_gap_and_a_rejected_proposal_changes_nothing(alpha, world):
    question = "What is the VPN token lifetime on a phone?"
    answer = ask(world["reader"], question)
    ContentGap.objects.filter(project_key=KEY).delete()  # a refusal may have counted it
    thumbs_down(world, answer, [FeedbackReason.MISSING, FeedbackReason.OUTDATED])
    gap = Proposal.objects.get(kind=ProposalKind.CONTENT_GAP)
    stale = Proposal.objects.exclude(kind=ProposalKind.CONTENT_GAP)
    assert gap.project == world["project"]
    accept_in_console(alpha, world, gap)
    assert ContentGap.objects.get(project_key=KEY).example_question == question

    statuses = {doc.pk: doc.canonical_status for doc in Document.objects.filter(project__key=KEY)}
    for proposal in stale:
        proposal_reject(proposal=proposal, by=world["editor"], reason="the record is right")
        proposal.refresh_from_db()
        assert proposal.state == ProposalState.REJECTED
        assert proposal.reason == "the record is right"
        with pytest.raises(ProposalError):
            proposal_accept(proposal=proposal, by=world["editor"])
    assert statuses == {
        doc.pk: doc.canonical_status for doc in Document.objects.filter(project__key=KEY)
    }


def test_a_suggestion_names_a_document_the_reader_can_read(alpha, world):
    secret = project_ensure(key="proposals-secret")
    document_ingest(project=secret, source_path="s.md", content="# Board memo\n\nSecret.\n")
    answer = ask(world["reader"], PARKING_QUESTION)
    for name in ("Board memo", "no-such-document"):
        with pytest.raises(ChatInputError) as caught:
            thumbs_down(world, answer, [], suggested=name)
        assert "suggested" in caught.value.errors
    with pytest.raises(ChatInputError):
        thumbs_down(world, answer, [FeedbackReason.SHOULD_HAVE_CITED])
    # taking it back withdraws the open proposal
    thumbs_down(world, answer, [], suggested="parking-b")
    assert Proposal.objects.count() == 1
    feedback_give(user=world["reader"], message=answer, rating="up")
    assert Proposal.objects.count() == 0
