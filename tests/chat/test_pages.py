"""The /chat/ page: full page, htmx fragments, error bubbles, labels, and the 404 rule."""

from __future__ import annotations

import re

import pytest

from chat.models import Conversation, Message
from chat.providers import ProviderTimeout
from tests.chat.conftest import HANDBOOK_KEY
from tests.conftest import make_user

pytestmark = pytest.mark.django_db

FAILOVER = "How do I fail over the Redis cluster when a primary is down?"


@pytest.fixture
def answerable(settings):
    """Hash embedder cosines sit near 0.3; see test_chat_api.answerable."""
    settings.KB = {**settings.KB, "MIN_SIMILARITY": 0.2}


@pytest.fixture
def reader(alpha, handbook):
    return make_user(
        alpha, "page-reader", projects={HANDBOOK_KEY: "reader", "page-other": "editor"}
    )


def _client(info, user):
    client = info.client()
    client.force_login(user)
    return client


def _htmx(target: str) -> dict[str, str]:
    return {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": target}


def test_the_page_lists_projects_conversations_and_the_question_box(alpha, reader):
    Conversation.objects.create(user=reader, title="Earlier question about caches")
    stranger = make_user(alpha, "page-stranger", projects={"page-secret": "reader"})
    Conversation.objects.create(user=stranger, title="Someone else's chat")
    response = _client(alpha, reader).get("/chat/")
    html = response.content.decode()
    assert response.status_code == 200
    assert "<html" in html
    assert "Earlier question about caches" in html
    assert "Someone else&#x27;s chat" not in html and "Someone else's chat" not in html
    options = re.findall(r'<option value="([^"]*)"', html)
    assert options == ["", HANDBOOK_KEY, "page-other"]
    assert 'id="question"' in html and 'hx-post="/chat/send"' in html
    # no inline script: every <script> loads a static file (CSP without 'unsafe-inline')
    scripts = re.findall(r"<script[^>]*>", html)
    assert scripts and all("src=" in tag for tag in scripts)
    assert "/static/js/htmx.min.js" in html and "/static/js/chat.js" in html


def test_anonymous_visitors_are_sent_to_login(alpha):
    response = alpha.client().get("/chat/")
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_asking_with_htmx_returns_the_fragment_with_answer_and_citation_chips(
    alpha, reader, answerable
):
    response = _client(alpha, reader).post(
        "/chat/send", {"question": FAILOVER, "project": ""}, **_htmx("chat-main")
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert "<html" not in html and "<body" not in html
    assert html.lstrip().startswith('<section id="chat-main"')
    conversation = Conversation.objects.get(user=reader)
    assert response["HX-Push-Url"] == f"/chat/c/{conversation.pk}/"
    assert FAILOVER in html
    assert 'class="chip' in html and 'data-preview-url="/chat/preview/' in html
    assert 'class="cite-ref"' in html  # inline [n] markers open the same modal
    # the conversation list is refreshed out of band, and the next question joins this chat
    assert 'id="conversation-list" class="conversation-list" hx-swap-oob="true"' in html
    assert f'name="conversation_id" value="{conversation.pk}"' in html


def test_asking_without_javascript_redirects_to_the_conversation(alpha, reader, answerable):
    client = _client(alpha, reader)
    response = client.post("/chat/send", {"question": FAILOVER})
    conversation = Conversation.objects.get(user=reader)
    assert response.status_code == 302
    assert response["Location"] == f"/chat/c/{conversation.pk}/"
    page = client.get(response["Location"]).content.decode()
    assert FAILOVER in page and 'class="chip' in page


def test_an_off_topic_question_shows_a_polite_refusal(alpha, reader):
    html = (
        _client(alpha, reader)
        .post("/chat/send", {"question": "zebra xylophone quantum marmalade"}, **_htmx("chat-main"))
        .content.decode()
    )
    assert 'data-refusal-reason="no_relevant_context"' in html
    assert "won&#x27;t guess" in html or "won't guess" in html
    assert 'class="chip' not in html


def test_an_empty_question_is_an_inline_error_not_a_crash(alpha, reader):
    response = _client(alpha, reader).post("/chat/send", {"question": "  "}, **_htmx("chat-main"))
    assert response.status_code == 200
    assert 'class="bubble bubble-error"' in response.content.decode()
    assert not Conversation.objects.filter(user=reader).exists()


def test_a_provider_failure_shows_an_error_bubble_with_retry(
    alpha, reader, answerable, recording_provider
):
    recording_provider.error = ProviderTimeout("The answer service took too long to respond.")
    response = _client(alpha, reader).post(
        "/chat/send", {"question": FAILOVER, "project": HANDBOOK_KEY}, **_htmx("chat-main")
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert "The answer service took too long to respond." in html
    assert "Retry" in html
    assert f'name="question" value="{FAILOVER}"' in html
    assert f'name="project_keys" value="{HANDBOOK_KEY}"' in html


def test_message_list_fragment_for_htmx_navigation(alpha, reader):
    conversation = Conversation.objects.create(user=reader, title="t")
    Message.objects.create(conversation=conversation, role="user", content="What is it?")
    response = _client(alpha, reader).get(f"/chat/c/{conversation.pk}/", **_htmx("message-list"))
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="message-list"')
    assert "What is it?" in html and "ask-form" not in html


def test_stale_sources_are_labelled_and_rejected_ones_are_a_distinct_warning(alpha, reader):
    conversation = Conversation.objects.create(user=reader, title="caches")
    Message.objects.create(
        conversation=conversation,
        role="assistant",
        content="Redis Cluster is the standard [1]. The old design used one node [2].",
        citations=[
            _citation(1, "ADR-0011 Redis Cluster", "accepted", "primary"),
            _citation(2, "ADR-0003 Single Redis", "superseded", "primary"),
            _citation(3, "Rejected: Memcached", "accepted", "rejected_injection"),
        ],
    )
    html = _client(alpha, reader).get(f"/chat/c/{conversation.pk}/").content.decode()
    chips = html[html.index('class="citations"') :]
    stale_chip = re.search(r'<a class="chip chip-stale".*?</a>', chips, re.S).group(0)
    assert "ADR-0003 Single Redis" in stale_chip and "superseded" in stale_chip
    warning = re.search(r'<div class="rejected-warning".*?</div>', html, re.S).group(0)
    assert "Considered and rejected" in warning and "Rejected: Memcached" in warning
    assert html.count('class="cite-ref"') == 2


def test_answer_text_is_escaped(alpha, reader):
    conversation = Conversation.objects.create(user=reader, title="x")
    Message.objects.create(
        conversation=conversation,
        role="assistant",
        content='<img src=x onerror="window.__pwned=1"> [1]',
        citations=[_citation(1, "Doc", "accepted", "primary")],
    )
    html = _client(alpha, reader).get(f"/chat/c/{conversation.pk}/").content.decode()
    assert '<img src=x onerror="window.__pwned=1">' not in html
    assert "&lt;img src=x" in html


def test_someone_elses_conversation_is_404_on_page_and_on_send(alpha, reader):
    stranger = make_user(alpha, "page-stranger2", projects={HANDBOOK_KEY: "reader"})
    theirs = Conversation.objects.create(user=stranger, title="private")
    client = _client(alpha, reader)
    assert client.get(f"/chat/c/{theirs.pk}/").status_code == 404
    assert client.get("/chat/c/987654/").status_code == 404
    response = client.post(
        "/chat/send", {"question": "hi", "conversation_id": str(theirs.pk)}, **_htmx("chat-main")
    )
    assert response.status_code == 404
    assert not Message.objects.filter(conversation=theirs).exists()


def test_a_session_of_one_tenant_means_nothing_at_another(alpha, beta, reader):
    client = _client(alpha, reader)
    client.defaults["HTTP_HOST"] = beta.host
    response = client.get("/chat/")
    assert response.status_code == 302 and "/login/" in response["Location"]


def _citation(n: int, title: str, status: str, origin: str, kind: str | None = None) -> dict:
    # a real handbook document: an answer citing one the reader cannot see is hidden
    from kb.models import Document

    document_id = (
        Document.objects.filter(project__key=HANDBOOK_KEY)
        .order_by("pk")
        .values_list("pk", flat=True)[n - 1]
    )
    return {
        "n": n,
        "document_id": document_id,
        "chunk_id": 2000 + n,
        "title": title,
        "slug": f"doc-{n}",
        "project_key": HANDBOOK_KEY,
        "heading_path": "",
        "excerpt": "…",
        "origin": origin,
        "preview_url": f"/api/kb/documents/{1000 + n}/preview",
        "canonical_status": status,
        "canonical_type": kind,
    }


def test_a_rejected_approach_found_by_the_primary_search_is_still_a_warning(alpha, reader):
    conversation = Conversation.objects.create(user=reader, title="memcached")
    Message.objects.create(
        conversation=conversation,
        role="assistant",
        content="Redis Cluster is the cache [2]. ⚠ Note: Memcached was rejected [1].",
        citations=[
            _citation(1, "Rejected: Memcached", "accepted", "primary", "rejected-approach"),
            _citation(2, "ADR-0011 Redis Cluster", "accepted", "primary", "decision"),
        ],
    )
    html = _client(alpha, reader).get(f"/chat/c/{conversation.pk}/").content.decode()
    warning = re.search(r'<div class="rejected-warning".*?</div>', html, re.S).group(0)
    assert "Rejected: Memcached" in warning
    chips = html[html.index('class="citations"') : html.index('class="rejected-warning"')]
    assert "ADR-0011 Redis Cluster" in chips and "Rejected: Memcached" not in chips


def test_a_conversation_keeps_its_project_filter(alpha, reader):
    conversation = Conversation.objects.create(user=reader, title="scoped")
    Message.objects.create(
        conversation=conversation,
        role="assistant",
        content="…",
        meta={"filters": {"project_keys": ["page-other"]}},
    )
    html = _client(alpha, reader).get(f"/chat/c/{conversation.pk}/").content.decode()
    assert '<option value="page-other" selected>' in html


def test_every_non_accepted_status_is_badged_on_its_chip(alpha, reader):
    statuses = ["accepted", "draft", "review", "superseded", "deprecated", "archived"]
    conversation = Conversation.objects.create(user=reader, title="statuses")
    Message.objects.create(
        conversation=conversation,
        role="assistant",
        content=" ".join(f"Fact [{n}]." for n in range(1, len(statuses) + 1)),
        citations=[
            _citation(n, f"Doc {status}", status, "primary")
            for n, status in enumerate(statuses, start=1)
        ],
    )
    html = _client(alpha, reader).get(f"/chat/c/{conversation.pk}/").content.decode()
    chips = re.findall(r'<a class="chip[^"]*".*?</a>', html, re.S)
    assert len(chips) == len(statuses)
    for chip, status in zip(chips, statuses, strict=True):
        badges = re.findall(r'class="badge badge-status[^"]*">([a-z]+)<', chip)
        assert badges == ([] if status == "accepted" else [status]), chip
        # every chip opens the preview at its cited chunk
        assert re.search(r'data-preview-url="/chat/preview/\d+/\?chunk=\d+"', chip), chip


def test_the_preview_opens_at_the_cited_chunk(alpha, reader):
    from kb.models import Chunk, Document

    document = Document.objects.get(project__key=HANDBOOK_KEY, slug="rb-redis-failover")
    chunks = list(Chunk.objects.filter(document=document).order_by("chunk_order"))
    cited = chunks[len(chunks) // 2]
    client = _client(alpha, reader)
    url = f"/chat/preview/{document.pk}/"
    html = client.get(f"{url}?chunk={cited.pk}", **_htmx("preview-body")).content.decode()
    section = re.search(r'<section id="cited-chunk".*?</section>', html, re.S).group(0)
    assert f'data-chunk-id="{cited.pk}"' in section
    first_words = " ".join(cited.text[cited.overlap_chars :].split()[:3]).lstrip("# ")
    assert first_words.split()[0] in section
    assert html.count('id="cited-chunk"') == 1
    # the rest of the document is still there, before and after the passage
    assert html.index("Runbook: Redis Cluster failover") < html.index('id="cited-chunk"')
    # a chunk of another document, or garbage, is ignored: no highlight, no error
    other = Chunk.objects.exclude(document=document).first()
    for bad in (str(other.pk), "abc", "-1", "9" * 30):
        response = client.get(f"{url}?chunk={bad}", **_htmx("preview-body"))
        assert response.status_code == 200
        assert "cited-chunk" not in response.content.decode()
