"""Identifiers in retrieval and the evidence gate, on the handbook (hash embedder, real SQL)."""

from __future__ import annotations

import pytest

from chat.services import is_supported
from kb.models import Chunk
from kb.retrieval import search
from kb.retrieval.support import query_support
from tests.chat.conftest import HANDBOOK_KEY
from tests.chat.helpers import hit, make_document
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


INCIDENT_TIMELINE = """# Westcombe booster pump trip - 3 March

## Timeline

- 02:10 - The pager raises PUMP TRIP for Westcombe booster station.
- 02:50 - The standby pump is started by hand.

## Why it happened

1. **No alarm on the standby.** Its start relay had failed a week earlier.
2. **Nobody went out.** The trip looked like a false alarm.
"""

RUNBOOK_OPENING = """# Runbook: booster pump trip

Use this runbook when the pager raises PUMP TRIP for a booster station.
"""

# ...and sections between the opening and the steps: too far for the opening's neighbours
RUNBOOK_BACKGROUND = [
    ("## Owners\n\nThe network engineers own this runbook.\n", 0),
    ("## History\n\nVersion 2 added the fitter's visit.\n", 0),
    ("## Sites\n\nEvery booster station on the north network.\n", 0),
]

RUNBOOK_STEPS = """## In the control room

1. Acknowledge the alarm and note the time.
2. Start the standby pump from the control desk with `pumpctl start standby`.
3. Send a fitter to site within 90 minutes.
"""


def test_a_how_to_reads_the_procedure_found_after_a_report_that_names_the_situation(alpha):
    """The report of the incident is found first; the runbook only by its opening. A how-to
    reads the runbook whole, so its steps can say what to do."""
    from chat.prompt import add_sources
    from chat.services import widened_sources
    from kb.retrieval.types import SearchHit

    reader = make_user(alpha, "howto-reader", projects={"howto": "reader"})
    incident = make_document(
        "howto", "inc-westcombe", [(INCIDENT_TIMELINE, 0)],
        canonical_type="incident", canonical_status="accepted",
    )  # fmt: skip
    runbook = make_document(
        "howto", "rb-pump-trip", [(RUNBOOK_OPENING, 0), *RUNBOOK_BACKGROUND, (RUNBOOK_STEPS, 0)],
        canonical_type="runbook", canonical_status="accepted",
    )  # fmt: skip

    def found(document, order):
        chunk = document.chunks.get(chunk_order=order)
        return hit(
            chunk.pk, chunk.text, document_id=document.pk, slug=document.slug,
            title=document.title, chunk_order=order, project_key="howto",
            canonical_type=document.canonical_type, canonical_status=document.canonical_status,
        )  # fmt: skip

    first: tuple[SearchHit, ...] = (found(incident, 0), found(runbook, 0))
    question = "the pager says PUMP TRIP at Westcombe, what am I supposed to do?"

    def widened(how_to):
        sources = widened_sources(
            user=reader,
            query=question,
            sources=add_sources((), first, block="context"),
            runner_up=(),
            how_to=how_to,
        )
        return [s.hit.text for s in sources]

    assert RUNBOOK_STEPS in widened(how_to=True)
    assert RUNBOOK_STEPS not in widened(how_to=False)  # only a how-to reads it
