"""Identifiers in retrieval and the evidence gate, on the handbook (hash embedder, real SQL)."""

from __future__ import annotations

import pytest

from chat.services import is_supported
from kb.models import Chunk
from kb.retrieval import search
from kb.retrieval.support import query_support
from tests.chat.conftest import HANDBOOK_KEY
from tests.conftest import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def reader(alpha, handbook):
    return make_user(alpha, "evidence-reader", projects={HANDBOOK_KEY: "reader"})


@pytest.mark.parametrize(
    ("question", "slug"),
    [
        ("What did ADR-0005 decide?", "dec-message-queue"),
        ("What did ADR-0011 decide?", "dec-cache-v2"),
        ("What is GW-5031?", "mod-session-store"),
        ("What does ERR-NTF-6002 mean?", "mod-notifications"),
    ],
)
def test_an_identifier_in_the_question_brings_its_document_first(reader, question, slug):
    result = search(user=reader, query=question, limit=12)
    assert result.primary, question
    assert result.primary[0].slug == slug, [h.slug for h in result.primary]


def test_identifier_documents_never_widen_visibility(alpha, handbook):
    outsider = make_user(alpha, "evidence-outsider", projects={"evidence-elsewhere": "reader"})
    result = search(user=outsider, query="What did ADR-0005 decide?", limit=12)
    assert result.primary == () and result.runner_up == ()


def test_support_is_the_share_of_the_questions_specific_words_a_chunk_holds(reader):
    failover = list(
        Chunk.objects.filter(
            document__project__key=HANDBOOK_KEY, document__slug="rb-redis-failover"
        ).values_list("pk", flat=True)
    )
    on_topic = query_support(
        query="How do I fail over the Redis cluster?", chunk_ids=failover, language="english"
    )
    off_topic = query_support(
        query="Which sourdough starter does the office kitchen keep?",
        chunk_ids=failover,
        language="english",
    )
    assert on_topic >= 0.6
    assert off_topic < 0.1
    assert query_support(query="anything", chunk_ids=[], language="english") == 0.0


def test_the_evidence_gate_needs_a_close_match_or_the_specific_words(reader, settings):
    settings.KB = {**settings.KB, "MIN_SIMILARITY": 0.0}  # let weak hash-embedder hits through
    settings.CHAT = {**settings.CHAT, "GROUNDING_MIN_COSINE": 0.99}  # words must carry it
    on_topic = "How do I fail over the Redis cluster when a primary is down?"
    assert is_supported(on_topic, search(user=reader, query=on_topic, limit=12))
    off_topic = "Which sourdough starter does the office kitchen keep?"
    assert not is_supported(off_topic, search(user=reader, query=off_topic, limit=12))


def test_the_words_of_the_question_form_weigh_nothing_in_the_support(reader):
    # "how many" / "how much" ask for a number; the document never says "many"
    failover = list(
        Chunk.objects.filter(
            document__project__key=HANDBOOK_KEY, document__slug="rb-redis-failover"
        ).values_list("pk", flat=True)
    )
    plain = query_support(query="Redis cluster failover", chunk_ids=failover, language="english")
    asked = query_support(
        query="How many Redis cluster failovers?", chunk_ids=failover, language="english"
    )
    assert plain > 0.5
    assert asked == plain
