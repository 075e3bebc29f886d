"""As-of questions end to end (issue 28 part 4): records ingested through the real write path,
linked by a supersede edge, asked about a past date through the chat turn with the offline
answer engine; and a record whose text states no date, dated by its status history."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from canonical import services as curation
from chat.services import message_send, record_starts
from kb.curation import AuditContext, ChangeSource
from kb.filters import SearchFilters
from kb.services import document_ingest
from portal.access.services import project_ensure
from tests.conftest import make_user

KEY = "asof"
OLDEST = """---
type: decision
status: superseded
slug: jobs-beanstalk
superseded_by: [jobs-rabbitmq]
---

# Background jobs on Beanstalkd

- **Decided:** 20 May 2014

Our message queue for background jobs is Beanstalkd, on one server.
"""
OLD = """---
type: decision
status: superseded
slug: jobs-rabbitmq
supersedes: [jobs-beanstalk]
superseded_by: [jobs-kafka]
---

# Background jobs on RabbitMQ

| | |
|---|---|
| Date | 2 April 2019 |

Our message queue for background jobs is RabbitMQ 3.7, on two nodes.
"""
NEW = """---
type: decision
status: accepted
slug: jobs-kafka
supersedes: [jobs-rabbitmq]
---

# Background jobs on Kafka

Decided on 14 February 2025 by the architecture board.

Our message queue for background jobs is Kafka, on three brokers.
"""


@pytest.fixture
def world(alpha, settings):
    # the test embedder hashes words: the grounding gate is not what is tested here
    settings.CHAT = {**settings.CHAT, "PROVIDER": "extractive", "GROUNDING_MIN_COSINE": 0.0}
    settings.KB = {**settings.KB, "MIN_SIMILARITY": 0.0}
    project = project_ensure(key=KEY)
    oldest = document_ingest(project=project, source_path="oldest.md", content=OLDEST).document
    assert oldest is not None
    old = document_ingest(project=project, source_path="old.md", content=OLD).document
    new = document_ingest(project=project, source_path="new.md", content=NEW).document
    assert old is not None and new is not None
    reader = make_user(alpha, "asof-reader", projects={KEY: "reader"})
    editor = make_user(alpha, "asof-editor", projects={KEY: "editor"})
    return {"project": project, "old": old, "new": new, "reader": reader, "editor": editor}


def ask(world, question: str) -> str:
    turn = message_send(
        user=world["reader"], question=question, filters=SearchFilters(project_keys=(KEY,))
    )
    assert turn.refusal_reason is None, (turn.answer, turn.meta.get("refusal_detail"))
    return turn.answer


def test_what_we_used_in_a_past_month_names_the_record_in_force_then_and_cites_both(world):
    answer = ask(world, "What did we use as the message queue for background jobs in March 2024?")
    assert answer.startswith(
        "In March 2024, Background jobs on RabbitMQ was in force (from 2 April 2019); "
        "Background jobs on Kafka replaced it on 14 February 2025"
    ), answer
    assert "RabbitMQ 3.7" in answer and "now superseded" in answer


def test_when_we_moved_off_is_the_day_the_successor_was_decided(world):
    answer = ask(world, "When did we move off RabbitMQ for background jobs?")
    assert answer.startswith(
        "Background jobs on Kafka replaced Background jobs on RabbitMQ on 14 February 2025"
    ), answer


def test_a_record_without_a_stated_date_starts_when_its_history_says_it_was_accepted(world):
    undated = document_ingest(
        project=world["project"],
        source_path="undated.md",
        content="---\ntype: decision\nstatus: draft\nslug: undated\n---\n\n# Undated\n\nWe use X.\n",
    ).document
    assert undated is not None
    by = AuditContext(actor=world["editor"], source=ChangeSource.ADMIN, reason="agreed")
    curation.record_accept(document=undated, by=by)
    starts = record_starts({undated.pk, world["old"].pk, world["new"].pk})
    assert starts[world["old"].pk] == dt.date(2019, 4, 2)
    assert starts[world["new"].pk] == dt.date(2025, 2, 14)
    assert starts[undated.pk] == timezone.localdate()


def test_each_date_of_a_chain_of_three_records_finds_the_record_of_its_time(world):
    first = ask(world, "Which message queue did we use for background jobs in 2016?")
    assert first.startswith(
        "In 2016, Background jobs on Beanstalkd was in force (from 20 May 2014); "
        "Background jobs on RabbitMQ replaced it on 2 April 2019"
    ), first
    assert "Beanstalkd, on one server" in first
    middle = ask(world, "Which message queue did we use for background jobs in March 2024?")
    assert middle.startswith("In March 2024, Background jobs on RabbitMQ was in force"), middle
    latest = ask(world, "Which message queue did we use for background jobs in 2025?")
    assert latest.startswith(
        "In 2025, Background jobs on Kafka was in force (since 14 February 2025)"
    ), latest
    assert "Kafka, on three brokers" in latest
