"""Everyday use, round 2 (issue 27), what a page request shows: an expired session met by a
script, a turn that survives a reload, one chip per section and one warning per rejected
record, the deprecated source's reason and successor, previews without raw markup, the
document page, a refusal that offers the closest documents and who curates them."""

from __future__ import annotations

import re

import pytest
from django.core.signals import request_finished
from django.db import close_old_connections
from django.urls import reverse

from canonical.models import RecordChange
from chat.models import Conversation, Message
from chat.services import message_send
from kb.ingestion.formats import escape_markup
from kb.markup import to_plain_text, to_prose
from kb.models import Edge, EdgeType
from tests.chat.conftest import HANDBOOK_KEY
from tests.chat.helpers import make_document
from tests.conftest import make_user

pytestmark = pytest.mark.django_db

FAILOVER = "How do I fail over the Redis cluster when a primary is down?"
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def answerable(settings):
    settings.KB = {**settings.KB, "MIN_SIMILARITY": 0.2}  # hash embedder; see test_chat_api


@pytest.fixture
def reader(alpha, handbook):
    return make_user(alpha, "round2-reader", projects={HANDBOOK_KEY: "reader"})


def _client(info, user):
    client = info.client()
    client.force_login(user)
    return client


# --- 1. an expired session met by a script ---------------------------------------------------


def test_an_htmx_request_without_a_session_leaves_for_a_full_page_sign_in_and_back(alpha):
    client = alpha.client()
    response = client.post(
        "/chat/send",
        {"question": "anything"},
        HTTP_HX_REQUEST="true",
        HTTP_HX_CURRENT_URL="http://alpha.localhost/chat/c/12/?q=x",
    )
    assert response.status_code == 401
    assert response["HX-Redirect"] == "/login/?next=%2Fchat%2Fc%2F12%2F%3Fq%3Dx"
    assert b"<html" not in response.content  # never the sign-in page as a fragment


def test_the_way_back_never_leaves_the_site(alpha):
    response = alpha.client().get(
        "/chat/", HTTP_HX_REQUEST="true", HTTP_HX_CURRENT_URL="https://evil.example/phish"
    )
    assert response.status_code == 401
    assert response["HX-Redirect"] == "/login/?next=%2F"


def test_a_plain_request_without_a_session_is_redirected_as_before(alpha):
    response = alpha.client().get("/chat/")
    assert response.status_code == 302 and response["Location"].startswith("/login/")


# --- 2. a turn that survives a reload ---------------------------------------------------------


def test_a_turn_sent_with_a_key_is_found_by_it_and_never_answered_twice(alpha, reader, answerable):
    client = _client(alpha, reader)
    key = "0f8a2c1e-5b7d-4c3a-9e21-7d6b5a4c3b2a"
    assert client.get(f"/chat/turn/{key}").status_code == 404  # not stored yet
    client.post("/chat/send", {"question": FAILOVER, "turn_key": key}, **HTMX)
    conversation = Conversation.objects.get(user=reader)
    found = client.get(f"/chat/turn/{key}")
    assert found.status_code == 200
    assert found.json() == {"url": f"/chat/c/{conversation.pk}/"}
    page = client.get(f"/chat/c/{conversation.pk}/").content.decode()
    assert f'data-turn-key="{key}"' in page
    # the same ask sent again (a retry after a reload) returns the stored turn
    again = message_send(user=reader, question=FAILOVER, turn_key=key)
    assert again.conversation == conversation
    assert Message.objects.filter(conversation=conversation).count() == 2


def test_someone_elses_turn_key_finds_nothing(alpha, reader, answerable):
    key = "a1b2c3d4e5f6"
    message_send(user=reader, question=FAILOVER, turn_key=key)
    other = make_user(alpha, "round2-other", projects={HANDBOOK_KEY: "reader"})
    assert _client(alpha, other).get(f"/chat/turn/{key}").status_code == 404


def test_a_malformed_turn_key_is_refused_with_a_clear_error(alpha, reader, answerable):
    response = _client(alpha, reader).post(
        "/chat/send", {"question": FAILOVER, "turn_key": "bad key!"}, **HTMX
    )
    assert "8 to 64 letters, digits or dashes" in response.content.decode()
    assert not Conversation.objects.filter(user=reader).exists()


def test_a_stream_the_reader_leaves_mid_answer_is_still_stored(alpha, reader, openai_fake, rf):
    from chat.views import chat_stream

    request = rf.post(
        "/chat/stream", {"question": FAILOVER, "turn_key": "leave-early-1"}, HTTP_HOST=alpha.host
    )
    request.user = reader
    request.tenant = alpha.tenant
    response = chat_stream(request)
    pieces = iter(response.streaming_content)
    assert b"event: token" in next(pieces)  # the first piece came, then the tab went away
    # the server closes the response, as on a broken pipe (the test keeps its connection)
    request_finished.disconnect(close_old_connections)
    try:
        response.close()
    finally:
        request_finished.connect(close_old_connections)
    answer = Message.objects.get(conversation__user=reader, role="assistant")
    assert answer.content == "Redis Cluster is the standard cache [1]."
    assert answer.meta["turn_key"] == "leave-early-1"


# --- 8. one chip per section, one warning per rejected record; the deprecated source ---------


def _citation(n, document, *, heading="", chunk_id=None, **fields):
    return {
        "n": n,
        "document_id": document.pk,
        "chunk_id": chunk_id,
        "title": document.title,
        "slug": document.slug,
        "project_key": document.project.key,
        "heading_path": heading,
        "excerpt": "",
        "origin": fields.pop("origin", "primary"),
        "preview_url": "",
        "canonical_status": document.canonical_status,
        "canonical_type": document.canonical_type,
        **fields,
    }


def _answer(user, citations):
    conversation = Conversation.objects.create(user=user, title="Sources")
    Message.objects.create(conversation=conversation, role="user", content="q?")
    Message.objects.create(
        conversation=conversation,
        role="assistant",
        content="One [1]. Two [2]. Three [3]. Four [4].",
        citations=citations,
    )
    return conversation


def test_one_chip_per_section_and_one_warning_per_rejected_record(alpha):
    user = make_user(alpha, "round2-chips", projects={"r2": "reader"})
    runbook = make_document("r2", "runbook", [("x", 0)], canonical_type="runbook",
                        canonical_status="accepted")  # fmt: skip
    memcached = make_document("r2", "rej-memcached", [("y", 0)], canonical_type="rejected-approach",
                          canonical_status="rejected")  # fmt: skip
    conversation = _answer(user, [
        _citation(1, runbook, heading="Runbook > 3. Failover", chunk_id=1),
        _citation(2, runbook, heading="Runbook > 3. Failover", chunk_id=2),
        _citation(3, memcached, heading="Why not", chunk_id=3),
        _citation(4, memcached, heading="Context", chunk_id=4),
    ])  # fmt: skip
    page = _client(alpha, user).get(f"/chat/c/{conversation.pk}/").content.decode()
    assert page.count('class="chip"') == 1
    assert page.count('class="rejected-warning"') == 1


def test_a_deprecated_source_chip_says_why_and_what_replaced_it(alpha):
    editor = make_user(alpha, "round2-ed", projects={"r2": "editor"})
    old = make_document("r2", "old-way", [("old", 0)], canonical_type="runbook",
                    canonical_status="deprecated")  # fmt: skip
    new = make_document("r2", "new-way", [("new", 0)], canonical_type="runbook",
                    canonical_status="accepted", title="The new way")  # fmt: skip
    Edge.objects.create(
        from_document=new, to_document=old, to_slug=old.slug, edge_type=EdgeType.SUPERSEDES
    )
    RecordChange.objects.create(
        document=old, field="canonical_status", from_value="accepted", to_value="deprecated",
        reason="The vendor ended support", source="console",
    )  # fmt: skip
    conversation = _answer(editor, [_citation(1, old, chunk_id=9)])
    page = _client(alpha, editor).get(f"/chat/c/{conversation.pk}/").content.decode()
    note = re.search(r'<p class="chip-note">(.*?)</p>', page, re.S)
    assert note is not None
    assert "Deprecated: The vendor ended support" in note.group(1)
    assert "Replaced by" in note.group(1) and "The new way" in note.group(1)
    assert reverse("chat-preview", args=[new.pk]) in note.group(1)


# --- 5. raw markup where people read ----------------------------------------------------------


def test_an_extracted_number_is_escaped_so_it_renders_as_written():
    assert escape_markup("3. Hotel nightly caps\n# not a heading") == (
        "3\\. Hotel nightly caps\n\\# not a heading"
    )
    assert to_prose("3\\. Hotel nightly caps") == "3. Hotel nightly caps"
    assert to_prose("\\3. Hotel nightly caps") == "3. Hotel nightly caps"  # older ingests


def test_a_snippet_reads_as_text():
    text = "## 2. Planned failover\n\nPromote the **replica**:\n\n```bash\nrc failover\n```\n\n" \
        "| Step | Who |\n|---|---|\n| promote | on-call |\n\nSee [[rb-ingest-backlog]]."  # fmt: skip
    plain = " ".join(to_plain_text(text).split())
    assert plain == (
        "2. Planned failover Promote the replica: rc failover Step · Who promote · on-call "
        "See rb-ingest-backlog."
    )


@pytest.fixture
def split_table(alpha):
    reader = make_user(alpha, "round2-pv", projects={"r2": "reader"})
    first = "# Rates\n\nHotel caps per city:\n\n| City | Cap |\n|---|---|\n| Oslo | 180 |\n"
    second = (
        "| Bergen | 150 |\n| Tromsø | 140 |\n\nSee [[travel-policy]].\n\n\\3. Hotel nightly caps\n"
    )
    rates = make_document("r2", "rates", [(first, 0), (second, 0)], title="Travel rates",
                      canonical_type="reference", canonical_status="accepted")  # fmt: skip
    policy = make_document("r2", "travel-policy", [("Policy.", 0)], title="Travel policy")
    hidden = make_document("r2-hidden", "secret-plan", [("Secret.", 0)], title="Secret plan")
    return reader, rates, policy, hidden


def test_a_table_split_between_chunks_previews_as_one_table(alpha, split_table):
    reader, rates, _, _ = split_table
    cited = rates.chunks.order_by("chunk_order").last()
    html = (
        _client(alpha, reader)
        .get(f"/chat/preview/{rates.pk}/?chunk={cited.pk}", **HTMX)
        .content.decode()
    )
    assert html.count("<table>") == 1
    assert "| Bergen" not in html and "<td>Bergen</td>" in html
    marked = html[html.index('id="cited-chunk"') :]
    assert "<td>Bergen</td>" in marked  # the table holding the cited rows is the passage


def test_a_preview_links_wikilinks_by_title_and_shows_the_document_frame(alpha, split_table):
    reader, rates, policy, hidden = split_table
    html = _client(alpha, reader).get(f"/chat/preview/{rates.pk}/", **HTMX).content.decode()
    assert "[[travel-policy]]" not in html
    assert f'<a href="/chat/preview/{policy.pk}/">Travel policy</a>' in html
    assert "\\3." not in html and "3. Hotel nightly caps" in html
    assert '<h2 id="preview-heading">Travel rates</h2>' in html
    assert ">accepted<" in html
    assert f'href="/chat/documents/{rates.pk}/"' in html  # open the whole document


def test_a_wikilink_to_a_document_the_reader_cannot_see_stays_a_name(alpha, split_table):
    reader, _, _, hidden = split_table
    page = make_document("r2", "links", [("Read [[secret-plan]].", 0)])
    html = _client(alpha, reader).get(f"/chat/preview/{page.pk}/", **HTMX).content.decode()
    assert "secret-plan" in html and "Secret plan" not in html
    assert f"/chat/preview/{hidden.pk}/" not in html


# --- 6. the document page ---------------------------------------------------------------------


def test_the_document_page_shows_status_chain_curators_and_history_to_editors(alpha):
    editor = make_user(alpha, "round2-doc-ed", projects={"r2": "editor"})
    reader = make_user(alpha, "round2-doc-rd", projects={"r2": "reader"})
    old = make_document("r2", "cache-v1", [("# Cache v1\n\nOne node.", 0)], title="Cache v1",
                    canonical_type="decision", canonical_status="superseded")  # fmt: skip
    new = make_document("r2", "cache-v2", [("Cluster.", 0)], title="Cache v2",
                    canonical_type="decision", canonical_status="accepted")  # fmt: skip
    Edge.objects.create(
        from_document=new, to_document=old, to_slug=old.slug, edge_type=EdgeType.SUPERSEDES
    )
    RecordChange.objects.create(
        document=old, field="canonical_status", from_value="accepted", to_value="superseded",
        reason="Cache v2 replaces it", source="console", actor_name="round2-doc-ed",
    )  # fmt: skip
    url = f"/chat/documents/{old.pk}/"
    preview = _client(alpha, reader).get(f"/chat/preview/{old.pk}/", **HTMX).content.decode()
    timeline = preview[preview.index('class="preview-timeline"') :]
    assert "accepted → <strong>superseded</strong>" in timeline  # the status timeline
    assert "Cache v2 replaces it" in timeline
    as_editor = _client(alpha, editor).get(url).content.decode()
    assert '<h1 class="preview-title">Cache v1</h1>' in as_editor
    assert "This record is superseded." in as_editor and "Cache v2" in as_editor
    assert "Curated by round2-doc-ed" in as_editor
    assert "Cache v2 replaces it" in as_editor  # the history, for editors
    as_reader = _client(alpha, reader).get(url).content.decode()
    # a reader sees the status timeline, not the editors' history of every curated field
    assert "Cache v2 replaces it" in as_reader and 'class="history"' not in as_reader
    assert "Replaces" in _client(alpha, reader).get(f"/chat/documents/{new.pk}/").content.decode()
    outsider = make_user(alpha, "round2-doc-out", projects={})
    assert _client(alpha, outsider).get(url).status_code == 404


# --- 7. a refusal is not a dead end ------------------------------------------------------------


def test_a_refusal_offers_the_closest_documents_and_who_curates_them(alpha, reader, answerable):
    make_user(alpha, "round2-curator", projects={HANDBOOK_KEY: "editor"})
    turn = message_send(user=reader, question="What colour is the office piano in Lisbon?")
    assert turn.refusal_reason
    page = _client(alpha, reader).get(f"/chat/c/{turn.conversation.pk}/").content.decode()
    block = page[page.index('class="closest-documents"') :]
    assert block.count("data-preview-url") >= 1
    assert f"round2-curator curates the {HANDBOOK_KEY} project" in page


# --- issue 28: an answer's pinned citations through the API --------------------------------


def test_an_answers_citations_are_listed_with_their_versions_for_its_asker_only(
    alpha, reader, answerable
):
    from tests.conftest import token_for

    turn = message_send(user=reader, question=FAILOVER)
    assert turn.citations
    client = alpha.client()
    url = f"/api/chat/messages/{turn.answer_message.pk}/citations"
    got = client.get(url, HTTP_AUTHORIZATION=f"Token {token_for(alpha, reader)}")
    assert got.status_code == 200, got.content
    body = got.json()
    assert body["withheld"] is False and body["conversation_id"] == turn.conversation.pk
    assert [c["document_id"] for c in body["citations"]] == [
        c["document_id"] for c in turn.citations
    ]
    assert all(isinstance(c["version"], int) for c in body["citations"])
    other = make_user(alpha, "round2-api-other", projects={HANDBOOK_KEY: "reader"})
    foreign = client.get(url, HTTP_AUTHORIZATION=f"Token {token_for(alpha, other)}")
    assert foreign.status_code == 404
    question = client.get(
        f"/api/chat/messages/{turn.question_message.pk}/citations",
        HTTP_AUTHORIZATION=f"Token {token_for(alpha, reader)}",
    )
    assert question.status_code == 404
