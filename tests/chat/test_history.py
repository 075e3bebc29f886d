"""As-of questions: when each record of a supersede chain came into force (what its own text
states), which record was in force on the date a question names, and the answer that says so
citing both records. Without a database."""

from __future__ import annotations

import datetime as dt

from chat.answers.compose import compose
from chat.answers.evidence import build_brief
from chat.answers.history import Dated, asked_date, in_force_on, stated_start
from chat.answers.question import read_question
from chat.prompt import number_sources
from tests.chat.helpers import hit, result, supersede_link


def test_a_record_starts_on_the_date_its_label_states():
    text = "# Queue choice\n\n| | |\n|---|---|\n| Date | 22 January 2025 |\n| Owner | Ops |\n"
    assert stated_start(text).day == dt.date(2025, 1, 22)
    assert stated_start("Decided 2019-02-14 by Nils, written by Nils.").day == dt.date(2019, 2, 14)
    assert stated_start("**Date of decision:** 20 May 2014").day == dt.date(2014, 5, 20)
    assert stated_start("Status: accepted (March 2024).").day == dt.date(2024, 3, 1)


def test_the_date_it_took_effect_beats_the_date_it_was_approved():
    text = "| Approved | Safety Committee, 12 August 2025 |\n| Effective | 1 September 2025 |\n"
    assert stated_start(text).day == dt.date(2025, 9, 1)


def test_a_sentence_telling_of_a_replacement_dates_nothing_of_this_record():
    text = (
        "> **Superseded on 9 March 2023** by the Tracto decision. That decision was itself "
        "replaced in January 2025.\n\n- **Decided:** 14 June 2021\n"
    )
    assert stated_start(text).day == dt.date(2021, 6, 14)
    # "**This revision is deprecated.** It was in force from ...": the sentence after the
    # banner is read on its own
    text = "**This revision is deprecated.** It was in force from 1 March 2022 until 2025."
    assert stated_start(text).day == dt.date(2022, 3, 1)


def test_an_undated_record_or_a_date_far_from_any_label_states_no_start():
    assert stated_start("# Cache\n\nThe cache is Redis.") is None
    assert (
        stated_start("Decided by the architecture board after a long review, on 3 May 2021") is None
    )


def test_the_time_a_question_asks_about():
    assert asked_date("what did we use for the queue in March 2024?").day == dt.date(2024, 3, 15)
    assert asked_date("who proposed it back in 2019").day == dt.date(2019, 7, 1)
    assert asked_date("which engine did we run on 3 May 2023?").day == dt.date(2023, 5, 3)
    assert asked_date("as of Q1 2025, which was it?").day == dt.date(2025, 2, 15)
    assert asked_date("what changed last november?") is None
    assert asked_date("what is ticket GW-2019 about?") is None
    # a date in a question about now is a value, not a time to look back to
    assert read_question("is the retention 2024 compliant?").as_of is None
    assert read_question("what did we use in 2019?").as_of is not None


def test_the_record_in_force_is_the_last_one_started_by_then():
    chain = [
        Dated(document_id=1, since=dt.date(2014, 5, 20)),
        Dated(document_id=2, since=dt.date(2019, 4, 2)),
        Dated(document_id=3, since=None),
    ]
    assert in_force_on(chain, dt.date(2016, 7, 1)).document_id == 1
    assert in_force_on(chain, dt.date(2024, 3, 15)).document_id == 2
    assert in_force_on(chain, dt.date(2010, 1, 1)) is None


OLD = """# Message queue: RabbitMQ

| | |
|---|---|
| Date | 2 April 2019 |

Our message queue is RabbitMQ 3.7, on two nodes, for every background job.
"""
NEW = """# Message queue: move to Kafka

Decided on 14 February 2025.

Our message queue is Kafka, on three brokers, for every background job.
"""


def _start(text: str) -> dt.date:
    stated = stated_start(text)
    assert stated is not None
    return stated.day


def _chain_brief(question: str):
    old = hit(1, OLD, title="Message queue: RabbitMQ", canonical_type="decision",
              canonical_status="superseded", document_id=21)  # fmt: skip
    new = hit(2, NEW, title="Message queue: Kafka", canonical_type="decision",
              canonical_status="accepted", document_id=22)  # fmt: skip
    link = supersede_link(
        (21, "Message queue: RabbitMQ", _start(OLD)), (22, "Message queue: Kafka", _start(NEW))
    )
    sources = number_sources(result([new, old]))
    return build_brief(question=read_question(question), sources=sources, links=[link])


def test_what_did_we_use_then_is_answered_from_the_record_in_force_then_citing_both():
    brief = _chain_brief("what did we use as the message queue in March 2024?")
    assert brief.in_force is not None and brief.in_force.document_id == 21
    text = compose(brief)
    assert text.startswith(
        "In March 2024, Message queue: RabbitMQ was in force (from 2 April 2019); "
        "Message queue: Kafka replaced it on 14 February 2025 [2][1]."
    ), text
    assert "RabbitMQ 3.7" in text and "now superseded" in text  # history, marked as such


def test_a_date_when_the_current_record_held_says_it_still_holds():
    text = compose(_chain_brief("which message queue did we use in 2025?"))
    assert text.startswith(
        "In 2025, Message queue: Kafka was in force (since 14 February 2025) [1]."
    )
    assert "Kafka, on three brokers" in text


def test_when_did_we_move_off_is_the_day_the_successor_replaced_it():
    text = compose(_chain_brief("when did we move off RabbitMQ for the message queue?"))
    assert text.startswith(
        "Message queue: Kafka replaced Message queue: RabbitMQ on 14 February 2025 [1][2]."
    ), text


def test_a_question_about_now_is_not_an_as_of_question():
    brief = _chain_brief("which message queue do we use for background jobs?")
    assert brief.in_force is None and brief.moved_off is None
    assert compose(brief).startswith("Our message queue is Kafka")


def test_where_something_was_at_a_past_date_is_answered_by_the_record_in_force_then():
    older = (
        "# Historian: on site\n\n| | |\n|---|---|\n| Date | 3 March 2018 |\n\n"
        "The turbine historian runs on a server at Brekken Ridge, next to the turbines.\n"
    )
    newer = (
        "# Historian: central\n\nDecided on 18 May 2022.\n\n"
        "The turbine historian moves to the Trondheim data centre.\n"
    )
    old = hit(1, older, title="Historian: on site", canonical_type="decision",
              canonical_status="superseded", document_id=31)  # fmt: skip
    new = hit(2, newer, title="Historian: central", canonical_type="decision",
              canonical_status="accepted", document_id=32)  # fmt: skip
    link = supersede_link(
        (31, "Historian: on site", _start(older)), (32, "Historian: central", _start(newer))
    )
    # a place asked for: the record in force then answers, as it does "what did we use"
    brief = build_brief(
        question=read_question("where was our turbine data historian in 2019?"),
        sources=number_sources(result([new, old])),
        links=[link],
    )
    assert brief.answerable and brief.in_force is not None
    assert brief.in_force.document_id == 31
    assert compose(brief).startswith("In 2019, Historian: on site was in force")
