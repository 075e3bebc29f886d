"""Citations pinned to the version read (issue 28 part 2): an answer records the version and
chunk each citation read; its chip opens that passage as it was, with a banner once the
document has changed or been superseded."""

from __future__ import annotations

import re

import pytest

from canonical import services
from chat.models import Message
from chat.selectors import LOST_ACCESS_NOTE
from chat.services import message_send
from integrations.tools import ToolFailure, get_document_tool
from kb.curation import AuditContext, ChangeSource
from kb.filters import SearchFilters
from kb.models import Chunk, DocumentVersion
from kb.services import document_ingest, document_soft_delete
from portal.access.services import project_ensure
from tests.conftest import make_user, token_for

KEY = "pinned"
HTMX = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "preview-body"}
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
DOC_V2 = DOC.replace(
    "Billing events go through RabbitMQ quorum queues with three nodes.",
    "Billing events go through Kafka topics with six partitions.",
)
QUESTION = "Which queue do billing events go through?"


@pytest.fixture
def world(alpha, recording_provider, settings):
    settings.KB = {**settings.KB, "MIN_SIMILARITY": 0.0}
    recording_provider.reply = "Billing events go through RabbitMQ quorum queues [1]."
    project = project_ensure(key=KEY)
    document = document_ingest(project=project, source_path="billing.md", content=DOC).document
    assert document is not None
    return {
        "project": project,
        "document": document,
        "reader": make_user(alpha, "pin-reader", projects={KEY: "reader"}),
        "other": make_user(alpha, "pin-other", projects={KEY: "reader"}),
        "editor": make_user(alpha, "pin-editor", projects={KEY: "editor"}),
    }


def ask(user) -> Message:
    turn = message_send(user=user, question=QUESTION, filters=SearchFilters(project_keys=(KEY,)))
    assert turn.refusal_reason is None, turn
    return Message.objects.filter(conversation=turn.conversation, role="assistant").latest("id")


def client_of(info, user):
    client = info.client()
    client.force_login(user)
    return client


def reingest(world, content=DOC_V2) -> None:
    outcome = document_ingest(
        project=world["project"],
        source_path="billing.md",
        content=content,
        origin=AuditContext(actor=world["editor"], source=ChangeSource.API),
    )
    assert outcome.status == "updated"


def test_a_citation_records_the_version_and_chunk_it_read(world):
    answer = ask(world["reader"])
    [citation] = answer.citations
    document = world["document"]
    assert citation["document_id"] == document.pk and citation["version"] == 1
    chunk = Chunk.objects.get(pk=citation["chunk_id"])
    assert chunk.document_id == document.pk
    assert (
        citation["chunk_id"] in DocumentVersion.objects.get(document=document, number=1).chunk_ids
    )
    # a curated change keeps the chunks: the next answer reads the same passage in version 2
    services.record_set_priority(
        document=document,
        priority=80,
        by=AuditContext(actor=world["editor"], source=ChangeSource.API, reason="weight"),
    )
    assert ask(world["reader"]).citations[0]["version"] == 2


def test_an_old_answer_opens_the_passage_as_it_was_with_a_banner(alpha, world):
    answer = ask(world["reader"])
    [citation] = answer.citations
    reingest(world)
    client = client_of(alpha, world["reader"])
    page = client.get(f"/chat/c/{answer.conversation_id}/").content.decode()
    chip = re.search(r'<a class="chip[^"]*" href="([^"]+)"', page)
    assert chip is not None
    href = chip.group(1).replace("&amp;", "&")
    document = world["document"]
    assert href == f"/chat/preview/{document.pk}/?chunk={citation['chunk_id']}&version=1"

    old = client.get(href, **HTMX).content.decode()
    cited = re.search(r'<section id="cited-chunk".*?</section>', old, re.S)
    assert cited is not None and "RabbitMQ quorum queues" in cited.group(0)
    assert "Kafka" not in old
    assert "You are reading version 1 of 2, as cited." in old
    assert f'data-preview-url="/chat/preview/{document.pk}/"' in old  # the current version
    assert f"/chat/documents/{document.pk}/?chunk={citation['chunk_id']}&amp;version=1" in old

    current = client.get(f"/chat/preview/{document.pk}/", **HTMX).content.decode()
    assert "Kafka topics" in current and "RabbitMQ" not in current
    assert "as cited" not in current
    # the whole-document page opens the cited version too
    whole = client.get(f"/chat/documents/{document.pk}/?chunk={citation['chunk_id']}&version=1")
    assert "RabbitMQ quorum queues" in whole.content.decode()


def test_a_superseded_source_shows_its_successor_with_the_old_passage(alpha, world):
    answer = ask(world["reader"])
    [citation] = answer.citations
    reingest(world)
    successor = document_ingest(
        project=world["project"],
        source_path="streams.md",
        content=DOC_V2.replace("billing-queue", "billing-streams").replace(
            "# Billing queue", "# Billing streams"
        ),
    ).document
    assert successor is not None
    services.record_supersede(
        old=world["document"],
        new=successor,
        by=AuditContext(actor=world["editor"], source=ChangeSource.ADMIN, reason="streams"),
    )
    url = f"/chat/preview/{citation['document_id']}/?chunk={citation['chunk_id']}&version=1"
    html = client_of(alpha, world["reader"]).get(url, **HTMX).content.decode()
    assert "You are reading version 1 of 3, as cited." in html
    assert "This record is superseded." in html and "Billing streams" in html
    assert "RabbitMQ quorum queues" in html


def test_an_unchanged_source_opens_without_a_banner(alpha, world):
    [citation] = ask(world["reader"]).citations
    url = f"/chat/preview/{citation['document_id']}/?chunk={citation['chunk_id']}&version=1"
    html = client_of(alpha, world["reader"]).get(url, **HTMX).content.decode()
    assert "as cited" not in html and 'id="cited-chunk"' in html


def test_only_editors_and_the_askers_open_old_versions(alpha, world):
    [citation] = ask(world["reader"]).citations
    reingest(world)
    document = world["document"]
    url = f"/chat/preview/{document.pk}/?chunk={citation['chunk_id']}&version=1"
    # another reader of the project: their answers cite no version 1, so today's text
    other = client_of(alpha, world["other"]).get(url, **HTMX).content.decode()
    assert "Kafka topics" in other and "RabbitMQ" not in other and "as cited" not in other
    editor = client_of(alpha, world["editor"]).get(url, **HTMX).content.decode()
    assert "RabbitMQ quorum queues" in editor and "version 1 of 2" in editor
    # garbage or an unknown version is ignored, like an unknown chunk
    for bad in ("abc", "-1", "0", "99", "9" * 30):
        response = client_of(alpha, world["reader"]).get(
            f"/chat/preview/{document.pk}/?version={bad}", **HTMX
        )
        assert response.status_code == 200 and "Kafka topics" in response.content.decode()


def test_a_purged_version_opens_the_current_text_and_says_so(alpha, world):
    [citation] = ask(world["reader"]).citations
    reingest(world)
    document = world["document"]
    DocumentVersion.objects.filter(document=document, number=1).delete()
    url = f"/chat/preview/{document.pk}/?chunk={citation['chunk_id']}&version=1"
    html = client_of(alpha, world["reader"]).get(url, **HTMX).content.decode()
    assert "Version 1, which this answer cited, is no longer kept." in html
    assert "Kafka topics" in html


def test_a_deleted_source_keeps_hiding_the_answer(alpha, world):
    answer = ask(world["reader"])
    document = world["document"]
    document_soft_delete(
        document=document, origin=AuditContext(actor=world["editor"], source=ChangeSource.API)
    )
    client = client_of(alpha, world["reader"])
    page = client.get(f"/chat/c/{answer.conversation_id}/").content.decode()
    assert LOST_ACCESS_NOTE in page and "RabbitMQ" not in page
    url = f"/chat/preview/{document.pk}/?version=1"
    assert client.get(url, **HTMX).status_code == 404


def test_the_chat_api_returns_the_version_of_each_citation(alpha, world):
    client = alpha.client(HTTP_AUTHORIZATION=f"Token {token_for(alpha, world['reader'])}")
    response = client.post(
        "/api/kb/chat",
        {"question": QUESTION, "project_key": KEY},
        content_type="application/json",
    )
    assert response.status_code == 200, response.content
    [citation] = response.json()["citations"]
    assert (citation["document_id"], citation["version"]) == (world["document"].pk, 1)


def test_mcp_get_document_reads_the_cited_version(world):
    [citation] = ask(world["reader"]).citations
    reingest(world)
    document = world["document"]
    old = get_document_tool(world["reader"], document_id=document.pk, version=1)
    assert (old["version"], old["current_version"], old["pinned"]) == (1, 2, True)
    assert "RabbitMQ quorum queues" in old["content"]
    current = get_document_tool(world["reader"], document_id=document.pk)
    assert current["version"] == 2 and "Kafka topics" in current["content"]
    for user, version in ((world["other"], 1), (world["reader"], 7)):
        with pytest.raises(ToolFailure, match="^Not found.$"):
            get_document_tool(user, document_id=document.pk, version=version)
    with pytest.raises(ToolFailure, match="version"):
        get_document_tool(world["reader"], document_id=document.pk, version=0)
    assert citation["version"] == 1


def test_the_preview_api_reads_the_cited_version(alpha, world):
    [citation] = ask(world["reader"]).citations
    reingest(world)
    document = world["document"]
    api = alpha.client(HTTP_AUTHORIZATION=f"Token {token_for(alpha, world['reader'])}")
    url = f"/api/kb/documents/{document.pk}/preview"
    old = api.get(f"{url}?version={citation['version']}").json()
    assert (old["version"], old["current_version"]) == (1, 2)
    assert "RabbitMQ quorum queues" in old["content"]
    assert api.get(url).json()["version"] == 2
    assert api.get(f"{url}?version=2").status_code == 200  # the current one, named
    assert api.get(f"{url}?version=0").status_code == 400
    other = alpha.client(HTTP_AUTHORIZATION=f"Token {token_for(alpha, world['other'])}")
    missing = other.get(f"{url}?version=1")
    assert (missing.status_code, missing.json()) == (404, {"detail": "Not found."})
