"""The evidence brief and its trust rules, without a database: which source leads, what is
named as a disagreement, how a supersede chain is told, when a near-miss is refused."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

from chat.answers import values
from chat.answers.compose import compose
from chat.answers.evidence import DocumentRef, SupersedeLink, build_brief, trust
from chat.answers.question import DURATION, NUMBER, YESNO, read_question
from chat.answers.scoring import names_in, names_present
from chat.answers.units import split_units
from chat.answers.values import is_person_like, values_in
from chat.prompt import number_sources
from kb import words
from tests.chat.helpers import hit, result, supersede_link

RUNBOOK = """# Portal database recovery

## Backups

- PITR window: 35 days of WAL on the backup bucket.
- Restores are tested every quarter by the platform team.
"""
NOTES = """# Ops sync 11 June

Someone asked about the portal database. The PITR window for the portal db is 14 days, said
Tom, and nobody objected.
"""
BLOG = "# Raw data plans\n\nWe plan to keep raw messages for 180 days once the new store ships.\n"
DECISION = """# Raw message retention

Raw messages are kept for 90 days; older raw messages are deleted every night.
"""


def _brief(question, *hits, links=(), refuse=True, weights=None, meaning=None, **given):
    sources = number_sources(result(list(hits)))
    return build_brief(
        question=read_question(question),
        sources=sources,
        links=links,
        refuse_near_misses=refuse,
        corpus_weights=weights,
        meaning=meaning,
        **given,
    )


def _runbook(n=1):
    return hit(n, RUNBOOK, title="Portal database recovery", canonical_type="runbook",
               canonical_status="accepted", slug="rb-portal-db")  # fmt: skip


def _notes(n=2):
    return hit(n, NOTES, title="Ops sync 11 June", slug="ops-sync-11-june")


def test_trust_tiers_follow_the_curation():
    assert trust(number_sources(result([_runbook()]))[0]) == 3
    assert trust(number_sources(result([_notes()]))[0]) == 1
    draft = hit(3, "x", canonical_type="decision", canonical_status="draft")
    old = hit(4, "x", canonical_type="decision", canonical_status="superseded")
    review = hit(5, "x", canonical_type="decision", canonical_status="review")
    assert [trust(s) for s in number_sources(result([draft, old, review]))] == [1, 0, 2]


def test_the_accepted_record_states_the_value_and_the_note_is_named_as_disagreeing():
    # the notes match the question's words better, and are retrieved first
    brief = _brief("what's the PITR window on the portal db?", _notes(1), _runbook(2))
    assert brief.answerable
    assert brief.lead is not None and brief.lead.source.hit.slug == "rb-portal-db"
    assert [d.other.source.hit.slug for d in brief.disagreements] == ["ops-sync-11-june"]
    text = compose(brief)
    assert text.index("35 days") < text.index("14 days")  # the record's value first
    assert re.search(r"14 days \[1\], but .*35 days \[2\]", text), text


def test_a_blog_post_stating_another_value_is_reconciled_with_the_decision():
    decision = hit(1, DECISION, title="Raw message retention", canonical_type="decision",
                   canonical_status="accepted")  # fmt: skip
    blog = hit(2, BLOG, title="Raw data plans (blog)")
    brief = _brief("are raw messages now kept for half a year?", blog, decision)
    text = compose(brief)
    # half a year is not what the record says: no, and what it says
    assert text.startswith("No: Raw messages are kept for 90 days"), text
    assert "180 days [1]" in text and "90 days [2]" in text


def test_a_value_someone_claimed_is_checked_against_the_record_with_a_yes_or_no():
    standard = hit(1, "# Logging standard\n\n## Volume and retention\n\n- Hot (OpenSearch): "
                   "30 days.\n- Cold (S3): 13 months, then deleted.\n",
                   title="Logging standard", canonical_type="standard",
                   canonical_status="accepted")  # fmt: skip
    said = "my colleague said in standup that we keep logs for 7 days. is that right?"
    text = compose(_brief(said, standard))
    assert text.startswith("No: Volume and retention") and "30 days" in text, text
    said = "tom mentioned we keep logs for 30 days in opensearch. is that true?"
    text = compose(_brief(said, standard))
    assert text.startswith("Yes: Volume and retention: Hot (OpenSearch): 30 days"), text
    # the value checked is the one its label names: the resolution target, not the response
    sla = hit(2, "# Support targets\n\n- P1: Response target: 15 minutes; Resolution target: "
                 "4 hours.\n", title="Support targets", canonical_type="standard",
              canonical_status="accepted")  # fmt: skip
    text = compose(_brief("is the P1 resolution target 15 minutes?", sla))
    assert text.startswith("No: "), text
    text = compose(_brief("is the P1 response target 15 minutes?", sla))
    assert text.startswith("Yes: "), text
    # a yes/no question checking a value no answer states gets no yes or no
    text = compose(_brief("are the cold logs encrypted with a 256 bit key?", standard))
    assert not text.startswith(("Yes", "No")), text


def test_a_superseded_record_is_never_stated_as_current():
    old = hit(1, "# Cache\n\nThe cache is Memcached on cache-01, 4 GB.\n", title="Cache v1",
              canonical_type="decision", canonical_status="superseded", document_id=11)  # fmt: skip
    new = hit(2, "# Cache\n\nThe cache is a Redis Cluster of 6 nodes.\n", title="Cache v2",
              canonical_type="decision", canonical_status="accepted", document_id=12)  # fmt: skip
    link = SupersedeLink(
        older=DocumentRef(document_id=11, title="Cache v1", slug="c1", status="superseded"),
        newer=DocumentRef(document_id=12, title="Cache v2", slug="c2", status="accepted"),
    )
    now = compose(_brief("are we still on Memcached for the cache?", old, new, links=[link]))
    assert "superseded" in now and "Cache v2" in now
    for sentence in re.split(r"(?<=[.!?])\s+", now):
        if "Memcached" in sentence and "[1]" in sentence:
            assert re.search(r"superseded|history|Before", sentence), now
    before = compose(_brief("what did we use for the cache before Cache v2?", old, new,
                            links=[link]))  # fmt: skip
    assert "Memcached" in before and "now superseded" in before


def test_asked_whether_something_replaced_is_still_used_the_answer_says_when_it_goes():
    # the record that replaced it says when the old system is switched off: the answer says
    # so, not only the successor's sentence that shares most words with the question
    old = hit(1, "# Caching on Memcached\n\nThe cache is Memcached on cache-01, 4 GB.\n",
              title="Caching on Memcached", canonical_type="decision",
              canonical_status="superseded", document_id=11)  # fmt: skip
    new = hit(2, "# Caching on Redis\n\nThe cache is a Redis Cluster of 6 nodes.\n\n"
                 "## Lessons\n\n- Lessons from caching on Memcached: never run the whole "
                 "cache on one node.\n- Lessons from caching on Memcached: always set a TTL.\n"
                 "- Lessons from caching on Memcached: watch the eviction rate.\n\n"
                 "## Plan\n\nThe last Memcached node will be switched off on "
                 "30 June 2026, after a month of parallel running.\n",
              title="Caching on Redis", canonical_type="decision",
              canonical_status="accepted", document_id=12)  # fmt: skip
    link = SupersedeLink(
        older=DocumentRef(document_id=11, title="Caching on Memcached", slug="c1",
                          status="superseded"),
        newer=DocumentRef(document_id=12, title="Caching on Redis", slug="c2", status="accepted"),
    )  # fmt: skip
    brief = _brief("are we still on Memcached for caching?", old, new, links=[link])
    text = compose(brief)
    assert text.startswith("No: Caching on Memcached is superseded; Caching on Redis"), text
    assert "switched off on 30 June 2026" in text, text
    # the brief chose that sentence, so a language model's prompt is told of it too
    assert brief.successor is not None and brief.successor.document_id == 12
    assert brief.when_it_goes is not None
    assert "switched off on 30 June 2026" in brief.when_it_goes.unit.text
    assert "- [2] says when the replaced one goes" in brief.as_text(), brief.as_text()
    # ...and a successor that says no date for it is quoted as before
    plain = hit(2, "# Caching on Redis\n\nThe cache is a Redis Cluster of 6 nodes.\n",
                title="Caching on Redis", canonical_type="decision",
                canonical_status="accepted", document_id=12)  # fmt: skip
    text = compose(_brief("are we still on Memcached for caching?", old, plain, links=[link]))
    assert "The cache is a Redis Cluster of 6 nodes [2]." in text, text


def test_a_list_question_gets_the_whole_list():
    steps = """## Required before every climb

1. Valid safety training.
2. Full-body harness inspected within 6 months.
3. Helmet with chin strap.
4. Two people at the turbine.
"""
    brief = _brief(
        "what do i need before i climb?",
        hit(1, steps, heading_path="Climbing > Required before every climb"),
    )
    text = compose(brief)
    for item in ("safety training", "harness", "chin strap", "Two people"):
        assert item in text, text


def test_a_near_miss_asking_for_a_value_nobody_states_is_refused():
    hub = hit(1, "# Integration Hub\n\nThe Integration Hub moves HL7 messages between wards.\n",
              title="Integration Hub")  # fmt: skip
    portal = hit(2, "# Portal recovery\n\nThe portal's RTO is 4 hours.\n", title="Portal recovery")
    brief = _brief("what's the RTO for the Integration Hub?", hub, portal)
    assert not brief.answerable
    answered = _brief("what's the RTO for the portal?", hub, portal)
    assert answered.answerable and "4 hours" in compose(answered)


def test_a_who_question_is_not_answered_by_a_place():
    text = "# Forth Bridge\n\nIt held the record until the Quebec Bridge in Canada was completed.\n"
    brief = _brief("Who designed the Quebec Bridge?", hit(1, text, title="Forth Bridge"))
    assert not brief.answerable


def test_a_who_question_is_not_answered_by_a_name_it_asks_about():
    # "Cherry Bakewell muffins" says the question's "bakewell muffins": the name is part of
    # what is asked about, no person; a supplier named "Kavala Seeds" still answers who sells
    # the seeds, and "Emperor Frederick" which emperor
    text = (
        "# Line trials\n\nThe bakery team proposed in May 2024 to make Cherry Bakewell "
        "muffins on line 1 every Friday. The proposal was turned down on 4 June 2024 by Ruth "
        "Kellerman.\n"
    )
    brief = _brief("who turned down making bakewell muffins on line 1?", hit(1, text,
                   title="Line trials"))  # fmt: skip
    assert compose(brief).startswith("The proposal was turned down on 4 June 2024 by Ruth")
    seeds = "# Suppliers\n\nWe buy our sesame seeds from Kavala Seeds, a grower in Greece.\n"
    brief = _brief("who do we buy sesame seeds from?", hit(1, seeds, title="Suppliers"))
    assert "Kavala Seeds" in compose(brief)


def test_a_where_question_is_answered_by_a_place_said_in_words():
    text = (
        "# Pallet labels\n\nEvery pallet gets a yellow label before it leaves the dock.\n"
        "The label printer sits next to dock door 7 and is refilled every Tuesday.\n"
    )
    brief = _brief("Where is the label printer for pallets?", hit(1, text, title="Pallet labels"))
    assert brief.answerable
    assert compose(brief).startswith("The label printer sits next to dock door 7")
    # "above" before a number is a threshold, not a place
    assert [v.kind for v in values_in("Readings above 8 °C raise an alarm.")] == ["quantity"]
    alarm = hit(1, "# Fridges\n\nReadings above 8 °C raise an alarm.\n", title="Fridges")
    assert not _brief("Where is the fridge alarm?", alarm).answerable


def test_where_something_is_kept_is_a_place_not_the_name_of_its_owner():
    # "are in the safe", "stored in the cabinet": a place said with "in" after a verb of
    # being or keeping; "in 2019" or "in the event of" are not places
    kinds = [(v.kind, v.text) for v in values_in(
        "Their passwords are in sealed envelopes in the safe in DC1.")]  # fmt: skip
    assert ("location", "in sealed envelopes in the safe in DC1") in kinds, kinds
    assert "location" not in {v.kind for v in values_in("The policy was agreed in 2019.")}
    assert "location" not in {
        v.kind for v in values_in("It is in the event of a fire that the alarm sounds.")
    }
    # "their passwords": the sentence before says whose (the break-glass accounts')
    record = hit(1, """# Privileged access: admin accounts, the PAM jump host and break-glass

Standard SEC-STD-03, revision 2. Owner: Marcus Lee, Information Security Manager. Approved by Sarah Whitfield, CIO.

## The rules

**6. Password vault.** Service account passwords are stored in the PAM vault and rotated every 90 days.

**7. Break-glass accounts.** If the PAM jump host is unavailable, two break-glass accounts can be used. Their passwords are in sealed envelopes in the safe in DC1. Opening an envelope needs two people.
""", title="Privileged access: admin accounts, the PAM jump host and break-glass",
        canonical_type="standard", canonical_status="accepted")  # fmt: skip
    text = compose(_brief("where are the break-glass passwords kept?", record))
    assert text.startswith("Their passwords are in sealed envelopes in the safe in DC1"), text


def test_what_do_i_do_is_answered_by_the_numbered_steps():
    assert read_question("the detector on line 1 failed its check, what do i do").kind == "howto"
    procedure = hit(1, """# Detector checks

## If a check fails

1. Stop the line.
2. Put on hold all product packed since the last successful check.
3. The line restarts only after QA signs off.
""", title="Detector checks")  # fmt: skip
    trial = hit(2, """# X-ray trial

- What we found: a loan X-ray unit ran beside the line 1 detector for two weeks and found nothing more.
- Cost: the loan unit was returned.
""", title="X-ray trial")  # fmt: skip
    brief = _brief("the detector on line 1 failed its check, what do i do", trial, procedure)
    text = compose(brief)
    assert "Stop the line" in text and "QA signs off" in text, text


def test_how_do_i_is_answered_by_the_section_that_says_how_to():
    # its bullets are the procedure's steps, ahead of the numbered list of when to do it
    procedure = hit(1, """# Metal detection verification (QP-05, revision 4)

Effective 3 November 2025. We have 8 metal detectors - one on each bakery packing line and two on CH2.

## When to check

1. At the start of production, before the first pack.
2. Every 2 hours during production.
3. After any maintenance, repair or setting change on the detector.

## How to check

- Put the test piece in a pack of the product that is running.
- Pass the pack through the detector three times: at the leading edge, in the middle and at the trailing edge.
- Record the result in the check sheet straight away.
""", title="Metal detection verification (QP-05, revision 4)", canonical_type="procedure",
        canonical_status="accepted")  # fmt: skip
    text = compose(_brief("how do i verify a metal detector?", procedure))
    assert "Put the test piece in a pack" in text.split("[1]")[0], text
    assert "Pass the pack through the detector three times" in text, text


def test_a_draft_asked_whether_it_is_in_force_yet_says_when_its_next_step_is():
    draft = hit(1, """# Blade repair standard

Status: draft v2, 10 January 2026. Written by the blade repair lead. To go to the HSE Manager
for approval in June 2026. Nothing in this draft is in force yet. Until it is approved, blade
repair work is planned case by case by the repair planners, as it is today. The standard covers
every blade repair on our turbines.
""", title="Blade repair standard", canonical_type="standard",
                canonical_status="draft")  # fmt: skip
    plan = hit(2, "# Blade repair standard\n\nTargets: half the time to fix by March 2030.\n",
               title="Blade repair standard", canonical_type="standard", canonical_status="draft",
               document_id=10, chunk_order=1)  # fmt: skip
    brief = _brief("is the blade repair standard in force yet?", draft, plan)
    text = compose(brief)
    assert "approval in June 2026 [1]" in text, text
    assert "March 2030" not in text, text  # a date elsewhere in it is no next step
    # the brief chose it (a language model's prompt is told of it too); asked what the
    # standard covers, not whether it is in force, there is no next step to say
    assert brief.next_step is not None and "June 2026" in brief.next_step.unit.text
    assert "- Not in force yet: [1] says what comes next" in brief.as_text(), brief.as_text()
    assert _brief("what does the blade repair standard cover?", draft, plan).next_step is None
    assert [v.text for v in values_in("for approval in May 2026, or by June")] == [
        "May 2026",  # the month and its year, not "in May" and "2026"
        "by June",
    ]


def test_an_answer_from_a_draft_says_it_is_not_yet_the_rule():
    draft = hit(1, "# Leading-edge repair\n\nRepairs are planned case by case by the planners.\n",
                title="Leading-edge repair standard", canonical_type="standard",
                canonical_status="draft")  # fmt: skip
    text = compose(_brief("is the leading-edge repair standard approved yet?", draft))
    assert text.endswith("Leading-edge repair standard is a draft, not an accepted record [1]."), (
        text
    )
    accepted = hit(1, "# Leading-edge repair\n\nRepairs are planned case by case by the planners.\n",
                   title="Leading-edge repair standard", canonical_type="standard",
                   canonical_status="accepted")  # fmt: skip
    assert "not an accepted record" not in compose(
        _brief("is the leading-edge repair standard approved yet?", accepted)
    )


def test_a_count_written_in_words_answers_how_many():
    counts = [
        v for v in values_in("She won a record nine times; eleven moons") if v.kind == "count"
    ]
    assert [v.key for v in counts] == [(9.0, "times"), (11.0, "moons")]
    text = "# Wimbledon\n\nMartina Navratilova won the ladies' singles a record nine times.\n"
    brief = _brief(
        "How many times did Martina Navratilova win the ladies' singles?",
        hit(1, text, title="Wimbledon"),
    )
    assert brief.answerable and "nine times" in compose(brief)


def test_how_often_is_answered_by_how_often_not_by_how_long():
    text = (
        "# EPR backups\n\nThe last EPR restore test on 14 January took 3 hours 10 minutes.\n\n"
        "Restore tests of the EPR are run every quarter by the infrastructure team.\n"
    )
    brief = _brief(
        "how often do we do a restore test of the epr", hit(1, text, title="EPR backups")
    )
    assert compose(brief).startswith("Restore tests of the EPR are run every quarter")
    assert [v.text for v in values_in("tested twice a year, checked every 2 hours")] == [
        "twice a year",
        "2 hours",
    ]


def test_a_how_to_that_names_a_symptom_is_answered_by_the_steps_after_it():
    runbook = hit(1, """# When a line loses its connection

Symptom: the line terminal shows a red OFFLINE banner for more than 5 minutes.

## Steps

1. Switch the checks to the paper form QF-05P.
2. Restart the gateway with systemctl restart edge.
3. Tell the service desk.
""", title="When a line loses its connection", canonical_type="runbook",
               canonical_status="accepted")  # fmt: skip
    text = compose(_brief("line screen says OFFLINE, what do i do", runbook))
    assert "QF-05P" in text and "systemctl restart edge" in text, text
    assert "OFFLINE banner" in text  # the situation it answers is still named


def test_a_how_to_named_by_an_incident_report_is_answered_by_the_runbook_s_steps():
    """The report names the situation best, but its numbered causes are no steps: the
    runbook's steps say what to do, and the report's line is still quoted."""
    report = hit(1, """# Westcombe booster pump trip - 3 March

## Timeline

- 02:10 - The pager raises PUMP TRIP for Westcombe booster station at night.

## Why it happened

1. **Nobody went out at night.** The trip at Westcombe looked like a false alarm.
""", title="Westcombe booster pump trip", canonical_type="incident",
                 canonical_status="accepted")  # fmt: skip
    runbook = hit(2, """## In the control room

1. Acknowledge the PUMP TRIP alarm and note the time.
2. Start the standby pump from the control desk with pumpctl start standby.
3. Booster stations: a fitter must be on site within 90 minutes of the PUMP TRIP alarm.
""", title="Runbook: booster pump trip", canonical_type="runbook",
                  canonical_status="accepted")  # fmt: skip
    text = compose(
        _brief("the pager says PUMP TRIP at Westcombe booster station, what am I supposed to do?",
               report, runbook)
    )  # fmt: skip
    assert text.startswith(("In the control room", "Acknowledge", "Start", "Booster")), text
    assert "within 90 minutes" in text, text
    assert "false alarm" not in text.split("[", 1)[0], text  # a cause is no step


def test_a_value_asked_of_a_named_incident_is_cited_from_the_incident_s_record():
    """A runbook recalls the incident's value; the question names the incident: its own
    record states it and is cited, even where the runbook's line matches the words better."""
    runbook = hit(1, """## Do not

- Do not trust a last reading. Westcombe lost supply to 2,300 homes because of that.
""", title="Runbook: booster pump trip", canonical_type="runbook",
                  canonical_status="accepted", slug="rb-pump-trip")  # fmt: skip
    report = hit(2, """## At a glance

- Customers affected: about 2,300 homes, without supply from 04:20 to 09:35.
""", title="Westcombe booster station low pressure", canonical_type="incident",
                 canonical_status="accepted", slug="inc-westcombe")  # fmt: skip
    brief = _brief("how many homes lost supply in the Westcombe incident?", runbook, report)
    assert brief.lead is not None and brief.lead.source.hit.slug == "inc-westcombe"
    assert compose(brief).startswith("At a glance: Customers affected: about 2,300 homes"), brief


def test_a_site_named_in_an_incident_s_title_does_not_make_it_the_record_asked_about():
    people = hit(1, """| Site | Site manager |
| --- | --- |
| Westcombe | Nadia Brook |
""", title="Who's who", slug="whos-who")  # fmt: skip
    report = hit(2, """## Review

Reviewed with Nadia Brook on 23 January.
""", title="Westcombe freezer stop", canonical_type="incident",
                 canonical_status="accepted", slug="inc-westcombe")  # fmt: skip
    brief = _brief("who's the site manager at Westcombe?", people, report)
    assert brief.lead is not None and brief.lead.source.hit.slug == "whos-who"


def test_values_are_read_and_compared_as_the_same_thing():
    durations = [
        v for v in values_in("kept 35 days, or 5 weeks; 6 h 10 min") if v.kind == "duration"
    ]
    assert [v.text for v in durations] == ["35 days", "5 weeks", "6 h 10 min"]
    assert durations[0].key == durations[1].key  # 35 days == 5 weeks
    money = values_in("Unit price (EUR): 1,240 and €96,000 per year")
    assert [(v.kind, v.key) for v in money if v.kind == "money"] == [
        ("money", ("eur", 1240.0)),
        ("money", ("eur", 96000.0)),
    ]
    # a name in brackets is no unit when the number says its own: "Hot (OpenSearch): 30 days"
    hot = values_in("Hot (OpenSearch): 30 days. Store (Redis): 2 GB")
    assert [(v.kind, v.text) for v in hot if v.kind != "name"] == [
        ("duration", "30 days"),
        ("quantity", "2 GB"),
    ], hot


def test_reading_questions():
    assert read_question("How long are backups kept?").kind == "duration"
    assert read_question("who leads field ops?").kind == "person"
    assert read_question("which fault codes can never be reset remotely?").wants_list
    assert not read_question("What does GW-4012 mean?").wants_list
    assert read_question("what did we use before Redis?").asks_past
    assert not read_question("steps to lock out a turbine before going into the hub").asks_past
    assert read_question("and at Carn Dubh?").elliptical
    assert not read_question("lead time on a slip ring assembly").elliptical
    # naming a procedure does not make a which-question a how-to
    assert read_question("which revision of the LOTO procedure is current").kind == "which"
    assert read_question("what is the procedure for a failed check?").kind == "howto"
    # what someone does (not only "what do I do") asks how to
    assert read_question("what do wards do when the EPR is down?").kind == "howto"
    assert read_question("what should the line lead do after a glass breakage").kind == "howto"
    # ...and what someone is supposed, expected or has got to do
    assert read_question("the pump tripped at 3am, what am I supposed to do?").kind == "howto"
    assert read_question("what are we expected to do when a lock is abandoned").kind == "howto"
    assert read_question("what have I got to do before climbing").kind == "howto"
    assert read_question("what is the retention period?").kind != "howto"
    # a question typed like a search names what it asks for first
    assert read_question("ups runtime in the data centres?").kind == "duration"
    assert read_question("shelf life of the rye flour").kind == "duration"
    assert read_question("number for the duty manager phone?").kind == "number"
    assert read_question("lead time on a slip ring assembly").kind == "duration"
    # a pronoun stands for something the question does not name
    assert read_question("when did hollin bridge go live on it").refers_back
    assert read_question("what’s their response time?").refers_back
    assert not read_question("which MES are we on now?").refers_back
    # "that" and "this" stand for a thing when nothing follows them in their clause, or when
    # they are asked about ("is that ...")
    assert read_question("how long has the OT person got to get back to me on that").refers_back
    assert read_question("who signed this off?").refers_back
    assert read_question("is that still the rule for contractors").refers_back
    assert not read_question("the system that fell over in the feb outage").refers_back
    assert not read_question("what is the rule that covers contractors?").refers_back
    assert read_question("which vendor scored best?").superlative == "most"
    assert read_question("How much did the mission cost?").value_kinds == {"money"}
    # "the response time", "the lead time" is a span of time; "the start time" is a clock time
    assert read_question("whats the response time on a p1 call").kind == "duration"
    assert read_question("What’s the lead time for a slip ring?").kind == "duration"
    assert read_question("what is the start time of the night shift?").kind != "duration"
    # two questions joined: the first says the kind, the second what else is asked
    two = read_question("lost my card last night, who do i ring and how fast does it get blocked")
    assert two.kind == "person" and "duration" in two.also_kinds, (two.kind, two.also_kinds)
    pay = read_question("how much is the fixed monthly on-call payment the brekken techs get?")
    assert pay.value_kinds == {"money"}, pay.value_kinds
    # asking for the whole list asks for a list, and says nothing of what it is about
    full = "what has to be in place before a medical device can go on the network"
    assert read_question(f"{full}? need the full list").terms == read_question(full).terms
    assert read_question(f"{full}? whole checklist pls").wants_list
    assert read_question(full).asks_requirements  # "what has to be in place": what is needed
    # "what do i need sorted before ...": what is needed
    assert read_question("what do i need sorted before i climb").terms == {"climb"}
    # a slip of typing is read as the word meant
    typo, meant = "when did larkspur actualy go live?", "when did larkspur actually go live?"
    assert read_question(typo).terms == read_question(meant).terms
    # "what kind of downtime" asks for kinds of it, not for a span of time
    kinds = read_question("what kind of downtime doesnt count against us in the availability")
    assert kinds.kind == "what" and not kinds.specific
    assert read_question("which types of retention apply?").kind == "what"


def test_a_list_under_the_name_asked_for_says_the_name():
    decision = """# Larkspur Integration Hub as our interface engine

Digital Design Authority decision DA-2025-02, taken on 14 February 2025.

- Proposed by: Owen Gallagher, Head of Integration
- Approved by: Sarah Whitfield, Chief Information Officer
- Replaces: DA-2019-04, the Tessellate Interface Engine
"""
    record = hit(1, decision, title="Larkspur Integration Hub as our interface engine",
                 canonical_type="decision", canonical_status="accepted")  # fmt: skip
    text = compose(_brief("which interface engine are we on these days?", record))
    assert "Larkspur Integration Hub" in text, text
    assert ".:" not in text, text


def test_a_phone_number_is_its_own_kind_of_value():
    found = values_in(
        "In desk hours call extension 4400. Out of hours call 01632 960450 or +47 73 80 12 34."
    )
    assert [(v.kind, v.text) for v in found if v.kind == "phone"] == [
        ("phone", "extension 4400"),
        ("phone", "01632 960450"),
        ("phone", "+47 73 80 12 34"),
    ]
    assert not [
        v for v in values_in("Unit price (EUR): 2,350; 12 nodes; 2025-04-01") if v.kind == "phone"
    ]
    assert read_question("whats kelvar's support phone number").value_kinds == {"phone"}
    assert read_question("number for the duty manager phone?").value_kinds == {"phone"}


def test_a_phone_number_asked_of_someone_nobody_lists_is_refused():
    desk = hit(1, "# Getting help\n\nOut of desk hours call the OT on-call number, 01632 960450.\n"
               "Only the IT team raises cases with Kelvar Software.\n", title="Getting help")  # fmt: skip
    assert not _brief("whats kelvar's support phone number", desk).answerable
    answered = _brief("what number do I call out of desk hours for OT on-call?", desk)
    assert answered.answerable and "01632 960450" in compose(answered)


def test_a_code_typed_in_lower_case_names_its_subject():
    table = hit(1, "# Changeovers\n\n| Line | Minimum time |\n|---|---|\n| HB2 | 90 minutes |\n"
                "| SF-2 | 120 minutes |\n", title="Changeovers")  # fmt: skip
    assert read_question("minimum allergen changeover time on hb3?").names == ("hb3",)
    assert not _brief("minimum changeover time on hb3?", table).answerable
    assert "90 minutes" in compose(_brief("minimum changeover time on hb2?", table))
    assert "120 minutes" in compose(_brief("minimum changeover time on sf2?", table))


def test_a_temperature_question_asks_for_a_quantity():
    assert read_question("what temp is the hb1 prover run at").specific


def test_how_many_is_not_answered_by_a_count_of_other_things():
    text = ("# Lisbon earthquake\n\nAround 85 percent of the city's houses and buildings were "
            "destroyed, among them the royal library of 70,000 volumes.\n")  # fmt: skip
    assert not _brief("How many houses were destroyed by the Lisbon earthquake?",
                      hit(1, text, title="Lisbon earthquake")).answerable  # fmt: skip
    count = "# Lisbon earthquake\n\nThe shocks destroyed some 12,000 houses in the city.\n"
    answered = _brief("How many houses were destroyed by the Lisbon earthquake?",
                      hit(1, count, title="Lisbon earthquake"))  # fmt: skip
    assert answered.answerable and "12,000 houses" in compose(answered)


def test_which_year_is_not_answered_by_a_decade():
    text = "# Sibelius\n\nHe worked for years on an eighth symphony, but in the 1940s he burned the manuscript.\n"
    question = "In exactly which year did Sibelius burn the manuscript of his eighth symphony?"
    assert not _brief(question, hit(1, text, title="Jean Sibelius")).answerable
    decade = "When did Sibelius burn the manuscript of his eighth symphony?"
    assert "1940s" in compose(_brief(decade, hit(1, text, title="Jean Sibelius")))


def test_the_verb_of_who_and_when_questions_is_the_relation_not_the_subject():
    assert read_question("who leads field ops?").relation == {"lead"}
    assert read_question("who looks after the badge system").relation == {"look"}
    assert read_question("when did the new lockout procedure kick in").relation == {"kick"}
    assert read_question("When did construction of the dam begin?").relation == {"begin"}
    assert read_question("who is the deputy HSE manager").relation == frozenset()
    record = hit(1, "# Lockout/tagout procedure, revision 4\n\nEffective: 1 April 2025.\n",
                 title="Lockout/tagout procedure")  # fmt: skip
    brief = _brief("when did the lockout procedure kick in", record)
    assert brief.answerable and "1 April 2025" in compose(brief)
    assert not _brief("when did the climbing procedure kick in", record).answerable


PROCEDURE = """# Lockout/tagout

## Abandoned lock removal at Brekken Ridge and Sollia Heights

Cutting an abandoned lock must be authorised in writing by both the site manager of that wind
farm and the HSE Manager. Neither can authorise alone.
"""
WHOS_WHO = """# Who's who

- Brekken Ridge: site manager Tor Eriksen.
- Sollia Heights: site manager Kari Haugen.
- HSE Manager: Sindre Bakke, who owns every safety procedure.
"""


def test_a_who_question_answered_by_roles_names_the_people_in_them():
    procedure = hit(1, PROCEDURE, title="Lockout/tagout", canonical_type="procedure",
                    canonical_status="accepted", slug="loto")  # fmt: skip
    question = "who has to sign off cutting an abandoned lock at brekken?"
    alone = _brief(question, procedure)
    assert alone.answerable
    assert "site manager" in alone.unstated and "HSE Manager" in alone.unstated  # asked next
    people = hit(2, WHOS_WHO, title="Who's who", slug="whos-who")
    answer = compose(_brief(question, procedure, people))
    assert "authorised in writing" in answer
    assert "Tor Eriksen" in answer and "Sindre Bakke" in answer
    assert "Kari Haugen" not in answer  # another site's manager


def test_the_heading_an_item_is_labelled_with_is_no_person():
    text = "# Lockout\n\n## Abandoned Lock Removal\n\n- The lock is cut by the site manager.\n- The cut lock is kept with the form.\n"
    brief = _brief("who cuts an abandoned lock?", hit(1, text, title="Lockout"))
    assert all(v.text != "Abandoned Lock Removal" for v in brief.lead.values)


def test_a_whos_who_index_page_answers_who_holds_a_role():
    index = hit(2, WHOS_WHO + "\nSee also [[loto]] and [[climbing]].\n", title="Who's who",
                canonical_type="project-index", canonical_status="accepted", slug="whos-who")  # fmt: skip
    procedure = hit(1, PROCEDURE, title="Lockout/tagout", canonical_type="procedure",
                    canonical_status="accepted", slug="loto")  # fmt: skip
    answer = compose(_brief("who is the site manager at Sollia Heights?", procedure, index))
    assert "Kari Haugen" in answer


INCIDENT = """# Payroll export outage, 3 March

Incident INC-7, priority P3. Written by the payroll team.

## Timeline

- 08:10 The export job fails and the alert fires.
- 08:40 Team convened, 30 minutes after the alert.
- 11:25 Export restored, 3 hours 15 minutes after the alert.

## Lessons

- Add a retry to the export job.
"""
TARGETS = """# Support targets

| Priority | Response target | Restore target |
|---|---|---|
| P2 | 30 minutes | 2 hours |
| P3 | 1 hour | 4 hours |

A P2 not restored within 2 hours is escalated to the head of IT.
"""


def test_reading_a_question_that_compares_with_a_target():
    asked = read_question("was the payroll export outage restored within the restore target?")
    assert asked.kind == "yesno" and asked.compares
    assert asked.against == ("restore", "target")  # what the value is held against
    assert read_question("was it fixed within 4 hours?").against == ()  # a value, not a target
    assert read_question("did we hit the trace target in the march recall?").against == (
        "trace",
        "target",
    )
    # the topic first, then the yes/no question about it
    topic_first = read_question("the payroll outage in march, was it back up inside the target?")
    assert topic_first.kind == "yesno" and topic_first.against == ("target",)


def test_a_measurement_is_held_against_the_target_of_another_document():
    incident = hit(1, INCIDENT, title="Payroll export outage, 3 March", canonical_type="incident",
                   canonical_status="accepted", slug="inc-7")  # fmt: skip
    targets = hit(2, TARGETS, title="Support targets", canonical_type="standard",
                  canonical_status="accepted", slug="std-support")  # fmt: skip
    brief = _brief(
        "was the payroll export outage restored within the restore target?", incident, targets
    )
    # what was measured leads (not the time the team convened, nor a limit), then the target
    # of the incident's priority (P3, not P2), and the two make a yes
    assert "3 hours 15 minutes" in brief.lead.unit.text
    assert brief.support[0].unit.text.startswith("P3")
    assert brief.verdict == "yes"
    answer = compose(brief)
    assert answer.startswith("Yes")
    assert re.search(r"\b3 hours 15 minutes\b", answer) and re.search(r"\b4 hours\b", answer)


def test_a_target_two_labels_name_alike_gives_no_verdict_when_its_scale_does_not_tell():
    # "fixed within the target": the response and the restore target are both targets, and an
    # outage of 2 hours is as far from the 1-hour one as from the 4-hour one
    two_hours = INCIDENT.replace("3 hours 15 minutes", "2 hours")
    incident = hit(1, two_hours, title="Payroll export outage, 3 March", canonical_type="incident",
                   canonical_status="accepted", slug="inc-7")  # fmt: skip
    targets = hit(2, TARGETS, title="Support targets", canonical_type="standard",
                  canonical_status="accepted", slug="std-support")  # fmt: skip
    brief = _brief("was the payroll export outage fixed within the target?", incident, targets)
    assert "2 hours" in brief.lead.unit.text
    assert brief.verdict == ""


def test_the_relation_of_when_and_who_questions_is_read_past_names_and_light_verbs():
    # the verb, not the place it goes to by name; its preposition is part of it
    assert read_question("When did Kestrel 3 fly past Vesta?").relation == {"fly", "past"}
    assert read_question("When did the team move to the United States?").relation == {"move"}
    assert read_question("when did the new procedure kick in").relation == {"kick"}
    # a light verb's noun says what was done; the thing it was done about is the subject
    made = read_question("and who made the final call on going with it?")
    assert made.relation >= {"make", "final", "call"}
    took = read_question("who took the decision to switch to Fabrica?")
    assert took.relation >= {"take", "decision"} and "fabrica" in took.terms
    # ...and deciding, said any of these ways, is what records write as decided or approved
    signed = read_question("who signed that off?")
    for asked in (made, took, signed):
        assert {"decid", "approv"} <= asked.relation and {"decid", "approv"} <= asked.terms
    assert read_question("who leads field ops").relation == {"lead"}
    assert not {"decid", "approv"} & read_question("who calls the on-call engineer").terms


DECISION_RECORD = """# Moving to the cloud MES

| Field | Value |
|---|---|
| Reference | DEC-2025-07 |
| Decided by | Helen Ward, Managing Director |

## Rollout

| Site | Go-live |
|---|---|
| Hollin Bridge | live since 2 February 2026 |
| Tenter Mill | live since 9 March 2026 |
"""


def test_a_follow_up_is_answered_by_what_it_asks_not_by_what_the_turn_before_matched():
    from chat.answers.evidence import earlier_subject

    record = hit(1, DECISION_RECORD, title="Moving to the cloud MES", canonical_type="decision",
                 canonical_status="accepted")  # fmt: skip
    brief = build_brief(
        question=read_question("and who made the final call on going with it?"),
        sources=number_sources(result([record])),
        earlier_terms=earlier_subject("which mes are we on now? when did hollin bridge go live"),
        refuse_near_misses=False,  # which unit leads, whatever the refusal rule says
    )
    assert "Helen Ward" in compose(brief).split(".")[0], compose(brief)


PROBE = """# Kestrel 3

Kestrel 3 is a survey probe launched on 4 March 2029.

## Flybys

Kestrel 3 flew past Mars in May 2031 and Ceres in June 2033. It then reached the belt's
second body, Vesta, which it passed in August 2035, mapping a long chain of craters.
"""


def test_the_lead_names_what_the_question_names():
    brief = _brief("When did Kestrel 3 fly past Vesta?", hit(1, PROBE, title="Kestrel 3"))
    assert brief.answerable
    assert "August 2035" in brief.lead.unit.text  # not the flybys of Mars and Ceres


BINS = """# Sample retention

## Retained samples

Every retained sample box is sealed. Only the lab manager holds the seals. Shift staff must
never open a retained sample box. A technician checks each box once a week.

## Labels

Labels are printed from the batch record.
"""


def test_a_yes_no_rule_is_read_in_its_paragraph():
    standard = hit(1, BINS, title="Sample retention", canonical_type="standard",
                   canonical_status="accepted", slug="std-samples")  # fmt: skip
    answer = compose(_brief("can shift staff open a retained sample box?", standard))
    assert answer.startswith("Shift staff must never open")
    assert "sealed" in answer  # the sentence before it, about the same box
    assert "Labels are printed" not in answer  # another heading


KILN = """# Kiln firing standard

## Changing the firing curve

- Only kiln technicians holding grade 3 and the studio manager may change a firing curve.
- They log the change in the kiln book before the next firing.
- Changes of more than 20 degrees in one step need the studio manager's agreement.
- Grade 2 technicians who see a firing running hot call a grade 3 technician; they do not change the curve themselves.

## Loading

Shelves are loaded from the back.
"""


def test_a_yes_no_rule_in_a_list_is_read_with_the_item_saying_who_may():
    standard = hit(1, KILN, title="Kiln firing standard", canonical_type="standard",
                   canonical_status="accepted", slug="std-kiln")  # fmt: skip
    answer = compose(
        _brief("can a grade 2 on nights change the firing curve if it runs hot?", standard)
    )
    assert answer.startswith("Changing the firing curve: Grade 2 technicians"), answer
    # who may instead, three items up the same list
    assert "studio manager may change a firing curve" in answer, answer
    assert "Shelves" not in answer


DOWNTIME = """# Ledger downtime procedure

## Roles

- Ledger application manager: owns this procedure and reviews every ledger downtime.

## Declaring a downtime

1. Staff who cannot use the ledger phone the service desk on extension 4100.
2. The ledger on-call engineer confirms the fault within 15 minutes.
3. The finance duty manager declares the downtime.
"""
BACKLOG = """# Runbook: posting queue backlog

## Clearing it

1. See which ledger channels are affected with `postctl channel list`.
2. Check the receiving ledger system before touching the queue.
"""


def test_a_trusted_document_about_something_else_does_not_replace_the_procedure_asked_for():
    procedure = hit(1, DOWNTIME, title="Ledger downtime procedure", slug="ledger-downtime")
    runbook = hit(2, BACKLOG, title="Runbook: posting queue backlog", canonical_type="runbook",
                  canonical_status="accepted", slug="rb-posting-backlog")  # fmt: skip
    brief = _brief("steps to declare a ledger downtime", procedure, runbook)
    assert brief.lead.source.hit.slug == "ledger-downtime"
    assert "4100" in compose(brief)


def test_how_many_of_a_unit_is_answered_by_a_quantity_in_that_unit():
    # "how many megawatts": the page writes the symbol, and its other numbers are in metres
    # and turbines
    page = hit(1, "# Our wind farms\n\nThe hub height is 120 m and each farm has 18 turbines. "
               "That makes 54 turbines and 201.6 MW installed in total.\n",
               title="Welcome to Windward")  # fmt: skip
    brief = _brief("how many megawatts do we have in total", page)
    assert brief.answerable
    assert brief.lead is not None and "201.6 MW" in brief.lead.unit.text
    assert [v.text for v in brief.lead.values] == ["201.6 MW"]


def test_one_length_in_a_unit_name_and_in_its_symbol_is_one_value():
    (named,) = values_in("The river is 6,650 kilometres long.")
    (symbol,) = values_in("The river is 6650 km long.")
    assert named.key == symbol.key == (6650.0, "km")


SERVICE_LEVELS = """# IT support: priorities and targets

| Priority | Typical examples | First response | Restore service |
|---|---|---|---|
| P2 High | A line or a freezer stopped | 1 hour | 8 hours |
| P3 Normal | One user affected | 4 hours | 3 business days |
"""
FREEZER_STOP = """# Freezer stop, 14 January

Incident INC-12, priority P2 under the IT SLA.

## At a glance

- Product lost: 400 kg, because it had waited more than 30 minutes before freezing.
- Downtime: 02:14 to 11:52, 9 hours 38 minutes.
"""


def test_making_the_sla_is_a_comparison_but_making_a_product_is_not():
    sla = read_question("did we make the SLA on the february lab outage?")
    assert sla.compares and sla.against == ("sla",)
    assert read_question("did they make the deadline for the audit").against == ("deadline",)
    assert not read_question("did we make the bakewell muffins on tf1?").compares
    # after "the", "met" and "hit" name a thing (the meteorological mast, a hit list)
    assert not read_question("did the turbines stop when lightning took out the met mast").compares
    assert not read_question("is the hit list for the audit final?").compares
    assert read_question("was the target met for the march outage?").compares


def test_a_target_named_by_what_it_is_for_in_a_table_of_targets():
    incident = hit(1, FREEZER_STOP, title="Freezer stop, 14 January", canonical_type="incident",
                   canonical_status="accepted", slug="inc-12")  # fmt: skip
    levels = hit(2, SERVICE_LEVELS, title="IT support: priorities and targets",
                 canonical_type="standard", canonical_status="accepted", slug="std-it")  # fmt: skip
    # the column says "Restore service", the title says targets; "waited more than 30
    # minutes" is a bound, not what was measured
    brief = _brief("freezer stop in january, was it back up inside the restore target?",
                   incident, levels)  # fmt: skip
    assert "9 hours 38 minutes" in brief.lead.unit.text
    assert brief.support[0].unit.text.startswith("P2")
    assert brief.verdict == "no"


def test_a_target_and_what_actually_happened_asked_together_are_answered_together():
    question = ("the SF-2 freezer stop was a P2 - what's the restore target for a P2 and how "
                "long was it actually down?")  # fmt: skip
    read = read_question(question)
    assert read.compares and read.against == ("restore", "target"), read.against
    assert not read_question("how long do we keep backups and where is the copy?").compares
    incident = hit(1, FREEZER_STOP.replace("# Freezer stop", "# SF-2 freezer stop"),
                   title="SF-2 freezer stop, 14 January", canonical_type="incident",
                   canonical_status="accepted", slug="inc-12")  # fmt: skip
    levels = hit(2, SERVICE_LEVELS, title="IT support: priorities and targets",
                 canonical_type="standard", canonical_status="accepted", slug="std-it")  # fmt: skip
    # the freezer's name weighs most (few documents name it), and the target's table does not
    # name it: no one unit states the case and the target, so the measurement and the target
    # it is held against answer it together, without a yes or no nobody asked for
    weights = {"sf-2": 3.0, "freezer": 1.0, "stop": 1.0, "p2": 1.0, "restore": 1.0,
               "target": 1.0}  # fmt: skip
    brief = _brief(question, incident, levels, weights=weights)
    assert brief.answerable, brief.refusal
    answer = compose(brief)
    assert re.search(r"\b9 hours 38 minutes\b", answer) and re.search(r"\b8 hours\b", answer)
    assert brief.verdict == "" and not answer.startswith(("Yes", "No")), answer


def test_a_refused_target_and_actual_question_looks_for_the_target_by_the_incident_s_code():
    from chat.answers.evidence import says_more

    incident = hit(1, "# Portal login outage, November\n\nPostmortem of ticket INC-77, "
                      "priority P2.\n\n## Priority and duration\n\n- Duration: 9 h 35 min from "
                      "ticket to restore.\n", title="Portal login outage, November",
                   canonical_type="incident", canonical_status="accepted")  # fmt: skip
    levels = hit(2, "# Clinical IT support\n\n| Priority | When to use it | Response target "
                    "| Resolution target |\n|---|---|---|---|\n| P1 - Critical | A hospital "
                    "without its record | 10 minutes | 4 hours |\n| P2 - High | One clinic "
                    "affected | 30 minutes | 12 hours |\n", title="Clinical IT support",
                 canonical_type="standard", canonical_status="accepted")  # fmt: skip
    question = (
        "the portal login outage in november - what fix target applied and how long did it take?"
    )
    first = _brief(question, incident)
    # the outage's duration alone does not answer it; its target is asked for by its code
    assert not first.answerable
    assert "target" in first.unstated.split() and "P2" in first.unstated.split(), first.unstated
    second = _brief(question, incident, levels)
    assert says_more(first, second)
    answer = compose(second)
    # the P2 row states nothing of the outage but the code its postmortem gives it
    assert re.search(r"\b9 h 35 min\b", answer) and re.search(r"\b12 hours\b", answer), answer
    assert not re.search(r"\b4 hours\b", answer), answer


def test_the_second_part_of_a_question_is_looked_for_by_what_the_first_answer_named():
    # "which depot flooded in march, and who is its manager?": the flood record names the
    # depot; who manages it is on the staff page, found by the depot's name
    from chat.answers.evidence import says_more

    flood = hit(1, "# Flood at a depot, March 2026\n\nOn 3 March 2026 the Harbour Quay depot "
                   "flooded after a burst main and was closed for two days.\n",
                title="Flood at a depot, March 2026", canonical_type="incident",
                canonical_status="accepted")  # fmt: skip
    staff = hit(2, "# Who runs what\n\n| Depot | Manager | Phone |\n|---|---|---|\n| Harbour "
                   "Quay | Ines Varga | 0161 496 0123 |\n| Mill Lane | Tom Reid | 0161 496 0456 "
                   "|\n", title="Who runs what")  # fmt: skip
    question = "which depot flooded in march, and who is its manager?"
    first = _brief(question, flood)
    assert first.answerable and "Harbour Quay" in compose(first)
    assert "manager" in first.unstated.split() and "Harbour Quay" in first.unstated, first.unstated
    second = _brief(question, flood, staff)
    assert says_more(first, second)
    answer = compose(second)
    assert "Harbour Quay depot flooded" in answer and "Ines Varga" in answer, answer
    assert "Tom Reid" not in answer, answer


def test_a_comparison_with_no_target_in_its_evidence_looks_for_one():
    incident = hit(1, FREEZER_STOP, title="Freezer stop, 14 January", canonical_type="incident",
                   canonical_status="accepted", slug="inc-12")  # fmt: skip
    brief = _brief("did we make the SLA on the january freezer stop?", incident)
    assert brief.verdict == ""
    # what it compares against, that it is a target, and the measurement's codes
    assert brief.unstated.split()[:2] == ["SLA", "target"]
    assert "P2" in brief.unstated.split()


LAB_OUTAGE = """# Lab feed outage, 9 February

Incident INC-31, priority P1 under the support SLA.

## Summary

- 412 results were delayed; all were phoned to the wards, the longest 40 minutes late.
- Duration: 5 h 05 min, from the P1 ticket to results flowing again.
"""
SUPPORT_LEVELS = """# Support priorities and service levels

| Priority | When to use it | Response target | Resolution target | Updates to the reporter |
|---|---|---|---|---|
| P1 | A lab feed down; results not flowing to the wards | 10 minutes | 4 hours | Every 30 minutes |
| P2 | One ward affected | 30 minutes | 12 hours | Every 2 hours |
"""


def _lab_outage_and_levels(outage=LAB_OUTAGE, levels=SUPPORT_LEVELS):
    """The lab feed outage's postmortem and the service levels it is held against."""
    incident = hit(1, outage, title="Lab feed outage, 9 February", canonical_type="incident",
                   canonical_status="accepted", slug="inc-31")  # fmt: skip
    standard = hit(2, levels, title="Support priorities and service levels (SLA)",
                   canonical_type="standard", canonical_status="accepted", slug="std-sl")  # fmt: skip
    return incident, standard


def _ops_sync(follow_up):
    """Meeting notes following up the February lab feed outage."""
    return hit(3, "# Ops sync 3 March\n\nFollow-up from the February lab feed outage: "
                  f"{follow_up}\n", title="Ops sync 3 March")  # fmt: skip


def test_a_record_s_own_duration_is_held_against_the_target_not_how_often_updates_go_out():
    incident, levels = _lab_outage_and_levels()
    brief = _brief("did we make the SLA on the february lab feed outage?", incident, levels)
    # the outage's "Duration", not the longest delay it mentions; against the P1 row's
    # target, not "every 30 minutes" (how often the reporter hears, not a span of time)
    assert "5 h 05 min" in brief.lead.unit.text
    assert brief.support[0].unit.text.startswith("P1")
    assert brief.verdict == "no"
    answer = compose(brief)
    assert answer.startswith("No")
    assert re.search(r"\b5 h 05 min\b", answer) and re.search(r"\b4 hours\b", answer)


def test_a_comparison_with_only_the_target_in_its_evidence_looks_for_the_measurement():
    from chat.answers.evidence import says_more

    levels = hit(2, SUPPORT_LEVELS, title="Support priorities and service levels (SLA)",
                 canonical_type="standard", canonical_status="accepted", slug="std-sl")  # fmt: skip
    notes = _ops_sync("someone asked if it was fixed within the P1 target. Rachel to check.")
    question = "did the february lab feed outage get fixed within the P1 target?"
    first = _brief(question, notes, levels)
    assert "5 h 05 min" not in compose(first)
    # the question's subject without what it compares against, and that a duration is sought
    assert first.unstated == "february lab feed outage fixed duration", first.unstated
    # a root cause's "for ten weeks" is labelled by its own sentence, not the one before it
    outage = LAB_OUTAGE + (
        "\n## Root causes\n\nThe purge job kept the old archive path, and its alert had no "
        "response target. For ten weeks it deleted nothing.\n"
    )
    incident = hit(1, outage, title="Lab feed outage, 9 February", canonical_type="incident",
                   canonical_status="accepted", slug="inc-31")  # fmt: skip
    second = _brief(question, notes, levels, incident)
    assert says_more(first, second)
    assert "5 h 05 min" in second.lead.unit.text, second.lead.unit.text
    assert re.search(r"\b5 h 05 min\b", compose(second))


def test_a_value_is_labelled_by_its_own_cell_or_sentence():
    from chat.answers.evidence import label_of

    text = "Root causes: its alert had no response target. For ten weeks it deleted nothing."
    (weeks,) = [v for v in values_in(text) if v.kind == "duration"]
    assert label_of(text, weeks).strip() == "For"
    row = "P1 — Response target: 10 minutes; Resolution target: 4 hours"
    assert label_of(row, values_in(row)[-1]).strip() == "Resolution target:"


def test_a_day_and_month_without_a_year_is_a_date():
    from chat.answers.values import date_parts

    (week,) = values_in("who is on call the week of 13 april")
    assert week.kind == "date" and date_parts(week) == (None, 4, 13)
    (month_first,) = values_in("due April 13th")
    assert date_parts(month_first) == (None, 4, 13)
    assert [v.kind for v in values_in("you may 12 times")] == ["count"]  # the verb


def _queue_chain(new_text, old_title="Queue selection 2023: Burrow MQ"):
    """A superseded queue decision (Burrow MQ) and the record that replaced it on 1 March
    2025 (`new_text`), with their supersede link."""
    import datetime as dt

    old = hit(1, f"# {old_title}\n\nWe chose Burrow MQ for the plant queue.\n", title=old_title,
              canonical_type="decision", canonical_status="superseded", document_id=21)  # fmt: skip
    new = hit(2, new_text, title="Moving to Streamline", canonical_type="decision",
              canonical_status="accepted", document_id=22)  # fmt: skip
    link = supersede_link((21, old_title, None), (22, "Moving to Streamline", dt.date(2025, 3, 1)))
    return old, new, link


def test_back_when_we_had_a_record_asks_that_record_not_the_one_before_it():
    import datetime as dt

    kinds = {"canonical_type": "decision", "canonical_status": "superseded"}
    turbilog = hit(1, "# TurbiLog servers\n\nEach site's TurbiLog server kept 1-second data "
                      "for 30 days.\n", title="TurbiLog servers", document_id=31, **kinds)  # fmt: skip
    aurora = hit(2, "# Central Aurora historian\n\n## What we decided\n\n- Raw 1-second "
                    "data is kept for 13 months.\n", title="Central Aurora historian",
                 document_id=32, **kinds)  # fmt: skip
    stratus = hit(3, "# Stratus TSDB\n\n- 1-second raw turbine data: retention 90 days.\n",
                  title="Stratus TSDB", document_id=33, canonical_type="decision",
                  canonical_status="accepted")  # fmt: skip
    blog = hit(4, "# Historian moving to the cloud\n\nToday Aurora keeps raw 1-second turbine "
                  "data for 13 months, but long queries over the raw data are slow.\n",
               title="Historian moving to the cloud", document_id=34)  # fmt: skip
    links = [
        supersede_link((31, "TurbiLog servers", dt.date(2016, 1, 1)),
                       (32, "Central Aurora historian", dt.date(2022, 10, 1))),
        supersede_link((32, "Central Aurora historian", dt.date(2022, 10, 1)),
                       (33, "Stratus TSDB", dt.date(2025, 11, 1))),
    ]  # fmt: skip
    question = "back when we had Aurora, how long was raw 1-second data kept?"
    assert read_question(question).asks_past and read_question(question).at_the_time
    brief = _brief(question, blog, stratus, aurora, turbilog, links=links)
    # the record of that time, not the blog post that mentions it nor the record it replaced
    assert brief.lead.source.hit.document_id == 32, brief.lead.unit.text
    assert "13 months" in compose(brief).split("[")[0]
    # with no supersede link among the sources, the curated record of that time still leads
    unlinked = _brief(question, blog, stratus, aurora)
    assert unlinked.lead.source.hit.document_id == 32, unlinked.lead.unit.text
    # "before" still asks what came before it
    before = _brief("what did we keep 1-second data on before Aurora?", blog, stratus, aurora,
                    turbilog, links=links)  # fmt: skip
    assert before.lead.source.hit.document_id == 31, before.lead.unit.text


def test_the_very_first_of_a_chain_is_its_first_record_even_when_the_question_names_it():
    import datetime as dt

    old = {"canonical_type": "decision", "canonical_status": "superseded"}
    first = hit(1, "# Buying a central interface engine: BridgeWay Integrator (2014)\n\nWe buy "
                   "BridgeWay Integrator as our first central interface engine.\n",
                title="Buying a central interface engine: BridgeWay Integrator (2014)",
                document_id=41, **old)  # fmt: skip
    second = hit(2, "# Tessellate replaces BridgeWay\n\nWe move every interface to the "
                    "Tessellate Interface Engine.\n", title="Tessellate replaces BridgeWay",
                 document_id=42, **old)  # fmt: skip
    now = hit(3, "# Larkspur Integration Hub as our interface engine\n\n- Replaces: the "
                 "Tessellate Interface Engine, which replaced BridgeWay in 2019.\n- Proposed by: "
                 "Owen Gallagher, Head of Integration.\n",
              title="Larkspur Integration Hub as our interface engine", document_id=43,
              canonical_type="decision", canonical_status="accepted")  # fmt: skip
    links = [
        supersede_link((41, "Buying a central interface engine: BridgeWay Integrator (2014)",
                        dt.date(2014, 5, 20)), (42, "Tessellate replaces BridgeWay",
                                                dt.date(2019, 4, 2))),
        supersede_link((42, "Tessellate replaces BridgeWay", dt.date(2019, 4, 2)),
                       (43, "Larkspur Integration Hub as our interface engine",
                        dt.date(2025, 6, 1))),
    ]  # fmt: skip
    question = "what was the very first central interface engine we bought?"
    assert read_question(question).asks_past
    brief = _brief(question, now, second, first, links=links)
    assert brief.lead.source.hit.document_id == 41, brief.lead.unit.text


def test_why_a_record_was_dropped_is_answered_by_the_record_that_replaced_it():
    old, new, link = _queue_chain(
        "# Moving to Streamline\n\n## Context\n\nBurrow MQ lost vendor support in 2024 and "
        "could not keep messages through a network outage.\n\n## Decision\n\nWe run "
        "Streamline from March.\n"
    )
    # "ditch" is in no document: the verb of leaving names nothing, Burrow names the record
    brief = _brief("why did we ditch burrow", old, new, links=[link])
    assert brief.answerable
    assert brief.lead.source.hit.document_id == 22
    assert "lost vendor support" in brief.lead.unit.text
    assert "Moving to Streamline replaced Queue selection 2023" in compose(brief)


def test_a_supporting_quote_from_a_superseded_record_says_so_in_its_sentence():
    from dataclasses import replace

    old = hit(1, "# Cache\n\nSessions are kept on cache-01, a Memcached node of 4 GB.\n",
              title="Cache v1", canonical_type="decision", canonical_status="superseded",
              document_id=11)  # fmt: skip
    new = hit(2, "# Cache\n\nSessions are kept on the Redis Cluster of 6 nodes.\n",
              title="Cache v2", canonical_type="decision", canonical_status="accepted",
              document_id=12)  # fmt: skip
    brief = _brief("where are sessions kept?", old, new)
    assert brief.lead.source.hit.title == "Cache v2"
    stale = next(s for s in brief.ranked if s.source.hit.title == "Cache v1")
    text = compose(replace(brief, support=(stale,), disagreements=()))
    (quoted,) = [s for s in re.split(r"(?<=\.)\s+", text) if "Memcached" in s]
    assert "(Cache v1, now superseded) [1]" in quoted, text


def test_a_supporting_record_that_gives_the_lead_another_value_leads_instead():
    from chat.answers.evidence import trusted_instead

    brief = _brief("what's the PITR window on the portal db?", _notes(1), _runbook(2))
    note = next(s for s in brief.ranked if s.source.hit.slug == "ops-sync-11-june"
                and "14 days" in s.unit.text)  # fmt: skip
    record = next(s for s in brief.ranked if "35 days" in s.unit.text)
    tested = next(s for s in brief.ranked if "every quarter" in s.unit.text)

    def same_thing(a, b):  # (the brief measures this by shared words)
        return 1.0 if "PITR" in b.unit.text else 0.0

    def another_thing(a, b):
        return 0.0

    # the record states the note's thing with another value: it leads
    assert trusted_instead(note, [tested, record], same_thing, brief.question) is record
    # ...not a record's unit about something else, nor one with no other value
    assert trusted_instead(note, [record], another_thing, brief.question) is None
    assert trusted_instead(note, [tested], same_thing, brief.question) is None  # the restore tests
    assert (
        trusted_instead(record, [note], same_thing, brief.question) is None
    )  # less trusted never leads


def test_a_how_to_answered_by_a_code_block_quotes_all_its_commands():
    page = hit(1, "# SCADA backups\n\n## Checking backups\n\nRun these on the jump host as a "
               "member of the backup group:\n\n```\nwsbackup status --last 7\n"
               "wsbackup verify --set nightly-2026-02-09\n```\n",
               title="SCADA backup and recovery", canonical_type="runbook",
               canonical_status="accepted")  # fmt: skip
    text = compose(_brief("how do i check if last nights backup worked", page))
    assert "wsbackup status --last 7" in text and "wsbackup verify" in text, text


RAW_MATERIALS = """# Raw material specifications

| Code | Ingredient | Allergens | Storage |
|---|---|---|---|
| RM-1052 | Cocoa powder | None | Ambient |
| RM-1060 | Beef mince | None | Chilled |
| RM-1065 | Diced celery | Celery | Frozen |
| RM-1066 | Diced onion | None | Frozen |
| RM-1068 | Beef stock paste | Celery, Gluten | Ambient |
"""


def test_a_table_is_filtered_by_what_the_question_asks_its_rows_to_hold():
    table = hit(1, RAW_MATERIALS, title="Raw material specifications",
                canonical_type="standard", canonical_status="accepted")  # fmt: skip
    text = compose(_brief("which raw materials have celery in", table))
    assert "Diced celery" in text and "Beef stock paste" in text, text
    assert "Cocoa powder" not in text and "Diced onion" not in text, text
    # a question that names no such word lists the whole table
    whole = compose(_brief("which raw materials are on the specification list", table))
    assert "Cocoa powder" in whole or "RM-1052" in whole, whole


def test_a_long_table_s_matching_rows_are_all_listed_however_far_down():
    rows = "".join(f"| RM-{1000 + n} | Plain item {n} | None | Ambient |\n" for n in range(14))
    more = "| RM-1070 | Celery salt | Celery | Ambient |\n| RM-1071 | Celeriac mash | Celery | Chilled |\n"
    table = hit(1, RAW_MATERIALS.replace("| RM-1065 |", rows + "| RM-1065 |") + more,
                title="Raw material specifications", canonical_type="standard",
                canonical_status="accepted")  # fmt: skip
    text = compose(_brief("which raw materials have celery in", table))
    for ingredient in ("Diced celery", "Beef stock paste", "Celery salt", "Celeriac mash"):
        assert ingredient in text, text


def test_a_long_list_of_rows_keyed_by_codes_names_each_row():
    table = hit(1, RAW_MATERIALS, title="Raw material specifications",
                canonical_type="standard", canonical_status="accepted")  # fmt: skip
    text = compose(_brief("which raw materials are on the specification list", table))
    # quoted by first cells (more than three rows), and a code alone names nothing
    assert "RM-1052 (Ingredient: Cocoa powder)" in text, text


def test_a_long_list_of_a_two_column_table_keeps_each_label_with_its_value():
    fields = hit(1, "# Moving to the cloud MES\n\n| Field | Value |\n|---|---|\n"
                 "| Reference | DEC-2025-07 |\n| Date | 22 January 2025 |\n"
                 "| Decided by | Helen Ward, Managing Director |\n"
                 "| Recommended by | Mark Lindell, Head of IT |\n"
                 "| Replaces | Plant MES selection 2023 |\n",
                 title="Moving to the cloud MES", canonical_type="decision",
                 canonical_status="accepted")  # fmt: skip
    text = compose(_brief("which mes are we on now?", fields))
    # more than three rows are quoted compactly, and each label keeps its value
    assert "Decided by: Helen Ward, Managing Director;" in text, text
    assert "Replaces: Plant MES selection 2023" in text, text


def test_a_follow_up_may_state_a_measurement_and_a_plural_is_as_common_as_its_singular():
    from chat.services import ConversationState
    from kb import words

    assert words.english_weight("averages") == words.english_weight("average")
    assert words.english_weight("backups") == words.english_weight("backup")
    state = ConversationState(previous_question="what historian do we use for turbine data?")
    asked = read_question("and how far back do the 10 minute averages go?")
    assert asked.kind == "duration"  # "how far back": a span of time
    # "10 minute" qualifies what is asked about; it names no subject of its own
    assert state.carries_into(asked)
    assert not state.carries_into(read_question("when was SOL-WTG-09 last serviced?"))


def test_a_question_opening_with_a_conjunction_goes_on_from_the_turn_before():
    from chat.services import ConversationState

    state = ConversationState(
        previous_question="what is the current on call allowance for a weekday night"
    )
    # "proposed" is rarer than everyday English, but "and ..." goes on from what was said
    assert state.carries_into(read_question("and what is proposed?"))
    assert state.carries_into(read_question("But who approves the proposal?"))
    # ...unless it names a subject of its own, and a first question never leans on anything
    assert not state.carries_into(read_question("and what does QP-05 say?"))
    assert not ConversationState().carries_into(read_question("and what is proposed?"))


def test_a_question_pointing_back_with_that_goes_on_from_the_turn_before():
    from chat.services import ConversationState

    state = ConversationState(previous_question="the comms failed at a reservoir, what do I do?")
    # it names a team of its own (OT), but "on that" is what was asked before
    asked = read_question("how long has the OT person got to get back to me on that")
    assert state.carries_into(asked)
    assert not ConversationState().carries_into(asked)


def test_a_name_whose_words_are_apart_by_any_white_space_is_read_without_an_error():
    # a tab, a line break or a no-break space between the words of a name (an HTTP 500 on
    # the chat API before: hypothesis found it)
    for space in ("\t", "\n", "\u00a0", "  "):
        (name,) = values_in(f"ask Helen{space}Ward today")
        assert name.kind == "name" and name.text == "Helen Ward"
    assert read_question("who is Helen\u00a0Ward?").kind == "person"


def test_a_question_someone_asked_in_a_meeting_is_not_the_answer_to_it():
    notes = hit(1, "# Ops weekly, 18 March\n\n- Devices: three new analysers arrive in April. "
                "Kieran asked whether engineering can just plug the new analysers into the "
                "device network since the same model is already on it. Declan thought yes.\n",
                title="Ops weekly, 18 March", slug="ops-weekly")  # fmt: skip
    standard = hit(2, "# Medical device network\n\nEvery device needs an Information Security "
                   "sign-off before it is connected to the device network, whatever its model."
                   "\n", title="Medical device network", canonical_type="standard",
                   canonical_status="accepted", slug="std-mdn")  # fmt: skip
    brief = _brief(
        "can engineering just plug the new analysers into the device network if the same "
        "model is already on it?",
        notes,
        standard,
    )
    # the note restates the question someone asked; it does not answer it, the standard does
    assert brief.lead.source.hit.slug == "std-mdn"
    assert "Information Security" in compose(brief).split(".")[0]


def test_every_monday_says_how_often_not_when():
    standard = hit(1, "# API versioning\n\n## Deprecation and sunset\n\n- Every Monday, the usage "
                   "report lists the tenants still calling /v1 before its sunset.\n- /v1 is "
                   "deprecated and sunsets on 2025-03-31.\n", title="API versioning",
                   canonical_type="standard", canonical_status="accepted")  # fmt: skip
    brief = _brief("When does /v1 of the API sunset?", standard)
    assert "2025-03-31" in brief.lead.unit.text
    assert [v.text for v in brief.lead.values] == ["2025-03-31"]


def test_a_trusted_sentence_that_only_shares_the_topic_does_not_displace_the_answer():
    schedule = hit(1, "# Bakery cleaning schedule\n\n| Equipment | Task | Chemical |\n|---|---|---|\n"
                   "| Metal detectors | Wipe aperture and belt | SAN-10 at 1% |\n"
                   "| Flow-wrappers | Wipe sealing jaws | Alcohol wipes |\n",
                   title="Bakery cleaning schedule", slug="cleaning")  # fmt: skip
    standard = hit(2, "# Metal detection verification\n\nMetal detection is a critical control "
                   "point in our plan. We have 8 metal detectors on the packing lines.\n",
                   title="Metal detection verification", canonical_type="standard",
                   canonical_status="accepted", slug="std-metal")  # fmt: skip
    brief = _brief("what do we wipe the metal detector aperture with", schedule, standard)
    # the accepted standard is more trusted, but it does not say what the aperture is wiped with
    assert brief.lead.source.hit.slug == "cleaning"
    assert "SAN-10" in compose(brief)


def test_a_bare_number_names_no_subject_and_is_refused():
    # "5" or "2024?" typed alone: every unit holding the number would "cover" it
    for asked in ("5", "2024?", "35"):
        brief = _brief(asked, _runbook(), _notes())
        assert not brief.answerable, asked
    assert _brief("PITR window 35 days?", _runbook()).answerable


def test_a_second_fact_from_another_document_bears_on_the_question_not_on_one_word():
    # the answer leaves "headquartered" unstated; a document about something else that only
    # shares that word does not complete it
    danube = hit(1, "# Danube\n\nNavigation is overseen by the Danube Commission, set up under "
                 "the Belgrade Convention of 1948 and based in Budapest.\n", title="Danube")  # fmt: skip
    nokia = hit(2, "# Nokia\n\nNokia's headquarters are in Espoo, near Helsinki.\n", title="Nokia")
    brief = _brief("Where is the Danube Commission headquartered?", danube, nokia, refuse=False)
    assert "Budapest" in brief.lead.unit.text
    assert brief.support == ()
    assert "Espoo" not in compose(brief)


def test_a_unit_another_document_ties_to_the_question_only_by_its_summary_does_not_support():
    topics = hit(1, "## Topics\n\n- tracking.events.raw: carrier events as received.\n"
                 "- tracking.events.dlq: events that failed normalisation.\n",
                 title="Module: Tracking ingest", summary="Carrier events on Kafka.")  # fmt: skip
    channels = hit(2, "## Channels\n\nThe service reads the notifications Kafka topic and "
                   "sends each message on these channels:\n\n| Channel | Provider |\n|---|---|\n"
                   "| Email | Amazon SES |\n| SMS | Twilio |\n", title="Module: Notifications",
                   summary="Sends email and SMS from the notifications Kafka topics.")  # fmt: skip
    from chat.answers.evidence import bears_on

    brief = _brief("which kafka topics are there", topics, channels)
    sms = next(s for s in brief.ranked if "Twilio" in s.unit.text)
    # kafka and topic: only in its summary and the paragraph before its table
    assert not bears_on(brief.question, sms)
    dlq = next(s for s in brief.ranked if "dlq" in s.unit.text)
    assert bears_on(brief.question, dlq)


LOGGING_FIELDS = """## Required fields

- `ts`, `level`, `service`, `env` and `msg` on every line.

Conditionally required:

- `error_code` — whenever a catalogued error is raised.
- `duration_ms` — for any outbound call or DB query logged.

Example:
"""
# the next chunk opens inside the list: the overlap repeats its items without their lead-in
LOGGING_OVERLAP = """is raised.
- `duration_ms` — for any outbound call or DB query logged.

Example:

```json
{"ts": "2024-06-03T09:14:22.481Z", "level": "warning"}
```
"""


def test_an_item_repeated_by_the_chunk_overlap_keeps_its_lead_in():
    fields = {"title": "Standard: Logging", "document_id": 7,
              "heading_path": "Standard: Logging > Required fields"}  # fmt: skip
    brief = _brief(
        "which fields must a log line include?",
        hit(1, LOGGING_FIELDS, chunk_order=2, **fields),
        hit(2, LOGGING_OVERLAP, chunk_order=3, **fields),
        refuse=False,
    )
    duration = [s.unit for s in brief.ranked if "duration_ms" in s.unit.text]
    assert duration, [s.unit.text for s in brief.ranked]
    # quoted as "Conditionally required: duration_ms ...", never "Required fields: ..."
    assert all(u.text.startswith("Conditionally required") for u in duration), duration


def test_a_row_with_an_empty_cell_is_not_read_as_a_two_column_table():
    table = hit(1, "# Standard: Logging\n\n## Required fields\n\n| Field | Example | Notes |\n"
                "|---|---|---|\n| `ts` | `2024-06-03T09:14:22Z` | |\n| `level` | `info` | see 3 |\n"
                "| `service` | `ingest` | app label |\n| `env` | `prod` | prod, dev |\n",
                title="Standard: Logging", canonical_type="standard",
                canonical_status="accepted")  # fmt: skip
    text = compose(_brief("which fields are required?", table, refuse=False))
    # the fields by name, as the other rows: not "ts: 2024-06-03T09:14:22Z" as if it were
    # a label and its value
    assert "ts; level; service; env" in text, text


def test_a_step_s_command_is_quoted_once():
    runbook = hit(1, """# Runbook: failover

## Unplanned failover

1. Confirm the primary is really unreachable with a ping.
2. On its replica, try a forced failover:
   ```bash
   redis-cli CLUSTER FAILOVER FORCE
   ```
3. If the replica is still not master after 15 s, use the takeover failover:
   ```bash
   redis-cli CLUSTER FAILOVER TAKEOVER
   ```
4. When the dead node comes back, it rejoins the failover cluster as a replica.
""", title="Runbook: Redis cluster failover", canonical_type="runbook",
                  canonical_status="accepted")  # fmt: skip
    brief = _brief("how do i do a redis cluster failover?", runbook, refuse=False)
    said = [s.unit.text for s in (brief.lead, *brief.listed, *brief.support)]
    assert len(said) == len(set(said)), said  # a command is quoted once


def test_a_heading_s_number_is_not_a_value_the_list_leaves_out():
    table = hit(1, "| Field | Example |\n|---|---|\n| `ts` | `2024-06-03` |\n| `level` | `info` |\n"
                "| `service` | `ingest` |\n| `env` | `prod` |\n",
                title="Standard: Logging", heading_path="Standard: Logging > 2. Required fields",
                canonical_type="standard", canonical_status="accepted")  # fmt: skip
    text = compose(_brief("what fields do our service logs have to include?", table, refuse=False))
    assert "2. Required fields" not in text, text


def test_steps_of_one_procedure_are_quoted_in_their_order():
    runbook = hit(1, """# Runbook: failover

## Unplanned failover

1. Confirm the primary is really unreachable with a ping.
2. On its replica, try a forced failover:
   ```bash
   redis-cli CLUSTER FAILOVER FORCE
   ```
3. If the replica is still not master after 15 s, use the takeover failover:
   ```bash
   redis-cli CLUSTER FAILOVER TAKEOVER
   ```
4. When the dead node comes back, it rejoins the failover cluster as a replica.
""", title="Runbook: Redis cluster failover", canonical_type="runbook",
                  canonical_status="accepted")  # fmt: skip
    text = compose(_brief("how do i do a redis cluster failover?", runbook, refuse=False))
    quoted = [step for step in ("ping", "FORCE", "TAKEOVER", "comes back") if step in text]
    assert len(quoted) >= 2, text
    assert sorted(quoted, key=text.index) == quoted, text  # in the runbook's order


def test_a_value_is_taken_from_a_unit_that_says_what_is_asked_of_the_named_subject():
    # the sentence naming the other composer says nothing of where he was born; the one that
    # does is about the page's own subject
    text = ("Antonín Dvořák (1841-1904) was a Czech composer. He was born in Nelahozeves, a "
            "village north of Prague. From 1866 he played viola in the orchestra of the "
            "Provisional Theatre, which was then conducted by Bedřich Smetana.")  # fmt: skip
    page = hit(1, text, title="Antonín Dvořák")
    brief = _brief("Where was Bedřich Smetana born?", page)
    assert not brief.answerable
    assert _brief("Where was Antonín Dvořák born?", page).answerable


def test_a_value_the_question_states_picks_the_row_that_states_it():
    text = """# IT support: priorities and targets

## Escalation

| Situation | Escalated to |
|---|---|
| On-call engineer not answering within 15 minutes | Aisha Rahman, OT Lead |
| P1 not restored after 4 hours | David Okafor, Operations Director |
| P1 not restored after 2 hours | Marcus Lindqvist, Head of IT |
"""
    brief = _brief(
        "who gets told if a P1 is still down after 2 hrs", hit(1, text, title="IT support")
    )
    assert brief.answerable
    assert "Marcus Lindqvist" in compose(brief).split("[1]")[0]


def test_a_hyphenated_word_of_the_question_does_not_make_a_title_an_answer():
    rota = hit(1, "## Swaps\n\nHandover is a short call at 09:00 on Monday between the engineers.\n",
               title="Digital Services On-Call Rota - Q2 2026", slug="on-call-rota-q2")  # fmt: skip
    text = compose(_brief("when is the on-call handover", rota))
    assert text == "Handover is a short call at 09:00 on Monday between the engineers [1]."
    # a code names the document, and its title is quotable
    record = hit(2, "Use Kafka for events.", title="ADR-0005: Kafka as the event backbone")
    assert "ADR-0005: Kafka as the event backbone" in compose(
        _brief("What did ADR-0005 decide?", record)
    )


def test_a_how_to_is_answered_by_the_procedure_its_title_names():
    lockout = hit(1, "## Procedure\n\n1. Call the ROC and ask for the turbine to be put in Service "
                  "mode. The ROC will not remote-reset a turbine in Service mode.\n"
                  "2. Stop the turbine locally and apply the rotor brake.\n",
                  title="Lockout/tagout for turbine work")  # fmt: skip
    runbook = hit(2, "## Steps\n\n1. Check the active alarm and note the fault code.\n"
                  "2. Reset the turbine from WindSight, giving the ticket as the reason.\n",
                  title="Remote reset of turbine faults")  # fmt: skip
    text = compose(_brief("how do i reset a turbine remotely", lockout, runbook))
    assert text.startswith("Steps: Check the active alarm"), text


REJECTED_DRONES = """# Rejected: building our own drone blade-inspection team

Decided on 2024-10-08 by Olav Dahl and Elise Moen; endorsed by Ingrid Solberg.

## Why we said no

- Utilisation. Inspections can only be flown with low wind and no rain, so an in-house team
  would be idle for more than half the year.
"""


def test_a_question_about_a_rejected_approach_is_answered_by_its_reasons():
    rejected = hit(1, REJECTED_DRONES, title="Rejected: building our own drone blade-inspection team",
                   canonical_type="rejected-approach", canonical_status="accepted")  # fmt: skip
    sources = number_sources(result([], rejected=[rejected]))
    brief = build_brief(
        question=read_question("why did we reject drone inspection in house"), sources=sources
    )
    text = compose(brief)
    assert text.startswith("Why we said no: Utilisation."), text
    assert "was considered and rejected [1]" in text
    # a question about something else is not answered by a rejected approach
    other = build_brief(
        question=read_question("why are inspections only flown in low wind"), sources=sources
    )
    assert not other.answerable


def test_who_turned_an_approach_down_and_when_is_its_decision():
    # "decided against", "turned down": who rejected it, which the record says as its
    # decision; "and when?" asks a date as well, which that unit carries
    record = (
        "# Rejected: building our own drone blade-inspection team\n\nIn summer 2024 two "
        "technicians at Brekken Ridge proposed that we buy drones and do the inspections "
        "ourselves.\n\nDecided on 2024-10-08 by Olav Dahl and Elise Moen; endorsed by Ingrid "
        "Solberg.\n\n## What we do instead\n\nSite technicians may use a small handheld drone "
        "after a lightning alarm, to decide whether a full inspection team is needed.\n"
    )
    rejected = hit(1, record, title="Rejected: building our own drone blade-inspection team",
                   canonical_type="rejected-approach", canonical_status="accepted",
                   summary="We considered building our own drone blade-inspection team and "
                           "rejected it.")  # fmt: skip
    sources = number_sources(result([], rejected=[rejected]))
    for question in (
        "who decided against our own drone inspection team, and when was that?",
        "who turned down building a drone inspection team, and when?",
    ):
        read = read_question(question)
        assert read.asks_alternatives and read.also_kinds >= {"date"}, read
        text = compose(build_brief(question=read, sources=sources))
        assert "Olav Dahl" in text and "2024-10-08" in text, (question, text)


def test_a_sentence_naming_again_what_the_sentence_before_said_goes_on_about_it():
    # "The proposal was rejected ...": which proposal, the sentence before says; its words
    # are the sentence's context, so who rejected what, and when, is found in it. "Harbour
    # Express" is part of what the question asks about, not who turned it down.
    record = (
        "# Rejected: a night shift at the Harbour depot\n\nThe depot team proposed in March "
        "2025 to sort Harbour Express parcels at night. The proposal was rejected on 4 May "
        "2025 by Nadia Okafor, Operations Director. The day shifts stay as they are.\n"
    )
    rejected = hit(1, record, title="Rejected: a night shift at the Harbour depot",
                   canonical_type="rejected-approach", canonical_status="accepted",
                   summary="A night shift at the Harbour depot was proposed and rejected.")  # fmt: skip
    sources = number_sources(result([], rejected=[rejected]))
    question = "who turned down sorting express parcels at night in Harbour, and when?"
    text = compose(build_brief(question=read_question(question), sources=sources))
    assert text.startswith("The proposal was rejected on 4 May 2025 by Nadia Okafor"), text
    assert "Harbour Express parcels at night" in text, text  # what the proposal was
    # a sentence that names something new is not read as going on about the sentence before
    units = split_units("The depot opened in 2019. The canteen serves hot food.")
    assert units[1].context == "", units[1]


def test_a_unit_carrying_what_a_joined_second_question_asks_ranks_higher():
    from chat.answers.scoring import score_unit
    from chat.answers.units import Unit

    source = number_sources(result([hit(1, "x", title="Drone inspection team")]))[0]
    question = read_question("who decided on the drone inspection team, and when?")
    weights = {t: 1.0 for t in question.terms}

    def score(text):
        unit = Unit(text, "sentence", "", 0)
        return score_unit(question=question, source=source, unit=unit, weights=weights).score

    dated = score("Olav Dahl decided on the drone inspection team on 2024-10-08.")
    undated = score("Olav Dahl decided on the drone inspection team in the end.")
    assert dated > undated


def test_a_quantity_states_what_it_measures():
    from chat.answers.scoring import unit_terms
    from chat.answers.units import Unit

    assert "speed" in unit_terms(Unit("No climbing above 15 m/s.", "sentence", "", 0))
    assert "temperature" in unit_terms(Unit("Kept at -18 °C or colder.", "sentence", "", 0))
    assert "speed" not in unit_terms(Unit("A climb of 80 m.", "sentence", "", 0))


def test_records_telling_different_events_do_not_disagree_on_their_dates():
    current = hit(1, "This decision supersedes WE-DEC-011, the on-premise Aurora historian, which "
                  "itself replaced the 2019 TurbiLog servers.",
                  title="Turbine data historian: move to Stratus TSDB",
                  canonical_type="decision", canonical_status="accepted")  # fmt: skip
    old = hit(2, "On 2025-09-22 this record was replaced by WE-DEC-019, which moved the turbine "
              "data historian to the hosted Stratus TSDB service.",
              title="Central Aurora historian", canonical_type="decision",
              canonical_status="superseded")  # fmt: skip
    brief = _brief("what did the stratus historian decision replace", current, old)
    assert brief.answerable and not brief.disagreements
    # a value the question asks for is still held against the record's
    assert _brief("What is the PITR window for the portal db?", _runbook(), _notes()).disagreements


def test_who_owns_a_document_is_answered_by_its_curated_owners():
    logging = hit(1, "## Format\n\nEvery service logs JSON lines to stdout.\n",
                  title="Standard: Logging", owners=("SRE",))  # fmt: skip
    api = hit(2, "## Versions\n\nEvery breaking change gets a new major version.\n",
              title="Standard: API versioning", owners=("API Team",))  # fmt: skip
    assert compose(_brief("Who owns the logging standard?", logging, api)) == (
        "Standard: Logging is owned by SRE [1]."
    )
    # other questions are not answered by who owns the page
    assert "owned by" not in compose(_brief("What format do services log in?", logging, api))


def test_a_rejected_approach_near_the_question_warns_but_never_answers_it():
    # the rejected approach is close enough in meaning to be warned about, but the question
    # is not about it: its sentences (what was proposed, what was found) do not answer it,
    # and its values are never the trusted side of a disagreement
    rejected = hit(1, "## What we found\n\nCustomer position. Brightways confirmed in writing "
                   "that a metal detector with hourly checks meets its code for bakery products.\n",
                   title="Not doing: X-ray inspection on every packing line", cosine=0.6,
                   canonical_type="rejected-approach", canonical_status="accepted")  # fmt: skip
    standard = hit(2, "## Test pieces\n\nThe test pieces are 2.0 mm ferrous and 2.5 mm "
                   "non-ferrous. Each test piece is tested in a pack.\n\n## When to check\n\n"
                   "1. At the start of production.\n2. Every 2 hours during production.\n"
                   "3. After every product changeover.\n",
                   title="Metal detection verification (QP-05)", canonical_type="standard",
                   canonical_status="accepted")  # fmt: skip
    newsletter = hit(3, "From September, metal detector checks will move to every 3 hours.",
                     title="Staff newsletter, June 2025")  # fmt: skip
    sources = number_sources(result([standard, newsletter], rejected=[rejected]))
    brief = build_brief(
        question=read_question("how often do we test the metal detectors"), sources=sources
    )
    text = compose(brief)
    assert brief.lead is not None and brief.lead.source.hit.title.startswith("Metal detection")
    assert "Brightways" not in text and "hourly" not in text, text
    assert "was considered and rejected" in text  # still warned about


def test_a_bare_number_is_no_value_to_disagree_on():
    standard = hit(1, "## What changed from revision 3\n\n| | Revision 3 (2022) | Revision 4 (now) |\n"
                   "|---|---|---|\n| Routine check | every 4 hours | every 2 hours |\n",
                   title="Metal detection verification (QP-05, revision 4)",
                   canonical_type="standard", canonical_status="accepted")  # fmt: skip
    newsletter = hit(2, "From September, metal detector checks will move to every 3 hours "
                     "instead of every 4.", title="Staff newsletter, June 2025")  # fmt: skip
    brief = _brief("what changed in the new metal detector procedure", standard, newsletter)
    # "Revision 4" names a revision, "every 4" counts nothing: neither is a count to hold
    # against another source's number
    assert brief.answerable and not brief.disagreements, compose(brief)


def test_a_disagreement_pairs_values_of_the_same_thing():
    standard = hit(1, "## Requirements\n\n| Item | Requirement |\n|---|---|\n"
                   "| Local retention | 35 days of nightly backups on the appliance |\n",
                   title="SCADA backup and recovery", canonical_type="standard",
                   canonical_status="accepted")  # fmt: skip
    notes = hit(2, "Local retention of the nightly backups on the appliance is 14 days now.",
                title="Ops weekly - 11 March")  # fmt: skip
    brief = _brief("how long is the local retention for scada backups", standard, notes)
    # "nightly" says how often, not how long: the 35 days are held against the 14
    assert [(d.trusted_value, d.other_value) for d in brief.disagreements] == [
        ("35 days", "14 days")
    ]
    targets = hit(3, "## Priorities\n\n| Priority | First response time | Restore time |\n"
                  "|---|---|---|\n| P1 | 15 minutes | 4 hours |\n", title="IT support",
                  canonical_type="standard", canonical_status="accepted")  # fmt: skip
    notes = hit(4, "Ops weekly: the P1 first response time target is 60 minutes now.",
                title="Ops weekly")  # fmt: skip
    # of a row's two durations, the one in the clause the question names is held against
    # the note's; the restore time is not
    brief = _brief("whats the first response time for a p1", targets, notes)
    assert [(d.trusted_value, d.other_value) for d in brief.disagreements] == [
        ("15 minutes", "60 minutes")
    ]
    # ...and a row telling a before and an after holds neither (see the test above)
    steps = hit(5, "The seven required steps: ATP swab at the same three points. The pass limit "
                "is 150 RLU.", title="Allergen changeover cleaning", canonical_type="standard",
                canonical_status="accepted")  # fmt: skip
    handover = hit(6, "ATP swab on line 2 failed at 3 points after the clean, pass limit 150 RLU.",
                   title="Shift handover")  # fmt: skip
    # seven steps and three points count different things
    assert not _brief(
        "whats the pass limt on an atp swab after cleaning", steps, handover
    ).disagreements
    # asked how many, a count of keys is not held against a bare number of something else
    keys = hit(7, "Each tenant can have at most 5 active keys.", title="Rotating API keys",
               canonical_type="runbook", canonical_status="accepted")  # fmt: skip
    limits = hit(8, "Should limits be per API key or per tenant? Current draft: per key, with a "
                 "tenant-wide ceiling at 1.5× the key limit.",
                 title="Per-tenant rate limiting", canonical_type="decision",
                 canonical_status="review")  # fmt: skip
    brief = _brief("How many active API keys can a tenant have?", keys, limits)
    assert brief.answerable and not brief.disagreements, compose(brief)


def test_a_source_that_does_not_name_what_the_question_names_does_not_disagree():
    standard = hit(1, "# Backup and recovery standard\n\n## Restore testing\n\nThe last Aster "
                   "EPR test on 14 January 2026 took 3 hours 10 minutes.\n",
                   title="Backup and recovery standard", canonical_type="standard",
                   canonical_status="accepted")  # fmt: skip
    notes = hit(2, "## Backups and DR\n\n- Declan: the last restore test, of Vireo LIS, was on 11 "
                "March, took 2 h 40 min.\n", title="Ops weekly - 18 March")  # fmt: skip
    # a restore test of another system is not the EPR's
    brief = _brief("how long did the last EPR restore test take?", standard, notes)
    assert "3 hours 10 minutes" in compose(brief) and not brief.disagreements, compose(brief)
    # ...while a note that names it still disagrees
    notes = hit(3, "Ops weekly. The last Aster EPR restore test took 2 h 40 min.",
                title="Ops weekly - 18 March")  # fmt: skip
    brief = _brief("how long did the last EPR restore test take?", standard, notes)
    assert [(d.trusted_value, d.other_value) for d in brief.disagreements] == [
        ("3 hours 10 minutes", "2 h 40 min")
    ]


def test_the_accepted_record_leads_over_a_newsletter_that_matches_more_words():
    standard = hit(1, "## Test pieces\n\nThe X-ray unit is checked with a test card at the same "
                   "times as the metal detectors.\n\n## When to check\n\n1. At the start of "
                   "production, before the first pack.\n2. Every 2 hours during production.\n"
                   "3. After every product changeover.\n",
                   title="Metal detection verification (QP-05, revision 4)",
                   canonical_type="standard", canonical_status="accepted")  # fmt: skip
    newsletter = hit(2, "From September, metal detector checks will move to every 3 hours instead "
                     "of every 4, and the test pieces on the bakery lines get a little smaller.",
                     title="Staff newsletter, June 2025")  # fmt: skip
    text = compose(_brief("how often do we test the metal detectors", newsletter, standard))
    # the newsletter shares more of the question's words ("test", "metal detector"); the
    # record, two tiers of trust above it, states the same kind of value for the same
    # subject: it answers, and the newsletter's other value is named as disagreeing
    assert text.startswith("When to check: Every 2 hours during production [2]."), text
    assert "says 3 hours [1], but" in text


def test_a_follow_up_carries_the_subject_of_the_turn_before_not_what_it_asked():
    from chat.answers.evidence import earlier_subject

    standard = hit(1, "# Metal detection verification (QP-05, revision 4)\n\nEffective 3 November "
                   "2025. Owner: Sian Morgan. Approved by Dr Ruth Kellerman, Technical Director.\n\n"
                   "## Records\n\nChecks are recorded on the Fabrica check sheet.\n",
                   title="Metal detection verification (QP-05, revision 4)",
                   canonical_type="standard", canonical_status="accepted")  # fmt: skip
    other = hit(2, "# QP-14 Glass and Brittle Plastic Breakage Procedure\n\nEffective 2 June 2025."
                "\n\n## Scope\n\nAll glass on site.\n",
                title="QP-14 Glass and Brittle Plastic Breakage Procedure")  # fmt: skip
    # "who approved QP-05 revision 4?" then "when did it take effect?": the follow-up asks
    # when of QP-05 revision 4, not of its approval ("take effect" is said "Effective")
    brief = build_brief(
        question=read_question("when did it take effect?"),
        sources=number_sources(result([standard, other])),
        earlier_terms=earlier_subject("who approved QP-05 revision 4"),
    )
    assert compose(brief).startswith("Effective 3 November 2025"), compose(brief)
    # QP-14's own effective date is another document's, not a disagreement about QP-05's
    assert not brief.disagreements, compose(brief)


def test_a_table_row_the_question_names_answers_from_the_column_it_names():
    sla = hit(1, "## Priorities and targets\n\n| Priority | Meaning | Response target | Resolution "
              "target |\n|---|---|---|---|\n| P1 - Critical | Whole site down | 15 minutes | 4 hours |\n"
              "| P2 - High | One turbine without data | 30 minutes | 8 hours |\n\n## Reporting\n\n"
              "The target for 2026 is 95% of P1 and P2 tickets resolved within target.\n",
              title="Support priorities and targets", canonical_type="standard",
              canonical_status="accepted")  # fmt: skip
    text = compose(_brief("what's the response target for a P2 ticket", sla))
    assert text.startswith("P2 - High"), text


def test_what_is_x_is_answered_by_the_sentence_that_says_what_x_is():
    overview = hit(1, "## Connected systems\n\n- Lightning detection: a national lightning feed "
                   "shown as an overlay in WindSight.\n- Ice detection: each turbine's ice "
                   "detector raises an alarm in WindSight.\n\n## Operations\n\nOperators use "
                   "WindSight around the clock. WindSight is the SCADA platform through which "
                   "the ROC monitors and controls every turbine.\n",
                   title="WindSight SCADA platform - overview", canonical_type="module-kb",
                   canonical_status="accepted")  # fmt: skip
    text = compose(_brief("what is windsight", overview))
    assert text.startswith("WindSight is the SCADA platform"), text
    # "what are our X-s?" asks for the list of them, not what one is
    plan = hit(2, "## Critical control points\n\nCCPs are the steps where control is essential "
               "to food safety.\n\n| CCP | Step |\n|---|---|\n| CCP1 | Baking |\n"
               "| CCP2 | Metal detection |\n| CCP3 | Cooking |\n", title="HACCP plan",
               canonical_type="standard", canonical_status="accepted")  # fmt: skip
    listed = compose(_brief("what are our ccps", plan))
    assert "Baking" in listed.split("[")[0], listed


def test_a_table_row_about_a_linked_document_is_about_that_document():
    # "the outage postmortem" linked from a sentence does not make it about the outage; the
    # first cell of a row (what the row is about) does
    whos_who = hit(1, "# Who's who\n\n## Who owns which document\n\n| Document | Owner | Approver |\n"
                   "|---|---|---|\n| [[machine-guarding-and-lockout]] (MS-03) | Karen Doyle | "
                   "David Okafor |\n| [[metal-detection]] (QP-05) | Sian Morgan | Ruth Kellerman |\n",
                   title="Who's who")  # fmt: skip
    brief = build_brief(
        question=read_question("who signs off the lockout procedure?"),
        sources=number_sources(result([whos_who])),
        link_titles={
            "machine-guarding-and-lockout": "Machine guarding, interlocks and lockout",
            "metal-detection": "Metal detection verification",
        },
    )
    assert brief.answerable, brief.refusal
    assert "David Okafor" in compose(brief) and "Ruth Kellerman" not in compose(brief)


def test_coverage_counts_ways_of_saying_one_relation_once_and_a_document_kind_where_stated():
    from chat.answers.scoring import coverage

    weights = {"lockout": 2.0, "procedure": 1.0, "sign": 1.0, "approv": 1.0, "decid": 1.0}
    asked = frozenset(weights)
    relation = frozenset({"sign", "approv", "decid"})
    row = frozenset({"lockout", "approver"})
    # "Approver" says the relation: one of its ways is enough; "procedure" is not required
    assert coverage(asked, weights, row, frozenset(), either=relation) == 1.0
    # ...and without the relation the row states the subject, not what is asked of it
    assert coverage(asked, weights, frozenset({"lockout"}), frozenset(), either=relation) == 2 / 3
    # a unit that says "procedure" counts it
    stated = frozenset({"lockout", "procedure"})
    assert coverage(asked, weights, stated, frozenset(), either=relation) == 3 / 4
    # without alternatives each term weighs on its own
    assert coverage(asked, weights, row, frozenset()) == 3 / 5


def test_who_runs_a_row_is_answered_from_the_column_naming_the_role():
    sites = hit(1, "# Who's who\n\n## Sites\n\n| Site | What it makes | Site manager |\n|---|---|---|\n"
                "| Hollin Bridge Bakery | Bread, rolls | Gareth Pryce |\n| Tenterfield Bakery | "
                "Muffins, traybakes | Priya Natarajan |\n", title="Who's who")  # fmt: skip
    mes = hit(2, "# Moving to the cloud MES\n\nHollin Bridge and Tenterfield sites were still on "
              "LineLog, which has one contract developer.\n", title="Moving to the cloud MES")  # fmt: skip
    text = compose(_brief("who runs the tenterfield site?", mes, sites))
    assert text.startswith("Tenterfield Bakery") and "Priya Natarajan" in text, text
    # a person in another role at the site is not who runs it
    managers = hit(3, "# Technical managers\n\nEach site has its own technical manager: Aled "
                   "Hughes at Hollin Bridge and Jo Whitfield at the Tenterfield site.\n",
                   title="Technical managers")  # fmt: skip
    text = compose(_brief("who runs the tenterfield site?", managers, mes, sites))
    assert text.startswith("Tenterfield Bakery") and "Gareth Pryce" not in text, text


def test_a_role_the_question_names_is_said_by_the_role_a_document_names():
    standard = hit(1, "# Availability\n\nOwner: Ingrid Solberg, Head of Field Operations.\n\n"
                   "Figures are produced monthly by the field operations planning team.\n",
                   title="Turbine availability")  # fmt: skip
    text = compose(_brief("who is the boss of field operations?", standard))
    assert "Ingrid Solberg" in text, text
    # a question about another team is not answered by a role of this one
    assert not _brief("who is the boss of the finance team?", standard).answerable


def test_an_elliptical_follow_up_asks_the_question_before_of_what_it_names_instead():
    from chat.answers.question import restated

    assert restated("what is the RTO for tier 1 systems?", "and for tier 2?") == (
        "what is the RTO for tier systems? and for tier 2?"
    )
    assert restated("who was incident commander for the Sollia outage?", "and at Carn Dubh?") == (
        "who was incident commander for the outage? and at Carn Dubh?"
    )
    # of two names it cannot tell which one is replaced: both stay
    assert restated("when did Hollin Bridge go live on Fabrica?", "and Tenterfield?") == (
        "when did Hollin Bridge go live on Fabrica? and Tenterfield?"
    )
    # a follow-up naming nothing replaces nothing
    assert restated("what is the RTO for tier 1?", "and for the others?") == (
        "what is the RTO for tier 1? and for the others?"
    )
    # typed in lower case, what follows the same preposition is what is replaced
    assert restated("whats the ice exclusion radius round the turbines at brekken?",
                    "and at carn dubh?") == (
        "whats the ice exclusion radius round the turbines? and at carn dubh?"
    )  # fmt: skip
    assert restated("what is the RTO for tier one?", "and for the others?") == (
        "what is the RTO for tier one? and for the others?"
    )
    # ...one naming another thing of the kind replaces it ("the RPO" for "the RTO")
    assert "RTO" not in restated("what is the RTO for tier 1?", "and the RPO?")
    tiers = hit(1, "# Backups\n\n| Tier | Systems | RTO |\n|---|---|---|\n| Tier 1 | EPR, LIS | "
                "4 hours |\n| Tier 2 | Portal, email | 24 hours |\n", title="Backup standard")  # fmt: skip
    text = compose(
        _brief(restated("what is the RTO for tier 1 systems?", "and for tier 2?"), tiers)
    )
    assert text.startswith("Tier 2"), text


def test_still_on_a_replaced_system_is_answered_from_its_chain_when_its_successor_talks_of_it():
    import datetime as dt

    old = hit(1, "# Tessellate Interface Engine replaces BridgeWay\n\nWe move the interfaces to "
              "Tessellate 7 in 2019.\n", title="Tessellate Interface Engine replaces BridgeWay",
              canonical_type="decision", canonical_status="superseded", document_id=31)  # fmt: skip
    new = hit(2, "# Larkspur Integration Hub as our interface engine\n\n## The problem\n\n"
              "Tessellate's version 8 is sold only as a service hosted by the vendor. Tessellate 7 "
              "reaches end of support on 31 March 2026.\n\n## Decision\n\nWe move every "
              "interface to the Larkspur Integration Hub.\n",
              title="Larkspur Integration Hub as our interface engine",
              canonical_type="decision", canonical_status="accepted", document_id=32)  # fmt: skip
    link = supersede_link(
        (31, "Tessellate Interface Engine replaces BridgeWay", dt.date(2019, 5, 1)),
        (32, "Larkspur Integration Hub as our interface engine", dt.date(2025, 10, 13)),
    )
    text = compose(_brief("do we still use tessellate?", new, old, links=[link]))
    assert text.startswith("No: Tessellate Interface Engine replaces BridgeWay is superseded; "
                           "Larkspur Integration Hub as our interface engine replaced it"), text  # fmt: skip


def test_a_replaced_record_whose_successor_was_replaced_too_names_the_record_in_force():
    import datetime as dt

    first = hit(1, "# BridgeWay Integrator\n\nWe buy BridgeWay Integrator as our interface engine.\n",
                title="BridgeWay Integrator", canonical_type="decision",
                canonical_status="superseded", document_id=41)  # fmt: skip
    second = hit(2, "# Tessellate replaces BridgeWay\n\nWe move the interfaces to Tessellate 7.\n",
                 title="Tessellate replaces BridgeWay", canonical_type="decision",
                 canonical_status="superseded", document_id=42)  # fmt: skip
    third = hit(3, "# Larkspur Integration Hub\n\nWe move every interface to Larkspur.\n",
                title="Larkspur Integration Hub", canonical_type="decision",
                canonical_status="accepted", document_id=43)  # fmt: skip
    links = [
        supersede_link((41, "BridgeWay Integrator", dt.date(2014, 1, 1)),
                       (42, "Tessellate replaces BridgeWay", dt.date(2019, 5, 1))),
        supersede_link((42, "Tessellate replaces BridgeWay", dt.date(2019, 5, 1)),
                       (43, "Larkspur Integration Hub", dt.date(2025, 10, 13))),
    ]  # fmt: skip
    text = compose(_brief("are we still on bridgeway?", first, second, third, links=links))
    assert text.startswith(
        "No: BridgeWay Integrator is superseded; Tessellate replaces BridgeWay replaced it, "
        "which Larkspur Integration Hub replaced in turn [2][3]."
    ), text
    # the record in force is quoted, not the one between (never a stale value as current)
    assert "We move every interface to Larkspur [3]." in text, text
    for sentence in re.split(r"(?<=[.!?])\s+", text):
        assert "[2]" not in sentence or re.search(r"superseded|replaced", sentence), text


def test_a_rejected_approach_answers_a_question_its_summary_states():
    rejected = hit(1, "# Consumer messaging apps for clinical communication - not approved\n\n"
                   "## Rules that followed\n\nPatient-identifiable information must never be put "
                   "into a consumer messaging app, text message or personal email.\n",
                   title="Consumer messaging apps for clinical communication - not approved",
                   summary="Why consumer messaging apps (WhatsApp-style group chats) were "
                   "rejected for sharing patient information in 2023.",
                   canonical_type="rejected-approach", canonical_status="accepted")  # fmt: skip
    passwords = hit(2, "# Privileged access\n\nNever share a password. If a password has been "
                    "shared, report it to Information Security.\n", title="Privileged access",
                    canonical_type="standard", canonical_status="accepted")  # fmt: skip
    sources = number_sources(result([passwords], rejected=[rejected]))
    brief = build_brief(
        question=read_question("is whatsapp allowed for sharing patient info?"), sources=sources
    )
    assert compose(brief).startswith("Patient-identifiable information must never"), compose(brief)


def test_a_second_hop_states_what_is_left_out_itself_not_only_its_documents_summary():
    standard = hit(1, "# Standard: Logging\n\nEvery service logs JSON lines to stdout; the logs go "
                   "to OpenSearch.\n\n## Required fields\n\n| Field | Example | Notes |\n|---|---|---|\n"
                   "| ts | 2024-05-01T10:00:00Z | UTC |\n| level | info | see §3 |\n| service | "
                   "tracking-api | |\n", title="Standard: Logging", canonical_type="standard",
                   canonical_status="accepted")  # fmt: skip
    webhooks = hit(2, "# Carrier webhooks\n\n## Per-carrier details\n\n| Carrier | Format | Their "
                   "retry policy |\n|---|---|---|\n| FedEx | JSON | 3 retries over 15 min |\n",
                   title="Integration: Carrier tracking webhooks",
                   summary="What each carrier's webhook must include and how we verify it.",
                   canonical_type="standard", canonical_status="accepted")  # fmt: skip
    # "include" is left unstated by the list of fields; the webhook row says nothing of it
    # (only its document's summary does), and its "3 retries" shares only a number with "§3"
    brief = _brief("what fields do our service logs have to include?", standard, webhooks)
    assert all(s.source.hit.document_id != 20 for s in brief.support), brief.as_text()


def test_a_setting_the_question_names_by_its_identifier_is_found_in_a_table_row():
    # the question names the setting as written (underscores and all); the table states it
    # in a code span. It was refused: the name was looked for with its underscores, the
    # text without them
    module = hit(1, """# Module: Tracking ingest pipeline

## Key configuration

| Variable | Default | Meaning |
|----------|---------|---------|
| `INGEST_MAX_BATCH` | `500` | events per batch |
| `INGEST_DEDUPE_FAIL_OPEN` | `false` | skip dedupe if Redis is down (emergency only) |
""", title="Module: Tracking ingest pipeline", slug="mod-tracking-ingest")  # fmt: skip
    brief = _brief("What does the setting INGEST_DEDUPE_FAIL_OPEN do?", module)
    assert brief.answerable, brief.refusal
    assert "skip dedupe if Redis is down" in compose(brief)


def test_whether_a_record_is_accepted_is_answered_by_its_curated_status():
    # the record itself never says its status in its text; the handbook index's row for
    # another ADR ("Status: accepted") matched the question's words and was quoted instead
    index = hit(1, "| ADR | Slug | Status | Topic |\n|---|---|---|---|\n"
                   "| ADR-0011 | dec-cache-v2 | accepted | Redis Cluster with client-side tracking |\n",
                title="Handbook index", canonical_type="project-index",
                canonical_status="accepted", slug="handbook-index")  # fmt: skip
    record = hit(2, "Each tenant gets a token bucket at the API gateway: 100 requests per "
                    "second, bursts of 200.", title="ADR-0014: Per-tenant rate limiting at the "
                    "gateway", canonical_type="decision", canonical_status="review",
                 slug="dec-rate-limiting")  # fmt: skip
    brief = _brief("Is the rate limiting ADR accepted?", index, record)
    assert brief.answerable, brief.refusal
    text = compose(brief)
    assert text.startswith("ADR-0014: Per-tenant rate limiting at the gateway is in review, not"
                           " accepted [2]"), text  # fmt: skip
    assert text.count("in review") == 1, text  # said once, not again as a note


def test_the_status_of_a_record_is_said_only_when_asked():
    record = hit(2, "The review board meets every quarter and reviews every accepted record.",
                 title="Records review", canonical_type="policy", canonical_status="accepted")  # fmt: skip
    text = compose(_brief("what does the review board do?", record))
    assert "Records review is accepted" not in text, text
    text = compose(_brief("what is the status of the records review policy?", record))
    assert text.startswith("Records review is accepted"), text


def test_a_value_asked_is_not_answered_by_a_rejected_approach_only_its_summary_is_close_to():
    # the summary of a rejected alternative to metal detectors covers the question's words,
    # and one of its findings mentions how often metal detectors are checked in passing: it
    # led, ahead of the procedure's "Every 2 hours"
    rejected = hit(1, "# Not doing: X-ray inspection on every packing line\n\n## What we found\n\n"
                   "**Customer position.** The customer confirmed that a metal detector with "
                   "2-hourly checks and tighter test pieces meets its code.\n",
                   title="Not doing: X-ray inspection on every packing line",
                   summary="Why we test with metal detectors rather than X-ray on every line: "
                   "the trial, the customer's position and the cost.",
                   canonical_type="rejected-approach", canonical_status="accepted")  # fmt: skip
    procedure = hit(2, "# Metal detector tests\n\n## When to check\n\n"
                    "- Every 2 hours during production.\n- After any repair or setting change "
                    "on the detector.\n\n## Test pieces\n\nEach metal detector is tested with "
                    "three test pieces: ferrous, non-ferrous and stainless steel.\n",
                    title="Metal detector tests (QP-05)", canonical_type="procedure",
                    canonical_status="accepted")  # fmt: skip
    sources = number_sources(result([procedure], rejected=[rejected]))
    brief = build_brief(
        question=read_question("how often do we test the metal detectors"), sources=sources
    )
    text = compose(brief)
    assert text.startswith("When to check: Every 2 hours during production [1]"), text
    assert "customer confirmed" not in text, text


def test_the_closing_verb_of_how_long_did_it_last_asks_nothing_more():
    # "last" restates "how long": the postmortem that says how long never says "last"
    postmortem = hit(1, "# Postmortem: Sollia SCADA outage\n\n## Summary\n\nFor 5 hours 40 "
                     "minutes the operators had no view of the 18 turbines at Sollia during the "
                     "SCADA outage.\n", title="Postmortem: Sollia SCADA outage",
                     canonical_type="incident", canonical_status="accepted")  # fmt: skip
    for question in ("how long did the sollia scada outage last", "how long did it take"):
        assert "last" not in read_question(question).terms
    brief = _brief("how long did the sollia scada outage last?", postmortem)
    assert brief.answerable, brief.refusal
    assert compose(brief).startswith("For 5 hours 40 minutes"), compose(brief)


def test_an_incident_record_is_an_outage_and_an_incident_whatever_its_title_says():
    # readers call a postmortem's event an outage or an incident; its title names what broke
    postmortem = hit(1, "# Carn Dubh met mast data loss after lightning strike\n\n## Summary\n\n"
                     "The met mast sent no data for 6 hours 10 minutes after a lightning strike "
                     "damaged its converter.\n",
                     title="Carn Dubh met mast data loss after lightning strike",
                     canonical_type="incident", canonical_status="accepted")  # fmt: skip
    for question in (
        "how long was the met mast outage?",
        "how long did the met mast incident last?",
    ):
        brief = _brief(question, postmortem)
        assert brief.answerable, (question, brief.refusal)
        assert "6 hours 10 minutes" in compose(brief), compose(brief)


def test_a_bare_number_numbers_what_was_named_before_it_names_no_subject_of_its_own():
    from chat.services import ConversationState

    # "version 4" of the standard the turn before asked about ("when did version 4 come in?"
    # was searched on its own and refused)
    state = ConversationState(previous_question="who is the owner of the frozen dispatch standard?")
    assert state.carries_into(read_question("when did version 4 come in?"))
    assert state.carries_into(read_question("what about category 2?"))
    # ...while a code or a name is a subject of its own, and a first question leans on nothing
    assert not state.carries_into(read_question("when did QP-05 revision 4 come in?"))
    assert not ConversationState().carries_into(read_question("when did version 4 come in?"))


def test_a_how_to_answered_by_a_section_named_for_the_situation_is_not_sent_to_other_steps():
    # the steps of another section of the same document (data centre entry) were quoted for
    # "i lost my badge, what do i do?", ahead of the section about lost badges
    doc = hit(1, "# Badge and door access\n\n## Lost or stolen badges\n\nReport it to the "
              "security desk on extension 4400 straight away, at any time of day. The old badge "
              "is disabled within 15 minutes and a replacement is printed the next working "
              "day.\n\n## Data centres\n\n1. **Badge plus PIN.** Entry needs the badge and a "
              "personal PIN.\n2. **No tailgating.** Every person badges in and out.\n",
              title="Badge and door access", canonical_type="standard",
              canonical_status="accepted")  # fmt: skip
    text = compose(_brief("i lost my badge, what do i do?", doc))
    assert text.startswith(("Report it to the security desk", "The old badge")), text


def test_a_trusted_unit_that_holds_none_of_the_questions_words_never_leads():
    # a draft names who takes comments; an accepted page mentions the same person about
    # something else. The accepted page's sentence led: it named the same person
    draft = hit(1, "# Blade erosion repair (draft)\n\n**This is a draft.** Send comments to Olav Dahl "
                "by 2026-04-30.\n", title="Blade leading-edge erosion repair (draft)",
                canonical_type="standard", canonical_status="draft")  # fmt: skip
    other = hit(2, "# Turbine availability\n\nFigures are produced monthly by Olav Dahl's "
                "maintenance planning team from WindSight status data.\n",
                title="Turbine availability", canonical_type="standard",
                canonical_status="accepted")  # fmt: skip
    text = compose(_brief("who do i send comments on the erosion draft to?", draft, other))
    assert text.startswith("Send comments to Olav Dahl"), text


def test_how_old_asks_for_an_age_and_the_record_states_it_before_the_notes():
    standard = hit(1, "# Turbine climbing\n\n## Required before every climb\n\n1. **Full-body "
                   "harness** inspected within the last 6 months. Harnesses older than 10 years "
                   "from manufacture are scrapped.\n", title="Turbine climbing and working at "
                   "height", canonical_type="standard", canonical_status="accepted")  # fmt: skip
    notes = hit(2, "# Ops weekly - 11 March 2026\n\n- Safety: harness inspections. Reminder to "
                "all sites that harnesses need inspecting every 12 months.\n",
                title="Ops weekly - 11 March 2026")  # fmt: skip
    assert read_question("how old can a harness be?").kind == "duration"
    text = compose(_brief("how old can a harness be?", notes, standard))
    assert text.startswith("Required before every climb: Full-body harness"), text
    assert "10 years" in text.split("[")[0], text


def test_why_a_record_was_dropped_is_said_by_the_reasons_of_the_record_that_replaced_it():
    # the migration section names Burrow more often than the problem section does
    old, new, link = _queue_chain(
        "# Moving to Streamline\n\n## The problem\n\nVersion 7 reaches end of support in "
        "March 2026, and renewal would double the cost.\n\n## Migration\n\nBurrow queues "
        "moved to Streamline in three waves; Burrow MQ ran read-only after the third wave.\n"
    )
    brief = _brief("why did we move off burrow", old, new, links=[link])
    assert brief.answerable
    assert "end of support" in brief.lead.unit.text, brief.lead.unit.text


def test_a_why_questions_date_says_when_it_happened_not_what_was_in_force():
    old, new, link = _queue_chain(
        "# Moving to Streamline\n\nEffective 1 March 2025.\n\n## The problem\n\nBurrow MQ "
        "reaches end of support in 2026 and renewal would double the cost.\n"
    )
    text = compose(_brief("why did the queue change in 2025?", old, new, links=[link]))
    assert not text.startswith("In 2025"), text
    assert "end of support" in text, text


def test_how_long_an_outage_lasted_is_a_span_of_time_not_a_length():
    # "how long is the blade" may ask for a length; an outage, a wait or a retention lasts
    assert read_question("how long is the blade on the NV-4.2?").value_kinds >= {"quantity"}
    for asked in (
        "how long was the met mast outage",
        "how long did the sollia incident last?",
        "how long is the retention for backups",
        "how long is the downtime window",
    ):
        assert read_question(asked).value_kinds == {"duration"}, asked
    incident = hit(1, """# Met mast data loss after a lightning strike

## What happened

At 09:20 the met mast stopped sending data: wind speed at 40, 80 and 112 m went to "no data".

## Duration

| | |
|---|---|
| Data lost from | 09:20 |
| Data restored | 15:30 |
| Duration | **6 h 10 min** |
""", title="Met mast data loss after a lightning strike", canonical_type="incident",
        canonical_status="accepted")  # fmt: skip
    text = compose(_brief("how long was the met mast outage", incident))
    assert "6 h 10 min" in text.split("[")[0], text


_RESULTS_OUTAGE = """# Lab results not reaching the EPR - 17 February 2026

## Summary

On the morning of 17 February 2026, results from Vireo LIS stopped arriving in Aster EPR at all three hospitals.

## Timeline

| Time | What happened |
|---|---|
| 06:48 | The shared archive volume reaches 100%. Larkspur starts rejecting result messages from Vireo |
| 12:49 | Queue below 100 messages, results flowing normally. Incident resolved |
"""
_RECOVERY_TIERS = """# Backup and recovery

## Recovery tiers

| Tier | Systems | RPO | RTO |
|---|---|---|---|
| Tier 1 | Aster EPR, Larkspur Integration Hub, Vireo LIS | 15 minutes | 4 hours |
| Tier 2 | MyRiverside portal, email, file shares | 24 hours | 24 hours |
"""


def test_a_value_asked_of_what_another_document_describes_is_found_across_the_two():
    # multi-hop: the outage names the system, the recovery standard gives that system's
    # RTO; neither alone states what the question asks about its subject
    outage = hit(1, _RESULTS_OUTAGE, title="Lab results not reaching the EPR - 17 February 2026",
                 canonical_type="incident", canonical_status="accepted")  # fmt: skip
    tiers = hit(2, _RECOVERY_TIERS, title="Backup and recovery", canonical_type="standard",
                canonical_status="accepted")  # fmt: skip
    brief = _brief("what's the RTO for the system that fell over in the feb results outage",
                   tiers, outage)  # fmt: skip
    assert brief.answerable, brief.refusal
    text = compose(brief)
    assert text.startswith("Tier 1"), text
    assert "4 hours" in text and "[2]" in text, text  # the bridge is quoted and cited
    assert read_question("whats the number for whoever is on call that week").describes
    assert not read_question("minimum allergen changeover time on hb3?").describes
    assert not read_question("whats the RTO for the stratus historian").describes
    # a subject the question names is not looked for through another document: the
    # recovery tiers do not list it, and an outage naming Vireo does not make it Tier 1
    assert not _brief("whats the RTO for the stratus historian", tiers, outage).answerable
    # an outage nobody wrote up has no system to bridge to: refused
    assert not _brief("what's the RTO for the system that fell over in the badge printer "
                      "outage", tiers, outage).answerable  # fmt: skip


_SPILL = """# Eastgate SPS pump failures and storm overflow spill - 14 June 2026

Review chaired by Ines Carrow, Director of Wastewater Services, on 20 June 2026.

## At a glance

- **Site:** Eastgate sewage pumping station (SPS), SITE. It has three pumps: normally one duty and two standby.
- **What failed:** pump 1 tripped on overcurrent, blocked by rags.
- **Spill:** storm overflow **EG-CSO2** discharged diluted sewage into Holmwick Bay from 09:10 to 11:40, **2 hours 30 minutes**.
"""
_AREAS = """# Who's who

## Operating areas

| Area | What it covers | Manager |
|---|---|---|
| Holmwick wastewater area | Holmwick WwTW (activated sludge) and its catchment pumping stations, including Eastgate SPS and Mill Lane SPS | Rhona Vale, Wastewater Operations Manager |
| Dunmere wastewater area | Dunmere WwTW (trickling filters) and its pumping stations, including Ferry Road SPS | Amos Keld, Wastewater Operations Manager |
"""


def test_who_holds_a_role_for_what_another_document_describes_is_found_across_the_two():
    # multi-hop: the incident says which station spilled, the who's-who who manages it
    areas = hit(2, _AREAS, title="Who's who", canonical_type="project-index",
                canonical_status="accepted")  # fmt: skip
    question = (
        "who's the manager responsible for the pumping station that spilled into the bay in june"
    )
    assert read_question(question).described == words.terms("spilled into the bay in june")
    for site in (
        # the incident's units answer nothing alone: the pair's value is the one naming the
        # manager, the unit saying the description is the bridge (not the other way round)
        "the terminal pumping station that lifts most of Holmwick town's sewage to Holmwick WwTW",
        # ...and where its own line answers alone (a place is taken for a name), the pair
        # through its document leads when together they state more of the question
        "the pumping station responsible for Holmwick town sewage, which spilled into "
        "Holmwick Bay in June on its way to Holmwick WwTW",
    ):
        incident = hit(1, _SPILL.replace("SITE", site), canonical_type="incident",
                       canonical_status="accepted",
                       title="Eastgate SPS pump failures and storm overflow spill - 14 June 2026")  # fmt: skip
        brief = _brief(question, incident, areas)
        assert brief.answerable, brief.refusal
        text = compose(brief)
        assert text.startswith("Holmwick wastewater area"), text
        assert "Rhona Vale" in text and "Amos Keld" not in text, text
        assert "[1]" in text, text  # the incident is cited beside the manager


def test_who_is_not_answered_by_the_name_of_a_place():
    generators = hit(1, """# Standby generators: testing and fuel

## Generators we have

| Site | Generators | Rating each | Location |
|---|---|---|---|
| Riverside General Hospital | 3 (RGH-G1, G2, G3) | 1,250 kVA | Energy centre, north service yard |
| St Brigid's Hospital | 2 (SBH-G1, G2) | 800 kVA | Estates block plant room |

## Contacts

Estates duty engineer, 24/7, through switchboard. Requests to move a monthly test date go to Colin Barrett at least 10 working days before the first Tuesday concerned.
""", title="Standby generators: testing and fuel", canonical_type="standard",
        canonical_status="accepted")  # fmt: skip
    # (the ranking, not the near-miss rule: one document is too few to weigh "ask" by)
    text = compose(_brief("who do i ask to move a generator test?", generators, refuse=False))
    assert text.startswith("Requests to move a monthly test date go to Colin Barrett"), text
    assert not is_person_like(values_in("the Riverside General Hospital site")[0])
    assert is_person_like(values_in("call Colin Barrett today")[0])


def test_how_many_hours_is_answered_by_a_span_of_hours():
    assert (
        "duration" in read_question("how many hours of scheduled service are excluded?").value_kinds
    )
    assert "duration" in read_question("how many working days notice do we give?").value_kinds
    assert "duration" not in read_question("how many turbines are at carn dubh?").value_kinds
    availability = hit(1, """# Turbine availability

## Excluded hours

These hours are taken out of both the top and the bottom of the formula:

1. **Grid outages and curtailment** ordered by the grid operator.
2. **Scheduled service** by Nordvik, up to **60 hours per turbine per year**; anything beyond 60 hours counts as unavailable.
""", title="Turbine availability - what we mean and how we count it")  # fmt: skip
    text = compose(_brief("how many hours of scheduled service are excluded?", availability))
    assert "60 hours per turbine per year" in text, text
    # a span in other units does not say how many days
    proposal = hit(2, "# On-call proposal\n\nThe on-call technician must answer the ROC within "
                      "15 minutes and starts the next day no earlier than 11 hours after the "
                      "call-out ended.\n", title="On-call proposal")  # fmt: skip
    assert not _brief("how many days of annual leave do technicians get", proposal).answerable


def test_the_best_row_is_read_in_the_column_asked_even_with_a_percent_sign():
    availability = hit(1, """# Turbine availability

## 2025 results

| Site | Turbines | Availability 2025 |
|---|---|---|
| Brekken Ridge | 24 | 97.4% |
| Sollia Heights | 18 | 96.1% |
| Carn Dubh | 12 | 97.8% |
| Fleet (turbine-weighted) | 54 | 97.1% |
""", title="Turbine availability - what we mean and how we count it")  # fmt: skip
    best = compose(_brief("which site had the best availability last year?", availability))
    assert best.startswith("Carn Dubh"), best
    worst = compose(_brief("which site had the lowest availability in 2025?", availability))
    assert worst.startswith("Sollia Heights"), worst


def test_what_do_i_need_is_answered_by_the_whole_list_the_following_announces():
    assert read_question("what do i need in place before a device goes on the network").wants_list
    assert read_question("what are the requirements for a visitor badge?").wants_list
    standard = hit(1, """# Connecting medical devices to the network

## Required before a device is connected

A device may be connected to the MDN only when **all three** of the following are in place. Clinical Engineering checks item 1; Information Security checks the rest.

1. **Inventory entry.** The device has an EBME asset number and is recorded in the device inventory.
2. **MDS2 form on file.** The manufacturer's security disclosure is saved against the device class.
3. **No direct internet access.** MDN VLANs have no route to the internet.

## Monitoring

Clinical Engineering reviews the network logs of every connected device each month.
""", title="Connecting medical devices to the network", canonical_type="standard",
        canonical_status="accepted")  # fmt: skip
    text = compose(_brief("what do i need in place before a medical device goes on the network",
                          standard))  # fmt: skip
    listed = text.split("[1]")[0]  # the list first, whole
    for item in ("Inventory entry", "MDS2 form on file", "No direct internet access"):
        assert item in listed, text
    # the sentence announcing the list is matched with its items ("in place")
    brief = _brief("what do i need in place before a medical device goes on the network",
                   standard)  # fmt: skip
    assert "in place" in brief.lead.unit.intro, brief.lead.unit
    # of two lists, the one said to be required, not the one sharing more words
    moves = hit(2, """# Connecting medical devices to the network

## Changes and moves

- Moving a device to another ward or site: Clinical Engineering updates the inventory, the network team moves the port to the right VLAN.
- New software version: Clinical Engineering gets the new MDS2 form.
""", title="Connecting medical devices to the network", canonical_type="standard",
        canonical_status="accepted")  # fmt: skip
    text = compose(_brief("what do i need in place before a medical device goes on the network",
                          moves, standard))  # fmt: skip
    assert text.startswith("Required before a device is connected"), text


def test_which_person_asks_who():
    # "which architect", "which Castilian monarchs": a person answers, as for "who"
    for asked in (
        "Which architect designed the titanium-clad Guggenheim Museum Bilbao?",
        "Which Castilian monarchs signed the Treaty of Tordesillas?",
        "which engineer built the Forth Bridge?",
    ):
        assert read_question(asked).kind == "person", asked
    assert read_question("which interface engine are we on?").kind != "person"
    assert read_question("which vendor scored best?").kind != "person"
    titanium = hit(1, "# Titanium\n\nThe metal is used in the Lockheed SR-71 Blackbird "
                      "aircraft and in architecture: the Guggenheim Museum Bilbao, opened in "
                      "1997, is clad in thin titanium panels.\n",
                   title="Titanium")  # fmt: skip
    assert not _brief("Which architect designed the titanium-clad Guggenheim Museum Bilbao?",
                      titanium).answerable  # fmt: skip
    bridge = hit(1, "# Forth Bridge\n\nThe bridge was designed by the engineers John Fowler "
                    "and Benjamin Baker and opened in 1890.\n", title="Forth Bridge")  # fmt: skip
    assert "John Fowler" in compose(_brief("which engineer designed the Forth Bridge?", bridge))


def test_a_month_or_a_day_is_no_name():
    found = values_in("A proof of concept ran with three vendors between May and July 2025, "
                      "and the review met on Monday.")  # fmt: skip
    assert not [v.text for v in found if v.kind == "name"], found
    assert [v.text for v in values_in("It was approved by Ingrid Solberg in May.")
            if v.kind == "name"] == ["Ingrid Solberg"]  # fmt: skip


def test_how_quick_asks_for_a_span_of_time():
    # "how quick", like "how quickly" and "how soon", asks for a span of time
    for asked in (
        "how quick does the lab have to phone a critical result?",
        "how quickly does the lab have to phone a critical result?",
    ):
        assert read_question(asked).kind == "duration", asked
    critical = hit(1, "# Critical results\n\nA critical result is a result so far outside the "
                      "expected range that the patient may come to harm unless someone acts on "
                      "it quickly.\n\n## Who phones whom, and how fast\n\n- Inpatients: the lab "
                      "must phone the ward within 30 minutes of the result.\n",
                   title="Critical results")  # fmt: skip
    text = compose(_brief("how quick does the lab have to phone a critical result for an "
                          "inpatient?", critical))  # fmt: skip
    assert re.search(r"\b30 minutes\b", text), text


def test_a_nationality_the_question_asks_of_its_subject_must_be_stated():
    # "into Italian" is what is asked about; "which American novelist" only qualifies the
    # answer, which need not say it
    moby = hit(1, "# Moby-Dick\n\nMoby-Dick is a novel by Herman Melville, published in 1851 "
                  "in London by Richard Bentley.\n", title="Moby-Dick")  # fmt: skip
    idf = {"moby": 5.0, "dick": 5.0, "moby-dick": 5.0, "italian": 3.0, "translat": 1.0,
           "publish": 1.0, "london": 2.0, "american": 1.2, "novelist": 2.0, "wrote": 0.5}  # fmt: skip

    # the novel's sentence is as close in meaning as the embedder finds it (0.63)
    def close(texts):
        return [0.63] * len(texts)

    assert not _brief("Who translated Moby-Dick into Italian?", moby, weights=idf,
                      meaning=close).answerable  # fmt: skip
    text = compose(_brief("Who published Moby-Dick in London?", moby, weights=idf, meaning=close))
    assert "Richard Bentley" in text, text
    text = compose(_brief("Which American novelist wrote Moby-Dick?", moby, weights=idf,
                          meaning=close))  # fmt: skip
    assert "Herman Melville" in text, text


def test_a_span_naming_a_kind_of_thing_is_part_of_the_subject_not_the_value_asked():
    # "10 minute averages" are a kind of data, not ten minutes asked about
    asked = read_question("how long are the 10 minute aggregates kept?")
    assert {"10", "minute"} <= set(asked.terms), asked.terms
    assert "10" not in read_question("are raw messages kept for 90 days?").terms
    record = hit(1, "# Turbine data historian\n\n## Retention\n\n| Data | Retention |\n|---|---|\n"
                    "| 1-second raw data | 90 days |\n| 10-minute aggregates | Lifetime of the "
                    "asset, minimum 25 years |\n| Alarm history | 5 years |\n",
                 title="Turbine data historian", canonical_type="decision",
                 canonical_status="accepted")  # fmt: skip
    blog = hit(2, "# Historian news\n\nThe April announcement mentioned keeping raw 1-second "
                  "data for 180 days, and the aggregates kept as they are.\n",
               title="Historian news", source_type="blog")  # fmt: skip
    text = compose(_brief("how long are the 10 minute aggregates kept?", record, blog))
    assert text.startswith("10-minute aggregates"), text
    assert "25 years" in text.split("[")[0], text


def test_the_sentence_going_on_from_the_lead_supports_it():
    # "Until that is approved ..." says what "that" leads to: it is read with the lead
    feed = hit(1, "# Results feed\n\n## Portal\n\nThe release delay for portal results is being "
                  "reviewed in a draft proposal. Until that is approved the current rule stays: "
                  "results are released to the portal 7 days after authorisation. Only test "
                  "groups on the portal release list are copied to the portal results store. "
                  "The feed copies portal results over HTTPS with mutual TLS.\n",
               title="Results feed", canonical_type="decision",
               canonical_status="accepted")  # fmt: skip
    text = compose(_brief("is the release delay for portal results live yet?", feed))
    assert text.startswith("The release delay"), text
    # right after the sentence "that" stands for, not after another quote
    assert text.index("Until that is approved") < text.index("Only test groups"), text


def test_a_table_opening_a_chunk_is_introduced_by_the_item_before_it_not_a_cut_paragraph():
    # the chunk before opens mid-item (chunk overlap) and ends with the item "Retention:"
    before = hit(1, "through a one-way gateway at the data centre. No control commands "
                    "travel back to the turbines.\n- **Retention:**\n",
                 title="Historian decision", document_id=7, chunk_order=3,
                 heading_path="What we agreed")  # fmt: skip
    table = hit(2, "| Data | Retention |\n|---|---|\n| 1-second raw turbine data | **90 days** |\n"
                   "| Alarm and event history | 5 years |\n",
                title="Historian decision", document_id=7, chunk_order=4,
                heading_path="What we agreed")  # fmt: skip
    brief = _brief("what is the retention of raw turbine data?", table, before)
    assert "90 days" in compose(brief), compose(brief)
    # a list of the rows is quoted after its lead-in "Retention", not the cut sentence
    assert {s.unit.context for s in brief.ranked if s.unit.kind == "row"} == {"Retention"}


def test_what_a_record_replaces_does_not_answer_what_is_used_now():
    record = hit(1, "# Moving to Fabrica MES\n\n| Item | Value |\n|---|---|\n| Decided | 22 "
                    "January 2025 |\n| Replaces | MES selection 2023: Tracto MES, on-premises, which had replaced our LineLog MES |\n\n"
                    "## Decision\n\nAll three sites move to Fabrica MES, a cloud product from "
                    "Kelvar Software.\n", title="Moving to Fabrica MES", canonical_type="decision",
                 canonical_status="accepted")  # fmt: skip
    text = compose(_brief("what MES do we use?", record))
    assert text.startswith("All three sites move to Fabrica MES"), text
    text = compose(_brief("what MES did we use before Fabrica?", record))
    assert "Tracto MES" in text.split("[")[0], text


def test_a_how_to_led_by_a_row_of_what_must_never_be_done_is_not_sent_to_the_steps():
    runbook = hit(1, "# Remote reset of turbine faults\n\n## Rules\n\n- **Never remote reset "
                     "these fault codes** - they always need a site visit:\n\n| Code | Fault |\n"
                     "|---|---|\n| 1001 | Rotor overspeed |\n| 1400 | Fire detection |\n\n"
                     "## Procedure\n\n1. Check the active alarm and note the fault code.\n"
                     "2. Reset the turbine from the ROC console.\n3. Watch the turbine for 15 "
                     "minutes.\n", title="Remote reset of turbine faults", canonical_type="runbook",
                  canonical_status="accepted")  # fmt: skip

    # the embedder finds the fire row closest, and it leads (as it does in the gold corpus)
    def meaning(texts):
        return [0.6 if "Fire" in text else 0.3 for text in texts]

    text = compose(_brief("what do I do if a turbine catches fire?", runbook, meaning=meaning))
    assert "Reset the turbine" not in text, text
    assert "Fire detection" in text and "Never remote reset" in text, text
    # asked how to do what the rule forbids for the case asked: the rule answers
    text = compose(_brief("how do I reset a turbine after a fire alarm?", runbook))
    assert text.startswith("Never remote reset"), text
    assert "Reset the turbine from the ROC console" not in text, text
    text = compose(_brief("can I reset a turbine remotely after a rotor overspeed?", runbook))
    assert "Never remote reset" in text and "Rotor overspeed" in text, text
    text = compose(_brief("how do I reset a turbine after an alarm?", runbook))
    assert "Reset the turbine from the ROC console" in text, text


def test_a_count_names_what_it_counts_not_the_word_after():
    # "150 RLU or below": 150 RLU, not "150 rlu or"
    counts = [v for v in values_in("The pass limit is 150 RLU or below.") if v.kind == "count"]
    assert [v.text for v in counts] == ["150 rlu"], counts
    counts = [v for v in values_in("We have 6 nodes and 2 spares.") if v.kind == "count"]
    assert [v.text for v in counts] == ["6 nodes", "2 spares"], counts


def test_it_in_a_follow_up_is_what_the_answer_before_led_with():
    from chat.answers.evidence import earlier_subject

    incident = hit(1, "# SF-2 spiral freezer stop\n\n## At a glance\n\n- **What stopped:** "
                      "spiral freezer SF-2, which freezes all CH2 ready meals.\n- **Downtime:** "
                      "02:14 to 07:52, **5 hours 38 minutes**.\n", title="SF-2 spiral freezer "
                      "stop, Coldhurst - 14 January 2026", slug="inc-sf2-freezer-stop")  # fmt: skip
    guarding = hit(2, "# Machine guarding\n\n## Entering a spiral freezer (SF-1, SF-2)\n\nThe "
                      "spiral freezers run at -35 C. Entry is allowed only:\n\n- for a maximum of "
                      "20 minutes per entry, followed by at least 15 minutes in a warm area.\n",
                   title="Machine guarding and lockout", slug="machine-guarding")  # fmt: skip
    earlier = earlier_subject("what happened with the sf2 freezer in january?")
    text = compose(_brief("how long was it down?", guarding, incident, earlier_terms=earlier,
                          earlier_lead="inc-sf2-freezer-stop"))  # fmt: skip
    assert "5 hours 38 minutes" in text.split("[")[0], text


def test_a_trusted_source_stands_in_only_for_the_subject_asked():
    # the accepted climbing standard's "two people" is about climbing, not the draft's rope
    # access repairs: it does not lead an answer about those, however alike the two read
    draft = hit(1, "# Blade repair (draft)\n\n## Proposed working conditions\n\n- Repairs by "
                   "rope access or blade platform, teams of at least 3 people (two on the "
                   "blade, one rescue-ready at the nacelle).\n- Minimum blade surface "
                   "temperature of 10 C.\n", title="Blade leading-edge erosion repair (draft)",
                canonical_type="standard", canonical_status="draft", slug="std-blade-repair")  # fmt: skip
    climb = hit(2, "# Turbine climb standard\n\n## Required before every climb\n\n- At least "
                   "two people. There is no lone climbing. Two trained people must be at the "
                   "turbine; one may stay at the base as the rescue partner.\n",
                title="Turbine climb standard", canonical_type="standard",
                canonical_status="accepted", slug="sp-04")  # fmt: skip
    text = compose(_brief("how many people do you need for a rope access blade repair?", draft,
                          climb))  # fmt: skip
    assert text.startswith("Proposed working conditions: Repairs by rope access"), text


def test_a_numbered_list_of_open_questions_is_no_procedure():
    from chat.answers.units import split_units

    draft = ("# Blade repair (draft)\n\n## Proposed repair triggers\n\n| Category | Description "
             "| Proposed action |\n|---|---|---|\n| 4 | Laminate damaged | Repair within 1 month |"
             "\n| 5 | Structural damage | Stop the turbine until assessed by Nordvik |\n\n"
             "## Open questions\n\n1. Should category 2 repairs on a blade be done by our own "
             "technicians?\n2. Do we need a lower wind limit for rope access work on the "
             "blades?\n3. Budget: EUR 220,000 for blade repairs in 2026.\n")  # fmt: skip
    listed = [u for u in split_units(draft) if u.section == "Open questions"]
    assert len(listed) == 3 and not any(u.step for u in listed), listed
    steps = "## Steps\n\n1. Stop the turbine.\n2. Call Nordvik?\n3. Lock the rotor.\n"
    assert all(u.step for u in split_units(steps)), split_units(steps)
    text = compose(_brief("what do we do if a blade has structural damage?",
                          hit(1, draft, title="Blade repair (draft)")))  # fmt: skip
    assert text.startswith("5 — Description: Structural damage"), text
    assert "Open questions" not in text, text


def test_an_elliptical_follow_up_naming_a_thing_of_its_own_asks_of_that_thing():
    from chat.answers.evidence import earlier_subject
    from chat.answers.question import read_follow_up

    earlier = "how long can pallets sit in the marshalling area?"
    asked = read_follow_up(earlier, "and the trailer doors?")
    assert asked.kind == "duration" and asked.terms == {"trailer", "door"}, asked
    assert {"pallet", "area"} <= asked.carried, asked
    # naming nothing of its own, it is the question before it again
    assert read_follow_up("what is the RTO for tier 1?", "and for the others?").terms >= {"rto"}
    # naming a name, the name replaces the one of its shape
    assert "rto" not in read_follow_up("what is the RTO for tier 1?", "and the RPO?").terms
    loading = hit(1, "# Frozen dispatch\n\n## Loading\n\n- Pallets may wait in the marshalling "
                     "area for no more than 15 minutes before going onto the trailer.\n- The "
                     "trailer doors must not be open for more than 45 minutes in total per "
                     "trailer.\n", title="Frozen storage and dispatch")  # fmt: skip
    brief = build_brief(
        question=asked,
        sources=number_sources(result([loading])),
        earlier_terms=earlier_subject(earlier),
    )
    text = compose(brief)
    assert text.startswith("Loading: The trailer doors must not be open for more than 45"), text
    # another document's unit naming the thing asked but nothing of the subject carried
    # ("and at carn dubh?" after the ice exclusion zone: not Carn Dubh's warranty)
    zone = hit(1, "# Ice risk\n\n## Exclusion zone\n\n- Brekken Ridge: exclusion radius 350 m.\n"
                  "- Carn Dubh: exclusion radius 375 m.\n", title="Ice risk procedure")  # fmt: skip
    warranty = hit(2, "# Availability\n\nCarn Dubh is not covered by the service agreement. "
                      "Its turbines are under a separate warranty agreement from commissioning in "
                      "2023; Procurement holds its terms.\n", title="Availability")  # fmt: skip
    earlier = "whats the exclusion zone around a turbine with ice on it"
    text = compose(build_brief(question=read_follow_up(earlier, "and at carn dubh?"),
                               sources=number_sources(result([zone, warranty])),
                               earlier_terms=earlier_subject(earlier)))  # fmt: skip
    assert text.startswith("Exclusion zone: Carn Dubh: exclusion radius 375 m"), text
    assert "warranty" not in text, text


def test_a_year_inside_a_code_is_part_of_the_code():
    # "FSA-2019-07" is an agreement's number, not a date in 2019
    for text, code in (
        ("under the agreement FSA-2019-07, which covers", "FSA-2019-07"),
        ("incident RL-2025-0412 was closed", "RL-2025-0412"),
        ("All frozen deliveries use Pennine under contract PCL-2024-03.", "PCL-2024-03"),
    ):
        found = [(v.kind, v.text) for v in values_in(text)]
        assert ("code", code) in found and not any(k == "date" for k, _ in found), found
    # a range of years is two years, an ISO date one date
    assert [v.text for v in values_in("the war (1618-1648) ended") if v.kind == "date"] == [
        "1618",
        "1648",
    ]
    assert [v.text for v in values_in("approved on 2025-03-10 by") if v.kind == "date"] == [
        "2025-03-10"
    ]


def test_a_things_number_is_the_code_that_identifies_it():
    assert read_question("what's their contract number?").identifies == "contract"
    assert read_question("what is the asset no. of the analyser?").identifies == "asset"
    assert not read_question("what's the phone number for the service desk?").identifies
    assert not read_question("what is the number of turbines at Brekken?").identifies
    assert not read_question("how many turbines do we have?").identifies
    haulage = hit(1, "# Frozen dispatch\n\n## Trailers\n\nAll frozen deliveries use Pennine Cold "
                     "Logistics under contract PCL-2024-03. The trailer must be clean (see "
                     "WT-02).\n", title="Frozen storage and dispatch (WT-02)")  # fmt: skip
    text = compose(_brief("what is the contract number for our frozen deliveries?", haulage))
    assert "PCL-2024-03" in text.split("[")[0], text
    # a contract named without its number does not answer it
    named = hit(1, "# Cleaning\n\nThe cleaning contract with Brightway (see QP-07) runs to "
                   "2027.\n", title="Cleaning services")  # fmt: skip
    assert not _brief("what's the contract number for the cleaning?", named).answerable
    # ...or the number written right after it
    element = hit(1, "# Titanium\n\nTitanium is a chemical element with atomic number 22 and "
                     "symbol Ti.\n", title="Titanium")  # fmt: skip
    assert "22" in compose(_brief("What is titanium's atomic number?", element)).split("[")[0]


def test_a_follow_up_naming_only_a_year_asks_of_the_subject_before():
    from chat.services import ConversationState

    state = ConversationState(previous_question="what is our fleet availability target?")
    # a year qualifies what was asked before; it is no subject of its own
    assert state.carries_into(read_question("what did we actually get in 2025?"))
    assert state.carries_into(read_question("what was it in 2024?"))
    # ...a rare word still is
    assert not state.carries_into(read_question("what did the gearbox cost in 2025?"))


def test_a_paragraphs_bold_title_is_the_context_of_its_sentences():
    from chat.answers.units import split_units

    rules = ("# Privileged access\n\n## The rules\n\n**6. Password vault.** Service account and "
             "built-in administrator passwords are stored in the PAM vault and rotated every 90 "
             "days.\n\n**8. Access reviews.** Team leads confirm every quarter that each admin "
             "account in their area is still needed. Accounts not confirmed are disabled.\n\n"
             "**We use named accounts only.** They are created by the service desk.\n")  # fmt: skip
    units = {u.text: u for u in split_units(rules)}
    assert "Access reviews" in units["Accounts not confirmed are disabled."].context, units
    # a bold statement of more words is a statement, not a title
    assert "named accounts" not in units["They are created by the service desk."].context or (
        units["They are created by the service desk."].context.startswith("We use")
    )
    text = compose(_brief("how often are admin accounts reviewed?", hit(1, rules,
                          title="Privileged access", canonical_type="standard",
                          canonical_status="accepted")))  # fmt: skip
    assert text.startswith("Team leads confirm every quarter"), text


def test_a_lead_opening_with_a_pronoun_is_quoted_after_what_it_stands_for():
    rules = hit(1, "# Privileged access\n\n## Exceptions\n\nExceptions are requested from "
                   "Marcus Lee with a reason and an end date. They are reviewed every six "
                   "months.\n", title="Privileged access", canonical_type="standard",
                canonical_status="accepted")  # fmt: skip
    text = compose(_brief("how often are exceptions reviewed?", rules))
    assert text.startswith(
        "They are reviewed every six months [1]. Exceptions are requested from Marcus Lee with "
        "a reason and an end date [1]."
    ), text


def test_a_sentence_that_asks_answers_nothing():
    draft = hit(1, "# Supplier approval (draft)\n\n## Proposed requirements for approval\n\n1. A "
                   "current certificate to a GFSI-recognised scheme: BRCGS Food Safety or FSSC "
                   "22000.\n2. A completed supplier questionnaire.\n\n## Open questions for "
                   "reviewers\n\n- Who approves exceptions when a sole supplier loses its "
                   "certificate?\n- Should haulage be medium risk?\n",
                title="Supplier approval and monitoring (draft)")  # fmt: skip
    text = compose(_brief("what certificate does a new supplier need?", draft))
    assert text.startswith("Proposed requirements for approval: A current certificate"), text
    # ...and a question the document only asks is not answered with its own words
    assert not _brief("who approves exceptions when a sole supplier loses its certificate?",
                      draft).answerable  # fmt: skip
    assert not _brief("is haulage medium risk?", draft).answerable


def test_who_are_the_people_of_a_role_asks_for_all_of_them():
    assert read_question("who are the duty managers on the q2 rota").wants_list
    assert read_question("who were the engineers on the project?").wants_list
    assert not read_question("who is the duty manager this week?").wants_list
    assert not read_question("who approves exceptions?").wants_list
    rota = hit(1, "# On-call rota Q2\n\n| Week of | Integration | Duty manager |\n|---|---|---|\n"
                  "| 6 Apr 2026 | Sofia Lindqvist | Owen Gallagher |\n| 13 Apr 2026 | Aisha "
                  "Bello | Lucy Brennan |\n| 20 Apr 2026 | Kieran Doyle | Marcus Lee |\n",
               title="Clinical IT on-call rota Q2 2026")  # fmt: skip
    text = compose(_brief("who are the duty managers on the q2 rota", rota))
    for name in ("Owen Gallagher", "Lucy Brennan", "Marcus Lee"):
        assert name in text, text


def test_a_question_of_two_parts_is_answered_in_both():
    asked = read_question("how much for 40 packs of blood agar plates and do i need to get quotes?")
    assert asked.then == words.terms("quotes"), asked.then
    assert not read_question("what is the RTO and RPO for the EPR?").then
    prices = hit(1, "# Lab consumables price list 2026\n\nWards order through RiverBuy using the "
                    "item code. Because the prices are already agreed, no quotes are needed, but "
                    "each order still needs approval.\n\n| Code | Item | Pack | Price per pack "
                    "(GBP) |\n|---|---|---|---|\n| RPL-1070 | Blood agar plates | 20 | 13.40 |\n"
                    "| RPL-1071 | Chocolate agar plates | 20 | 15.10 |\n",
                 title="Lab consumables price list 2026")  # fmt: skip
    text = compose(_brief("how much for 40 packs of blood agar plates and do i need to get quotes?",
                          prices))  # fmt: skip
    assert "13.40" in text and "no quotes are needed" in text, text
    # ...whichever part the lead answers
    backups = hit(1, "# Backup\n\nNightly backups are kept for 35 days on the backup appliance.\n\n"
                     "The off-site copy of every Sunday's backup is in the secondary data centre "
                     "in Stjordal.\n\nA full restore is tested once per quarter.\n", title="WindSight backup")  # fmt: skip
    text = compose(_brief("how long do we keep nightly backups and where is the off-site copy?",
                          backups))  # fmt: skip
    assert "35 days" in text and "Stjordal" in text, text


def test_a_single_digit_the_question_names_must_be_stated():
    # "category 5" is not "category 2": a one-digit number names what is asked about too
    draft = hit(1, "# Blade repair\n\nIn the 2025 inspection, 31 of our 162 blades showed "
                   "category 2 erosion or worse.\n\n| Category | Description |\n|---|---|\n| 4 | "
                   "Laminate damaged |\n| 5 | Structural damage |\n", title="Blade repair")  # fmt: skip
    assert not _brief("how many blades had category 5 damage in 2025?", draft).answerable
    assert _brief("how many blades had category 2 erosion in 2025?", draft).answerable


def test_how_long_something_is_kept_is_answered_by_a_retention():
    for asked in (
        "how long are the windsight backups kept",
        "How long is the topic retained?",
        "how long do we keep dispatch logs?",
        "how long are door events stored?",
    ):
        assert read_question(asked).keeps, asked
    for asked in (
        "how long can you work inside the frozen store?",
        "how long did the outage last?",
        "how long does a restore take?",
    ):
        assert not read_question(asked).keeps, asked
    backup = hit(1, "# Backup\n\n## Restore tests\n\n| Quarter | Restore time | Result |\n|---|---|"
                    "---|\n| Q1 2026 | 5 h 20 min | Pass |\n\nThe most recent restore test took 5 "
                    "hours 20 minutes.\n\n## Retention\n\nNightly backups are kept for 35 days.\n",
                 title="Backup standard")  # fmt: skip
    # a restore test's duration is no time anything is kept
    assert not _brief("how long are restore test reports kept?", backup).answerable
    text = compose(_brief("how long are the nightly backups kept?", backup))
    assert text.startswith("Nightly backups are kept for 35 days"), text


def test_which_thing_of_a_kind_is_answered_by_the_one_said_to_be_it():
    # "WindSight is the SCADA platform": the thing of the kind asked, not a team named after it
    platform = hit(1, "# WindSight SCADA platform\n\nWindSight is the SCADA platform through which "
                      "the ROC monitors and controls every turbine.\n\nMaintained by the SCADA & "
                      "IT Platform team (Anders Vik, Leila Nasser).\n\nApproved by Anders Vik, "
                      "Head of SCADA & IT Platform.\n", title="WindSight SCADA platform")  # fmt: skip

    def meaning(texts):  # as the real embedder judges them: the team's sentences closer
        return [0.46 if "WindSight is" in t else 0.72 for t in texts]

    text = compose(_brief("what scada platform do we use?", platform, meaning=meaning))
    assert text.startswith("WindSight is the SCADA platform"), text


def test_a_question_after_the_case_it_is_about_asks_what_its_own_clause_asks():
    # "<what happened>, <question>": the question word of the second clause says what is
    # asked; the case before it only names the subject
    asked = read_question("a tech went home and left his lock on the turbine, who has to "
                          "sign off before it can be cut off")  # fmt: skip
    assert asked.kind == "person", asked.kind
    assert words.terms("lock turbine") <= asked.terms
    howto = read_question("screen says MES OFFLINE and it's only our line, how do i restart "
                          "the edge gateway")  # fmt: skip
    assert howto.kind == "howto", howto.kind
    # "when we ..." opening a clause of its own (no comma needed) is the case, not "when?"
    hours = read_question("when we work out turbine availabilty which hours get taken out of "
                          "the calc?")  # fmt: skip
    assert hours.kind == "which" and "turbine" in hours.terms, hours.kind
    assert read_question("if i log a P2 how soon should an engineer pick it up").kind == "duration"
    assert read_question("when did we move off tracto, and why?").kind == "date"
    # a phrase naming the topic first is no case of its own: it stays the subject
    assert read_question("In The Wealth of Nations, which two countries did Smith use?").kind == (
        "which"
    )
    runbook = hit(1, "# When a line loses its MES connection\n\nSymptom: the line screen shows a "
                     "red MES OFFLINE banner, or the web app shows the line as stale.\n\nThe edge "
                     "gateway keeps the line screens working and buffers data while the link is "
                     "down.\n\n## Steps\n\n1. Check the gateway state: `sudo mes-edge status`.\n"
                     "2. If every gateway on the site is down, call the service desk.\n3. If only "
                     "this gateway is affected, restart the edge service: `sudo systemctl restart "
                     "mes-edge`.\n", title="When a line loses its MES connection")  # fmt: skip
    text = compose(_brief("line screen says MES OFFLINE and it's only our line, how do i restart "
                          "the edge gateway", runbook))  # fmt: skip
    assert "systemctl restart mes-edge" in text, text


def test_a_trusted_unit_sharing_one_word_does_not_answer_a_yes_no_question_for_a_draft():
    # "is the leading edge repair standard approved yet?": the draft says it is not; the
    # accepted SLA's "Owner: ..., Desk Lead" shares only "lead"
    draft = hit(1, "# Blade leading-edge erosion repair (draft)\n\nThis is a draft. It has not "
                   "been reviewed or approved and sets no requirements yet. Until it is approved, "
                   "leading-edge repairs are planned case by case.\n",
                title="Blade leading-edge erosion repair (draft)", canonical_type="standard",
                canonical_status="draft", score=0.7)  # fmt: skip
    sla = hit(2, "# SCADA support SLA\n\nOwner: Jonas Berg, Desk Lead.\n\nA P2 not "
                 "resolved within 6 hours is escalated to the on-call lead.\n",
              title="SCADA support SLA", canonical_type="standard", canonical_status="accepted",
              score=0.5)  # fmt: skip
    text = compose(_brief("is the blade leading edge repair standard approved and in force yet?",
                          draft, sla))  # fmt: skip
    assert "Jonas Berg" not in text, text
    assert "not been reviewed or approved" in text or "approved" in text.split("[")[0], text


def test_a_question_about_the_past_that_asks_for_a_value_is_answered_with_one():
    # "back in january" asks of the past; "how long" still wants a span, not the meeting
    # note that only mentions the outage
    notes = hit(1, "# Ops weekly\n\n## SCADA and historian\n\n- Leila gave a quick update on "
                   "Sollia being down in SCADA back in January. All actions done.\n",
                title="Ops weekly - 11 March 2026", score=0.9)  # fmt: skip
    postmortem = hit(2, "# Sollia Heights lost SCADA communications\n\n| | |\n|---|---|\n| "
                        "Date | 14 January 2026 |\n| Duration | 5 h 40 min |\n\nThe gateway "
                        "certificate expired.\n",
                     title="Postmortem: Sollia Heights lost SCADA communications",
                     canonical_type="postmortem", canonical_status="accepted", score=0.4)  # fmt: skip

    # the note is the closest in meaning, as the embedder finds it (0.65 against 0.35)
    def embedder(texts):
        return [0.65 if "Leila" in text else 0.35 for text in texts]

    text = compose(_brief("how long was sollia down in scada back in january", notes, postmortem,
                          meaning=embedder))  # fmt: skip
    assert text.startswith("Duration: 5 h 40 min"), text


def test_how_do_i_asks_for_a_way_even_of_a_number():
    # "how do i see how many ...": the opener asks how it is done; "how many" is what is seen
    asked = read_question("how do i see how many times a turbine has been reset today")
    assert asked.kind == "howto", asked.kind
    assert "time" not in asked.terms  # "how many times" is the question's form, no subject
    assert read_question("how many times has the turbine been reset today?").kind == "number"
    runbook = hit(1, "# Remote reset of turbine faults\n\nRules that always apply: at most 3 "
                     "remote resets per turbine in any rolling 24 hours.\n\n## Steps\n\n1. Read "
                     "the fault code in WindSight.\n2. Check the reset counter for the last 24 "
                     "hours: `wsctl turbine resets BRK-WTG-07 --last 24h`. If the count is "
                     "already 3, do not reset.\n3. Reset the turbine.\n",
                  title="Remote reset of turbine faults")  # fmt: skip
    text = compose(_brief("how do i see how many times a turbine has been reset today", runbook))
    assert "wsctl turbine resets" in text, text


def test_a_proposal_s_current_arrangement_answers_what_holds_now():
    # a proposal states what holds today and what it proposes: a plain question asks for the
    # first, a question about the proposal for the second
    proposal = hit(1, "# On-call arrangements - proposal under review\n\n## 2. Current "
                      "arrangements (still in force)\n\n- Rota period: one week.\n- Allowance: "
                      "**£220 per week** on call, the same for every rota.\n\n## 3. Proposed "
                      "changes\n\n**Allowance.** A weekly allowance of **£260** for engineers.\n\n"
                      "The proposed allowance would add about £41,000 a year to the on-call "
                      "allowance budget.\n",
                   title="On-call arrangements - proposal under review",
                   canonical_type="decision", canonical_status="review")  # fmt: skip
    now = compose(_brief("what's the on-call allowance at the moment", proposal))
    assert now.startswith("Current arrangements (still in force): Allowance: £220"), now
    proposed = compose(_brief("what would the on-call allowance go up to under the proposal?",
                              proposal))  # fmt: skip
    assert "£260" in proposed.split("[")[0] or "£41,000" in proposed.split("[")[0], proposed


def test_a_reported_claim_is_checked_against_the_record():
    # "X said at the meeting that ... 14 days. is that right?": who said it and where is not
    # what is asked about; the value claimed is checked, and the record's value answers
    notes = hit(2, "# Ops sync 11 June\n\nTom said the PITR window of the portal db is only 14 "
                   "days, and that the Tuesday ops sync would review it.\n",
                title="Ops sync 11 June")  # fmt: skip
    for question in (
        "tom said at the ops sync that the portal db PITR window is only 14 days. is that right?",
        "tom said in the ops sync the PITR window is 14 days. what's the actual window?",
        "how long is the PITR window on the portal db? tom mentioned 14 days",
    ):
        answer = compose(_brief(question, notes, _runbook(1)))
        assert answer.split("[")[0].count("35 days") == 1, (question, answer)
    read = read_question("tom said in the ops sync that P1s get 6 hours to fix. what's the real "
                         "target?")  # fmt: skip
    assert read.kind == DURATION and read.value_kinds == {DURATION}, read
    assert "tom" not in read.terms and "sync" not in read.terms and "real" not in read.terms
    assert "6" not in read.names and read.stated == ()
    # a case that only says what a screen shows is not a claim: its words are the subject
    case = read_question("line screen says MES OFFLINE, how do i restart the edge gateway")
    assert {"line", "screen"} <= case.terms, case.terms


def test_which_kinds_of_things_asks_for_the_things_not_a_name():
    # "which kinds of results would be held back?" lists the kinds ("histology; genetic
    # tests; ..."), which carry no name or code
    for question in (
        "which kinds of results would be held back until the clinician releases them?",
        "under the portal results draft, which kinds of results would be held back?",
        "what sorts of hours are left out?",
    ):
        read = read_question(question)
        assert read.kind != "which" and not read.preferred_kinds, (question, read.kind)


def test_a_list_named_by_its_acronym_answers_the_name_written_out():
    # "what are our single points of failure?": the table lists "SPOF1 Core switch", ...;
    # the document says what SPOF stands for, so its rows say "single point of failure"
    text = (
        "# Single points of failure (SPOFs)\n\nA single point of failure is a part whose loss "
        "stops the whole service. Each one has an owner and a plan to remove it.\n\n"
        "## Our three SPOFs\n\n| SPOF | Where | Owner |\n|---|---|---|\n"
        "| SPOF1 Core switch | Server room A | Network team |\n"
        "| SPOF2 Firewall | Server room A | Security team |\n"
        "| SPOF3 DNS server | Cloud region 1 | Platform team |\n"
    )
    brief = _brief("what are our single points of failure?", hit(1, text,
                   title="Single points of failure (SPOFs)", canonical_type="standard",
                   canonical_status="accepted"))  # fmt: skip
    answer = compose(brief)
    assert all(part in answer for part in ("Core switch", "Firewall", "DNS server")), answer


def test_how_long_something_is_kept_is_stated_by_its_retention():
    # "keep" is the question's word; the standard says "retention" and "deleted": it states
    # the keeping, and the question is not refused for want of the word
    logging = hit(1, "# Logging standard\n\n## 5. Volume and retention\n\n- Hot (OpenSearch): "
                     "**30 days**. Cold (S3, Athena table `logs_archive`): **13 months**, then "
                     "deleted.\n", title="Logging standard", canonical_type="standard",
                  canonical_status="accepted")  # fmt: skip
    for question in (
        "how long do we keep logs?",
        "my colleague said in standup that we keep logs for 7 days. is that right?",
    ):
        assert read_question(question).keeps, question
        brief = _brief(question, logging)
        assert brief.answerable, (question, brief.refusal)
        opening = "No: " if "7 days" in question else ""  # the claim is checked
        assert compose(brief).startswith(f"{opening}Volume and retention: Hot (OpenSearch): 30")


def test_a_value_of_another_year_does_not_answer_the_year_asked_about():
    sites = hit(1, "# Sites\n\n| Site | Turbines | Availability 2025 |\n|---|---|---|\n"
                "| Brekken Ridge | 24 | 97.4% |\n| Sollia Heights | 18 | 96.9% |\n",
                title="Sites")  # fmt: skip
    assert not _brief("what was Brekken Ridge's availability in 2024?", sites).answerable
    answered = _brief("what was Brekken Ridge's availability in 2025?", sites)
    assert answered.answerable and "97.4%" in compose(answered)
    # the row of the year asked about answers
    both = hit(1, "# Sites\n\n| Site | Availability 2024 | Availability 2025 |\n|---|---|---|\n"
               "| Brekken Ridge | 96.1% | 97.4% |\n", title="Sites")  # fmt: skip
    answered = _brief("what was Brekken Ridge's availability in 2024?", both)
    assert answered.answerable and "96.1%" in compose(answered)
    # ...and a line that names the site but says nothing of its availability does not
    # answer for the year either
    service = hit(2, "# Spare parts\n\nBrekken Ridge and Sollia Heights run Nordvik NV-3.6 "
                     "turbines.\n", title="Spare parts price list")  # fmt: skip
    assert not _brief("what was Brekken Ridge's availability in 2024?", sites, service).answerable


def test_a_sentence_about_the_subject_does_not_say_what_is_asked_of_it():
    # every sentence about Dvořák is about as close to "who was Dvořák's wife?" as the
    # embedder finds the one on his burial (0.63): only one that says it, in its words or
    # others much closer in meaning, answers
    dvorak = hit(1, "# Antonín Dvořák\n\nDvořák died in Prague on 1 May 1904 and was buried "
                    "in the Vyšehrad Cemetery. He married Anna Čermáková in 1873.\n",
                 title="Antonín Dvořák")  # fmt: skip
    idf = {"dvorak": 5.0, "antonin": 4.0, "wife": 3.0, "buri": 2.0, "married": 2.5}

    def close(texts):
        return [0.63 if "buried" in text else 0.4 for text in texts]

    lone = hit(1, "# Antonín Dvořák\n\nDvořák died in Prague on 1 May 1904 and was buried in "
                  "the Vyšehrad Cemetery.\n", title="Antonín Dvořák")  # fmt: skip
    assert not _brief("Who was Antonin Dvorak's wife?", lone, weights=idf, meaning=close).answerable
    text = compose(_brief("Where was Dvořák buried?", dvorak, weights=idf, meaning=close))
    assert "Vyšehrad Cemetery" in text, text


def test_a_follow_up_asks_for_another_value_of_the_row_the_answer_before_led_with():
    # "and how long have they got to get it fixed?" after the response time of a P1: the
    # row states both, whatever the follow-up calls the second ("Restore service")
    from chat.answers.evidence import earlier_subject

    levels = hit(1, "# IT and OT support: priorities and targets\n\n| Priority | Typical examples | "
                    "First response | Restore service |\n|---|---|---|---|\n| P1 Critical | A line "
                    "stopped by an IT fault | 15 minutes | 4 hours |\n| P2 High | One scanner down "
                    "| 30 minutes | 12 hours |\n", title="IT and OT support: priorities and targets",
                 slug="it-ot-support")  # fmt: skip
    idf = {"response": 2.0, "p1": 3.0, "time": 0.5, "call": 0.8, "fixed": 3.0, "rto": 4.0}
    earlier = earlier_subject("whats the response time on a p1 it call")
    fixed = _brief("and how long have they got to get it fixed?", levels, earlier_terms=earlier,
                   earlier_lead="it-ot-support", weights=idf)  # fmt: skip
    assert fixed.answerable and "4 hours" in compose(fixed), compose(fixed)
    # what no row states is still refused, even of the same row
    rto = _brief("and what's its RTO?", levels, earlier_terms=earlier, earlier_lead="it-ot-support",
                 weights=idf)  # fmt: skip
    assert not rto.answerable, compose(rto)


def test_a_sentence_the_next_one_revokes_is_not_the_rule():
    # "Revision 3 allowed ... That exception no longer exists.": the first sentence is what
    # used to hold, not the answer to who may remove the lock now
    loto = hit(1, "# Lockout/tagout, revision 4\n\n## Personal locks\n\nRevision 3 allowed a shift "
                  "supervisor to remove another person's lock if that person had left site. That "
                  "exception no longer exists.\n\n## Abandoned lock removal\n\nThe lock is cut by "
                  "the site manager, after the site manager and the HSE Manager sign form "
                  "HSE-F-22.\n", title="Lockout/tagout", canonical_type="procedure",
                canonical_status="accepted", slug="sp-07")  # fmt: skip
    text = compose(_brief("someone left site with his lock still on, who can remove it?", loto))
    assert text.startswith("The lock is cut by the site manager"), text
    units = split_units("Revision 3 allowed it. That exception no longer exists. Ask the manager.")
    assert [u.revoked for u in units if u.kind == "sentence"][:1] == [True], units
    for revoking in ("This is no longer the case.", "This rule was withdrawn in 2024."):
        units = split_units(f"Supervisors may cut a lock left on. {revoking} Ask the manager.")
        assert units[0].revoked, (revoking, units)
    # a rule of its own that changed revokes nothing before it
    units = split_units("Only a pharmacist may authorise an override. The nurse in charge may no "
                        "longer suspend an alarm on their own authority.")  # fmt: skip
    assert not any(u.revoked for u in units), units


def test_the_key_of_a_row_whose_column_names_the_identifier_is_it():
    # a price list's first column is "Part no": its cell is the part number asked for
    prices = hit(1, "# Spare parts price list 2026\n\n| Part no | Description | Unit price (EUR) "
                    "| Lead time (weeks) |\n|---|---|---|---|\n| NV-12005 | Yaw brake pad set | 690 "
                    "| 3 |\n| NV-12200 | Yaw position encoder | 860 | 4 |\n",
                 title="Spare parts price list 2026")  # fmt: skip
    brief = _brief("part number and 2026 price for a yaw position encoder?", prices)
    text = compose(brief)
    assert brief.answerable and text.startswith("NV-12200"), text
    assert "860" in text, text


def test_a_name_typed_in_lower_case_is_the_name_the_documents_write():
    # "brekken" is Brekken wherever the documents say it: the value must be said of it, not
    # of the two sites together in the next section
    allowance = hit(1, "# Technician on-call allowance\n\n## Background\n\nThe farm at Brekken "
                    "Ridge pays a fixed monthly amount to four technicians who share the rota.\n\n## Cost"
                    "\n\nFor 8 rota weeks per month across two sites, the allowance costs about "
                    "EUR 87,000 per year, paid monthly.\n", title="Technician on-call allowance")  # fmt: skip
    # (a name the knowledge base says often weighs little: Brekken is a whole wind farm)
    weights = {"payment": 4.0, "tech": 4.0, "fixed": 2.0, "monthly": 2.0, "brekken": 1.0}
    assert not _brief("how much is the fixed monthly on-call payment the brekken techs get?",
                      allowance, weights=weights).answerable  # fmt: skip
    assert _brief("how much does the on-call allowance cost per year?", allowance).answerable
    # a word the documents also write in lower case, or a common English word, stays a word
    assert words.written_as_names("the rota at brekken", ["at Brekken Ridge"]) == ("Brekken",)
    # ...and a word after it that the documents write only as the rest of that name is part of
    # it ("brekken ridge"), not what is asked of it; a word they write otherwise after it is not
    assert words.written_as_names("brekken ridge availability in 2024?",
                                  ["at Brekken Ridge", "Brekken Ridge has 24"]) == ("Brekken Ridge",)  # fmt: skip
    assert words.written_as_names("brekken availability in 2024?",
                                  ["Brekken Availability 2025", "at Brekken availability is"]) == ("Brekken",)  # fmt: skip
    assert words.written_as_names("the cost of it", ["so the Cost pays"]) == ()
    assert words.written_as_names("who is larkspur", ["so Larkspur went live. larkspur"]) == ()
    # ...nor a word capitalised because it opens a title the text names
    climb = hit(1, "# Climbing\n\nIsolate the turbine as required by Lockout/tagout for turbine "
                "work, then climb.\n", title="Climbing")  # fmt: skip
    loto = hit(2, "# Lockout/tagout for turbine work\n\nEffective: 1 April 2025.\n",
               title="Lockout/tagout for turbine work")  # fmt: skip
    assert _brief("when did the new lockout procedure start?", climb, loto).question.names == ()


def test_a_role_said_of_every_site_is_held_at_the_site_asked_about_by_its_holder():
    # the procedure names the role; who's who names who holds it at Brekken
    lock = hit(1, "# Abandoned locks\n\nAn abandoned lock is cut by the site manager of that "
               "wind farm.\n", title="Abandoned locks")  # fmt: skip
    people = hit(2, "# Who's who\n\n- **Tor Eriksen** - Site Manager, Brekken Ridge\n"
                 "- **Fiona MacLeod** - Site Manager, Carn Dubh\n", title="Who's who")  # fmt: skip
    brief = _brief("who cuts an abandoned lock at brekken?", lock, people)
    assert brief.answerable and "Tor Eriksen" in compose(brief)
    # a place nobody holds the role at is still a near miss
    assert not _brief("who cuts an abandoned lock at sollia?", lock, people).answerable


def test_a_word_typed_in_capitals_for_emphasis_is_no_name():
    assert read_question("after a repair when do we HAVE to take samples?").names == ()
    assert read_question("is it ok to NOT wear a harness?").names == ()
    assert read_question("what does the MES do?").names == ("MES",)


def test_what_someone_reckons_after_the_question_is_a_claim_not_its_subject():
    asked = read_question(
        "How many pipe volumes do we flush after fixing a small main? Jason reckons one is plenty"
    )
    assert asked.names == ()
    assert not {"jason", "plenty", "reckon"} & asked.terms
    assert {"pipe", "flush", "main"} <= {t[:5] for t in asked.terms} | asked.terms


def test_a_chat_message_is_trusted_less_than_an_uploaded_procedure():
    # neither is a curated record; what someone typed in a chat still does not stand level
    # with a written procedure: it is named as disagreeing, not quoted beside it as support
    procedure = hit(1, "# Mains repair hygiene\n\n## Flushing\n\nFlush through a hydrant "
                    "downstream of the repair for at least 3 pipe volumes, whatever the size "
                    "of the main.\n", title="Mains repair hygiene")  # fmt: skip
    chat = hit(2, "[2026-01-13 12:06] Jason Kerr: 1 pipe volume is plenty to flush a main after "
               "a repair\n"
               "[2026-01-13 12:09] Ann Lee: ok\n", title="Chat network crews north")  # fmt: skip
    brief = _brief("how many pipe volumes do we flush on a main after a repair?", chat, procedure)
    assert brief.lead.source.hit.slug == procedure.slug
    assert [d.other.source.hit.slug for d in brief.disagreements] == [chat.slug]


def test_what_changed_asks_for_every_change():
    assert read_question("What actually changed when WQ-05 went from rev 3 to rev 4?").wants_list
    assert read_question("what's different in the new lockout procedure?").wants_list
    assert not read_question("when did the lockout procedure change?").wants_list


def test_a_row_is_not_answered_for_the_thing_another_row_names():
    # the question names the powdered carbon's row, which is not at Kestle Moor: a near miss,
    # not the granular carbon's lead time
    table = hit(1, "# Chemicals 2026\n\n| Code | Chemical | Site | Lead time |\n|---|---|---|---|\n"
                "| TC-150 | Granular activated carbon, virgin | Kestle Moor WTW | 42 days |\n"
                "| TC-151 | GAC reactivation service | Kestle Moor WTW | 28 days |\n"
                "| TC-152 | Powdered activated carbon | Ambrook WTW | 7 days |\n",
                title="Chemicals 2026")  # fmt: skip
    assert not _brief("lead time for powdered activated carbon at Kestle Moor?", table).answerable
    assert "7 days" in compose(_brief("lead time for powdered activated carbon at Ambrook?", table))
    assert "42 days" in compose(
        _brief("lead time for granular activated carbon at Kestle Moor?", table)
    )
    # ...but a row that says the other cell's words in another column is still about them
    servers = hit(2, "# Servers\n\n| Server | Where | Notes |\n|---|---|---|\n"
                  "| MER03 | Ambrook WTW | Takes over within 2 minutes if Harbour House is lost |\n"
                  "| Historian | Harbour House, replicated to Ambrook | Stores every value |\n",
                  title="Servers")  # fmt: skip
    answer = _brief(
        "if harbour house is lost how long until the ambrook server takes over?", servers
    )
    assert "2 minutes" in compose(answer)


CHLORINE_STANDARD = """# Final water chlorine control

This standard applies at Kestle Moor, Ambrook and Fenwick Springs WTW. It replaces revision 3.

## What changed from revision 3

| Change | Revision 3 | Revision 4 (now) |
|---|---|---|
| Manual analyser check | Weekly | Daily, including weekends |
| Check instrument | Colour comparator | Photometer |
"""


def test_a_document_that_opens_by_listing_its_sites_covers_each_of_them():
    standard = hit(1, CHLORINE_STANDARD, title="Final water chlorine control",
                   canonical_type="standard", canonical_status="accepted", slug="wq-05")  # fmt: skip
    question = "how often are we meant to check the chlorine analysers at kestle moor against a manual reading?"
    assert "meant" not in " ".join(read_question(question).terms)  # "are we meant to": a request
    brief = _brief(question, standard)
    assert brief.answerable, brief.refusal
    assert "Daily" in compose(brief)


KILN_LOCKS = """# Kiln room locks

| | |
|---|---|
| Effective | 1 May 2025 |
| Applies to | All three studios: Harrow Lane, Mill Yard and Quayside, staff and visiting artists alike |

## Lost keys

1. Report the lost key to the studio office the same day.
2. The padlock is cut by the studio lead, and the cut padlock is kept with the report.
"""


def test_a_document_that_opens_with_a_table_of_its_sites_covers_each_of_them():
    standard = hit(1, KILN_LOCKS, title="Kiln room locks", canonical_type="standard",
                   canonical_status="accepted", slug="kiln-locks")  # fmt: skip
    text = compose(_brief("who cuts the padlock when a key is lost at Mill Yard?", standard))
    # the step that says who, not the row that only names the studio
    assert text.startswith("Lost keys: The padlock is cut by the studio lead"), text


FORTH_BRIDGE = """# Forth Bridge

The Forth Bridge is a cantilever railway bridge across the Firth of Forth in Scotland. It held
the longest cantilever span in the world until the Quebec Bridge in Canada was completed in
1917.

## Design

The bridge was designed by the engineers Sir John Fowler and Sir Benjamin Baker.
"""


def test_a_name_the_opening_only_mentions_is_not_what_the_document_covers():
    article = hit(1, FORTH_BRIDGE, title="Forth Bridge", slug="forth-bridge")
    assert not _brief("Who designed the Quebec Bridge?", article).answerable
    assert "Fowler" in compose(_brief("Who designed the Forth Bridge?", article))


REJECTED_CHLORAMINE = """# Rejected: switching Kestle Moor to chloramine

## Summary

In spring 2023 consultants recommended that Kestle Moor should stop leaving a free chlorine
residual in the water and should instead form chloramine by dosing ammonia.

## Why we rejected it

1. **Nitrification.** Chloramine releases ammonia as it decays, and bacteria turn that into
   nitrite in long rural mains.
2. **Customers who must be told.** Chloramine must be removed from water used for kidney
   dialysis and in fish tanks.
3. **Mixing zones.** Parts of the town are fed from both Kestle Moor and Ambrook.
"""


def test_why_an_approach_was_rejected_is_answered_by_all_its_reasons_not_its_proposal():
    rejected = hit(1, REJECTED_CHLORAMINE, title="Rejected: switching Kestle Moor to chloramine",
                   canonical_type="rejected-approach", canonical_status="accepted",
                   summary="Proposal to dose ammonia in the water at Kestle Moor to form "
                           "chloramine. Rejected in November 2023.")  # fmt: skip
    sources = number_sources(result([], rejected=[rejected]))
    for question in ("why did we turn down dosing ammonia at Kestle Moor?",
                     "why did we reject chloramine at kestle moor"):  # fmt: skip
        text = compose(build_brief(question=read_question(question), sources=sources))
        assert text.startswith("Why we rejected it:"), text
        assert all(why in text for why in ("Nitrification", "dialysis", "Mixing zones")), text


BOLOGNA = """# University of Bologna

The University of Bologna is generally regarded as the oldest university in continuous
operation in the world.

## History

In 1988, during the university's nine-hundredth anniversary, the rectors of 388 European
universities signed the Magna Charta Universitatum in Bologna. The university library holds
the Codex Argenteus. Among its famous students was the astronomer Nicolaus Copernicus.
"""


def test_a_thing_named_with_the_is_no_person_who_answers_who():
    article = hit(1, BOLOGNA, title="University of Bologna", slug="university-of-bologna")
    brief = _brief("Who was the first rector of the University of Bologna?", article)
    assert not brief.answerable, compose(brief)
    # a person named after "the" and a noun is still a person
    assert "Copernicus" in compose(_brief("Which famous astronomer studied at Bologna?", article))
    assert "Barbarossa" in compose(_brief("Which emperor issued the Authentica Habita?", hit(
        1, "# Bologna\n\nIn 1158 the Emperor Frederick Barbarossa issued the Authentica Habita.\n",
        title="Bologna", slug="bologna")))  # fmt: skip
    # ...and a body named with "the" answers who decided
    ruling = hit(1, "# Logging standard\n\nThe standard was approved by the Digital Design "
                 "Authority in March 2024.\n", title="Logging standard", slug="std-logging")  # fmt: skip
    assert "Digital Design Authority" in compose(
        _brief("Who approved the logging standard?", ruling)
    )


VOYAGER = """# Voyager 2

Voyager 2 is a space probe launched by NASA in 1977. It remains the only spacecraft to have
visited Uranus, which it passed in January 1986, discovering eleven previously unknown moons,
and Neptune, which it passed in August 1989, photographing the Great Dark Spot.
"""
COBOL = """# COBOL

COBOL was designed in 1959 by a committee of industry and government. The design drew heavily
on FLOW-MATIC, a language developed by Grace Hopper's team at Remington Rand, and also on IBM's
COMTRAN.
"""


def test_a_value_said_of_another_thing_the_sentence_names_does_not_answer():
    voyager = hit(1, VOYAGER, title="Voyager 2", slug="voyager-2")
    cobol = hit(1, COBOL, title="COBOL", slug="cobol")
    brief = _brief("How many new moons of Neptune did Voyager 2 discover?", voyager)
    assert not brief.answerable, compose(brief)
    assert "eleven" in compose(
        _brief("How many new moons of Uranus did Voyager 2 discover?", voyager)
    )
    brief = _brief("Who designed IBM's COMTRAN language?", cobol)
    assert not brief.answerable, compose(brief)
    assert "Grace Hopper" in compose(_brief("Who developed FLOW-MATIC?", cobol))


RAIL = """# Lowland Express

The Lowland Express is a high-speed train built by Harlow Rail for the coastal line.

With a top speed of 320 km/h it is the fastest train in the region, ahead of the Velaro Nord and the older Coastrunner.
"""


def test_a_value_said_before_a_name_it_is_compared_with_is_not_that_names_value():
    # "the fastest, ahead of the Velaro Nord": the 320 km/h is the Lowland Express's; the
    # Velaro Nord is only what it is compared with (the sentence's subject is "it")
    rail = hit(1, RAIL, title="Lowland Express", slug="lowland-express")
    brief = _brief("What is the top speed of the Velaro Nord?", rail)
    assert not brief.answerable, compose(brief)
    assert "320 km/h" in compose(_brief("What is the top speed of the Lowland Express?", rail))
    # ...and a value said after the compared name, of it, still answers
    slower = hit(1, RAIL.replace("and the older Coastrunner.", "and the older Coastrunner, which reaches 200 km/h."), title="Lowland Express", slug="lowland-express")  # fmt: skip
    assert "200 km/h" in compose(_brief("What is the top speed of the Coastrunner?", slower))


ANDES = """# Andes

The Andes are the longest continental mountain range in the world. They were formed, and are
still rising, as the oceanic Nazca Plate is pushed beneath the South American Plate.
"""
ATLAS = """# Atlas Mountains

The Atlas Mountains stretch across Morocco, Algeria and Tunisia.

The Atlas Mountains took their shape when the African Plate was pushed north against the
Eurasian Plate.

The Atlas Mountains are home to the Barbary macaque.
"""


def test_the_answer_leads_with_the_subject_the_question_names():
    andes = hit(1, ANDES, title="Andes", slug="andes")
    atlas = hit(2, ATLAS, title="Atlas Mountains", slug="atlas-mountains")
    brief = _brief("Which oceanic plate is pushed beneath the Atlas Mountains?", andes, atlas)
    assert not brief.answerable or "Nazca" not in compose(brief), compose(brief)


CRITICAL_LIMITS = """# Critical result definition

## Critical limits (adults)

| Analyte | Low critical | High critical |
|---|---|---|
| Potassium | 2.5 mmol/L or below | 6.5 mmol/L or above |
| Sodium | 120 mmol/L or below | 160 mmol/L or above |
"""


def test_a_value_for_something_else_than_the_question_narrows_it_to_does_not_answer():
    limits = hit(1, CRITICAL_LIMITS, title="Critical result definition", slug="critical-results")
    # (the knowledge base's weights: potassium is rare in it, children commoner)
    weights = {"potassium": 4.4, "children": 2.7, "limit": 1.8, "critical": 1.7}
    brief = _brief("what's the critical potassium limit for children?", limits, weights=weights)
    assert not brief.answerable, compose(brief)
    assert "6.5" in compose(_brief("what's the critical potassium limit for adults?", limits))
    assert "6.5" in compose(_brief("what's the critical limit for potassium?", limits))
    # every "for" phrase narrows it, the second too
    assert (
        frozenset({"children"})
        in read_question("what is the retention for raw messages for children?").restricted_to
    )


SPILL = """# Quay Street spill, March 2026

Storm overflow QS-CSO1 discharged diluted sewage into the harbour for 3 hours 10 minutes. Quay
Street had 23 rag trips in 2025, the most of any station.
"""


def test_how_much_someone_was_fined_asks_for_money_not_a_count():
    question = "how much were we fined for the quay street spill"
    assert read_question(question).value_kinds == {"money"}
    spill = hit(1, SPILL, title="Quay Street spill, March 2026", slug="quay-street-spill")
    weights = {"fined": 3.4, "spill": 3.0, "quay": 2.7, "street": 1.5}
    brief = _brief(question, spill, weights=weights)
    assert not brief.answerable, compose(brief)


METAL_DETECTION = """# Metal detection verification (QP-05, revision 4)

Effective 3 November 2025. Replaces revision 3.

## What changed from revision 3

| | Revision 3 (2022) | Revision 4 (now) |
|---|---|---|
| Routine check | every 4 hours | every 2 hours |
| Bakery test pieces | 2.5 / 3.0 / 4.0 mm | 2.0 / 2.5 / 3.0 mm |
| Reject bin | open, emptied by the line operator | locked, emptied only by QA |
| Records | paper QF-05 | Fabrica electronic check sheet |

## When to check

- At the start of production, before the first pack.
- Every 2 hours during production.
- After every product changeover.
- After any maintenance, repair or setting change on the detector.
"""


def test_what_changed_is_answered_by_what_states_a_change():
    record = hit(1, METAL_DETECTION, title="Metal detection verification (QP-05, revision 4)",
                 canonical_type="procedure", canonical_status="accepted", slug="qp-05")  # fmt: skip
    answer = compose(_brief("what changed in the metal detector checks last november?", record))
    assert "locked" in answer and "every 4 hours" in answer, answer


FORTH_DESIGN = """# Forth Bridge

The Forth Bridge is a cantilever railway bridge across the Firth of Forth in Scotland. The
design was the work of the English engineers Sir John Fowler and Sir Benjamin Baker.
"""


def test_who_holds_a_qualified_role_is_not_answered_by_another_of_that_kind():
    article = hit(1, FORTH_DESIGN, title="Forth Bridge", slug="forth-bridge")
    weights = {"consult": 3.5, "forth": 3.1, "engineer": 2.1, "bridge": 1.8}

    def close(texts):  # the embedder finds the sentence close in meaning
        return [0.73] * len(texts)

    question = "Who was the consulting engineer on the Forth Bridge?"
    brief = _brief(question, article, weights=weights, meaning=close)
    assert not brief.answerable, compose(brief)
    answer = compose(_brief("Who were the engineers of the Forth Bridge?", article, meaning=close))
    assert "Fowler" in answer


KILIMANJARO = """# Mount Kilimanjaro

Mount Kilimanjaro is a dormant volcano in Tanzania. The Marangu route, nicknamed the
"Coca-Cola route", offers sleeping huts along the way. The Machame route has no huts: climbers
sleep in tents.
"""


def test_a_question_asking_what_is_not_so_is_answered_by_a_unit_saying_not():
    assert read_question("Which route up Kilimanjaro does not offer sleeping huts?").negated
    assert read_question("which route doesnt offer huts").negated
    assert not read_question("Does the Marangu route offer huts?").negated  # yes/no: a claim
    article = hit(1, KILIMANJARO, title="Mount Kilimanjaro", slug="kilimanjaro")
    answer = compose(_brief("Which route up Kilimanjaro does not offer sleeping huts?", article))
    assert "Machame" in answer, answer
    huts = hit(1, KILIMANJARO.replace(" The Machame route has no huts: climbers\nsleep in tents.", ""),
               title="Mount Kilimanjaro", slug="kilimanjaro")  # fmt: skip
    brief = _brief("Which route up Kilimanjaro does not offer sleeping huts?", huts)
    assert not brief.answerable, compose(brief)  # "offers sleeping huts" says the opposite


TUNGUSKA = """# Tunguska Event

The Tunguska event was a huge explosion over Siberia on 30 June 1908. The blast flattened some
80 million trees over an area of about 2,150 square kilometres.

No scientist visited the site until 1927, when the mineralogist Leonid Kulik led an expedition
for the Soviet Academy of Sciences in the hope of recovering meteorite iron. He expected a
crater but found none. Kulik returned several times up to 1939.
"""


def test_a_unit_stating_another_year_or_none_does_not_answer_for_the_year_asked():
    article = hit(1, TUNGUSKA, title="Tunguska event", slug="tunguska")
    assert "Kulik" in compose(_brief("Who led the 1927 expedition to the Tunguska site?", article))
    brief = _brief("Who led the 1958 Soviet expedition to the Tunguska site?", article)
    assert not brief.answerable, compose(brief)  # Kulik's was in 1927
    brief = _brief("How many trees were flattened at Tunguska in 1950?", article)
    assert not brief.answerable, compose(brief)  # a measure said of no year


CLARA_SCHUMANN = """# Clara Schumann

Clara Schumann was a German pianist and composer. Her own works include the Piano Concerto in
A minor, Op. 7, which she premiered at the Gewandhaus in 1835 under Felix Mendelssohn.
"""


def test_an_abbreviation_before_a_number_does_not_end_the_sentence():
    article = hit(1, CLARA_SCHUMANN, title="Clara Schumann", slug="clara-schumann")
    question = "Who conducted the first performance of Clara Schumann's Piano Concerto?"

    def close(texts):  # "premiered ... under" says "conducted the first performance"
        return [0.75] * len(texts)

    answer = compose(_brief(question, article, meaning=close))
    assert answer.startswith("Her own works include the Piano Concerto in A minor, Op. 7,"), answer
    assert "Felix Mendelssohn" in answer


MEITNER = """# Lise Meitner

Lise Meitner was an Austrian physicist. Hahn alone received the 1944 Nobel Prize in Chemistry,
although Meitner was nominated 48 times for Nobel prizes in physics and chemistry.
"""


def test_a_value_said_of_a_persons_surname_is_said_of_that_person():
    article = hit(1, MEITNER, title="Lise Meitner", slug="lise-meitner")
    question = "How many times was Lise Meitner nominated for a Nobel Prize?"
    assert "48 times" in compose(_brief(question, article))


JETLINERS = """# Boeing jetliners

Boeing builds airliners near Seattle. Its first jetliner, the 707 of 1958, seated up to 189
passengers, and its successors, such as the 727 of 1963, served shorter routes from smaller
airports.
"""


def test_a_value_said_of_a_model_named_by_its_number_is_not_said_of_another_model():
    # "the 707" names a model as "Voyager 2" names a probe: the 189 passengers are the
    # 707's, not the 727's that the sentence names after them
    article = hit(1, JETLINERS, title="Boeing jetliners", slug="boeing-jetliners")
    assert "189 passengers" in compose(
        _brief("How many passengers did the Boeing 707 seat?", article)
    )
    brief = _brief("How many passengers did the Boeing 727 seat?", article)
    assert not brief.answerable, compose(brief)


DON_QUIXOTE = (
    "# Don Quixote\n\nDon Quixote is a Spanish novel by Miguel de Cervantes, published in two "
    "parts in 1605 and 1615. It has been translated into more than 140 languages; the first "
    "English version, Thomas Shelton's translation of the first part, appeared in 1612.\n"
)

BAIKAL = """# Lake Baikal

Lake Baikal is a rift lake in Siberia. With a maximum depth of 1,642 metres it is the deepest
lake in the world.
"""


def test_a_unit_stating_another_rank_of_the_thing_asked_does_not_answer():
    assert values.ranked_nouns("the first English version of the first part") == {
        "version": frozenset({"first"}),
        "part": frozenset({"first"}),
    }
    assert values.ranked_nouns("the max depth")["depth"] == {"maximum"}
    novel = hit(1, DON_QUIXOTE, title="Don Quixote", slug="don-quixote")
    brief = _brief("Who translated the second part of Don Quixote into English?", novel)
    assert not brief.answerable, compose(brief)
    answer = compose(_brief("Who translated the first part of Don Quixote into English?", novel))
    assert "Thomas Shelton" in answer
    lake = hit(1, BAIKAL, title="Lake Baikal", slug="lake-baikal")
    assert not _brief("what is the average depth of lake baikal", lake).answerable
    assert "1,642 metres" in compose(_brief("what is the max depth of lake baikal", lake))


RED_CROSS = """# International Committee of the Red Cross

The International Committee of the Red Cross is a humanitarian organisation based in Geneva,
founded on 17 February 1863. Its first great success was the first Geneva Convention, signed on
22 August 1864 by 12 states.
"""


def test_a_documents_title_names_what_its_initials_stand_for():
    source = number_sources(result([hit(1, RED_CROSS, title="International Committee of the Red Cross", slug="icrc")]))[0]  # fmt: skip
    signed = next(u for u in split_units(RED_CROSS) if "22 August 1864" in u.text)
    assert names_present(("ICRC", "Geneva Convention"), source, signed)
    assert not names_present(("IFRC", "Geneva Convention"), source, signed)


def test_a_sentence_names_what_its_own_names_initials_stand_for():
    text = "# Snow leopard\n\nThe International Union for Conservation of Nature moved the snow leopard from Endangered to Vulnerable on its Red List in 2017.\n"  # fmt: skip
    source = number_sources(result([hit(1, text, title="Snow leopard", slug="snow-leopard")]))[0]
    moved = next(u for u in split_units(text) if "2017" in u.text)
    assert names_present(("IUCN Red List",), source, moved)
    assert not names_present(("WWF",), source, moved)
    brief = _brief("Is the snow leopard listed as Endangered on the IUCN Red List today?", hit(1, text, title="Snow leopard"))  # fmt: skip
    assert brief.answerable and "Vulnerable" in compose(brief)


HOOVER_DAM = (
    "# Hoover Dam\n\nHoover Dam is a concrete arch-gravity dam in the Black Canyon of the "
    "Colorado River, on the border between Nevada and Arizona, about 48 kilometres southeast of "
    "Las Vegas. Officially, 96 workers died in industrial accidents during construction.\n\n"
    "The dam rises 221 metres above the riverbed, its crest is 379 metres long, and it is about "
    "200 metres thick at the base.\n"
)


def test_how_tall_is_answered_by_what_says_a_height_not_by_any_length():
    article = hit(1, HOOVER_DAM, title="Hoover Dam", slug="hoover-dam")
    answer = compose(_brief("how tall is hoover dam", article))
    assert answer.startswith("The dam rises 221 metres"), answer


def _demo_page(n, slug):
    """A page of the demo handbook as a hit, its front matter left out."""
    text = (
        Path(__file__).resolve().parents[2] / "kb/demo_corpus/handbook" / f"{slug}.md"
    ).read_text()
    body = text.split("---", 2)[2] if text.startswith("---") else text
    title = next(line for line in body.splitlines() if line.startswith("# "))[2:]
    return hit(n, body, title=title, slug=slug)


def test_what_says_not_leads_only_among_units_about_the_question():
    # found through ./dev run: the log levels ("debug - disabled in prod") answered it
    pages = [_demo_page(n, slug) for n, slug in enumerate(
        ("mod-notifications", "dec-message-queue", "std-logging", "mod-tracking-ingest"), 1)]  # fmt: skip
    brief = _brief("which services dont use kafka?", *pages)
    assert not compose(brief).startswith("Levels:"), compose(brief)


def test_reading_a_question_that_orders_two_events_in_time():
    asked = read_question("Was the Harbour Trust founded before the East Pier was opened?")
    assert asked.kind == "yesno"
    first, second = asked.in_order
    assert "Harbour Trust" in first and "East Pier" in second
    # "after" asks for the other order: the one named second is asked to come first
    later = read_question("did the East Pier open after the Harbour Trust was founded?")
    assert "Harbour Trust" in later.in_order[0] and "East Pier" in later.in_order[1]
    assert read_question("was the pier opened before 1900?").in_order[1].strip() == "1900?"
    # not a yes/no question, or nothing on one side: nothing ordered
    assert read_question("what did we use before Redis?").in_order == ()
    assert read_question("what to check before going up a turbine").in_order == ()
    assert read_question("was it before?").in_order == ()
    # what may be done after something is no order of events
    assert (
        read_question("can the ROC reset a turbine remotely after an overspeed trip?").in_order
        == ()
    )
    # ordering two events is not asking about the past before something
    assert not asked.asks_past


HARBOUR = """# Harbour Trust

The Harbour Trust runs the port of Callow Bay. It was founded on 3 May 1852 by an act of
parliament, and took over the ferry service in 1907.

## Piers

The East Pier was opened on 12 June 1849, three years before the trust existed; it was
lengthened in 1911.

The West Pier opened in 1868.
"""


def test_a_question_ordering_two_events_is_answered_from_their_dates():
    trust_doc = hit(1, HARBOUR, title="Harbour Trust", slug="harbour-trust")
    before = _brief("Was the Harbour Trust founded before the East Pier was opened?", trust_doc)
    assert before.answerable and before.verdict == "no"
    said = compose(before)
    assert said.startswith("No: ")
    assert "3 May 1852" in said and "12 June 1849" in said
    # the other order, and the other way of asking it
    after = _brief("did the West Pier open after the Harbour Trust was founded?", trust_doc)
    assert after.verdict == "yes"
    assert "1868" in compose(after) and "3 May 1852" in compose(after)
    # an event against a date the question states
    assert _brief("was the Harbour Trust founded before 1860?", trust_doc).verdict == "yes"
    # an event's date is when it began, however the question says it began
    assert (
        _brief("did the trust first take over the ferry service after 1900?", trust_doc).verdict
        == "yes"
    )
    # a date in brackets is an aside on the name before it, not the date of the event
    piers = hit(1, "# Piers\n\nThe East Pier was opened on 12 June 1849. The old ferry slip "
                   "beside the East Pier (opened 1901) is now closed.\n", title="Piers")  # fmt: skip
    assert _brief("was the East Pier opened before 1870?", piers).verdict == "yes"
    # a longer name holding the asked one's words is another thing
    longer = hit(1, "# Piers\n\nThe pier was opened on 12 June 1849. Beside it stands the East "
                    "Harbour Pier, opened in 1901.\n", title="East Pier")  # fmt: skip
    assert _brief("was the East Pier opened before 1870?", longer).verdict == "yes"
    # the year a sentence gives for something else is not the event's date: the trust took
    # over the ferries in 1907, it was founded in 1852
    assert _brief("was the Harbour Trust founded after 1900?", trust_doc).verdict == "no"


def test_an_order_is_not_decided_without_a_date_for_each_event():
    trust_doc = hit(1, HARBOUR, title="Harbour Trust", slug="harbour-trust")
    # no date says when the lighthouse was built: no yes or no is made up
    brief = _brief("Was the Harbour Trust founded before the lighthouse was built?", trust_doc)
    assert brief.verdict == ""
    # a sentence saying part of an event is not its date: the trust's ferry service began
    # in 1907, when the ferry service ended is not said
    ended = _brief(
        "did the Harbour Trust ferry service end before the West Pier opened?", trust_doc
    )
    assert ended.verdict == ""
    # the same year, with no month for one of them: the order is not known
    same_year = hit(1, "# Mill\n\nThe mill opened in 1868. The West Pier opened on 2 March 1868.\n",
                    title="Mill")  # fmt: skip
    assert _brief("did the mill open before the West Pier opened?", same_year).verdict == ""


def test_an_event_is_dated_by_what_is_said_of_it_not_of_a_name_beside_it():
    text = """# Harbour Trust

The Harbour Trust works alongside the Callow Bay Pilots Association, founded in 1921, and the
ferry company.

The trust was founded on 3 May 1852 by an act of parliament.

The lighthouse was built in 1860.
"""
    trust_doc = hit(1, text, title="Harbour Trust", slug="harbour-trust")
    brief = _brief("Was the Harbour Trust founded before the lighthouse was built?", trust_doc)
    assert brief.verdict == "yes"
    assert "3 May 1852" in compose(brief) and "1921" not in compose(brief)
    # of a sentence's dates, the one of the clause saying the event, not the nearest: a
    # relative clause says something else
    founded = hit(1, "# Harbour Trust\n\nOn 3 May 1852 the merchants of the town, led by their "
                     "mayor and the harbour master, founded the Harbour Trust, which in 1907 took "
                     "over the ferries.\n",
                  title="Harbour Trust")  # fmt: skip
    assert _brief("was the Harbour Trust founded after 1900?", founded).verdict == "no"


SITES = """# Pump station availability

How available the Fenwick Lane, Oxley Mill and Quarry Bank pump stations were, and what
Hallam guarantees.

## 2025 results

| Station | Pumps | Availability 2025 |
|---|---|---|
| Fenwick Lane | 4 | 99.1% |
| Oxley Mill | 3 | 98.2% |
| Quarry Bank | 2 | 97.5% |

## Guarantees

Under the Hallam service contract HSC-7, which covers Fenwick Lane and Oxley Mill, Hallam
guarantees 98.5% availability per station per year.
"""


def test_a_value_said_of_the_other_rows_of_a_table_does_not_answer_for_the_one_asked():
    sites = hit(1, SITES, title="Pump station availability", slug="pump-availability")
    # the guarantee covers the other two stations of the table; nothing says Quarry Bank's
    brief = _brief("what availability does Hallam guarantee for Quarry Bank?", sites)
    assert not brief.answerable or "98.5%" not in compose(brief)
    # ...and answers for a station it covers
    covered = _brief("what availability does Hallam guarantee for Oxley Mill?", sites)
    assert "98.5%" in compose(covered)


def test_a_percent_sign_asks_for_a_percentage():
    for typed in ("what availability % does Hallam guarantee?", "what availability percentage does Hallam guarantee?"):  # fmt: skip
        asked = read_question(typed)
        assert asked.kind == "number" and asked.value_kinds == {"percent"}


def test_a_value_asked_of_a_named_incident_comes_from_its_record_not_a_rule_about_the_thing():
    """The question names the incident; a procedure's limit for the same machine matches its
    words as well, but the incident's record states how long it was down."""
    procedure = hit(1, """## Entering a blast chiller (BC-3)

- Entering the blast chiller BC-3: for a maximum of 20 minutes per entry, then 15 minutes in
  a warm area before going back in.
""", title="Machine guarding and lockout", canonical_type="procedure",
                    canonical_status="accepted", slug="machine-guarding")  # fmt: skip
    report = hit(2, """## At a glance

- What stopped: blast chiller BC-3, which chills all pies.
- Why it happened: no UPS on the BC-3 panel; a dip of under half a second restarted it.
- Downtime: 01:10 to 05:40, 4 hours 30 minutes.
""", title="BC-3 blast chiller stop, Hexham - 9 March 2026", canonical_type="incident",
                 canonical_status="accepted", slug="inc-bc3")  # fmt: skip
    brief = _brief("how long was BC-3 down in the march chiller incident", procedure, report)
    assert brief.lead is not None and brief.lead.source.hit.slug == "inc-bc3", compose(brief)
    assert "4 hours 30 minutes" in compose(brief)


_TOYMAKER = """# Tessel Toys

Tessel Toys is a Danish maker of wooden toys, founded in 1946 in Vejle.

After heavy losses in 2003, Mara Lindqvist became chief executive of Tessel Toys in 2004, the first from outside the founding family.

The company opened its first shop abroad, in Hamburg, in 1971.
"""


def test_who_is_not_answered_by_the_person_the_question_names():
    # "who succeeded X?" asks for someone else than X: a unit whose only person is X is a
    # near-miss, however well it states the rest of the question
    toys = hit(1, _TOYMAKER, title="Tessel Toys")
    asked = "Who succeeded Mara Lindqvist as chief executive of Tessel Toys?"
    assert not _brief(asked, toys).answerable
    # ...while a unit naming her successor answers it
    later = hit(1, _TOYMAKER.replace("The company opened", "In 2017 Mara Lindqvist was succeeded as chief executive by Niels Brandt. The company opened"), title="Tessel Toys")  # fmt: skip
    text = compose(_brief(asked, later))
    assert "Niels Brandt" in text, text
    # asking who she is (nothing asked of her but the name) is answered by what she did
    assert "Mara Lindqvist became chief executive" in compose(
        _brief("who is Mara Lindqvist?", toys)
    )


_SINGER = """# Johan Halvorsen

Johan Halvorsen (1864-1935) was a Norwegian composer and violinist.

After his studies in Leipzig he returned to Bergen, and from 1902 he sang in the Bergen Cathedral Choir, which was then conducted by Edvard Grieg.
"""


def test_what_a_named_person_did_is_not_answered_by_the_same_verb_done_by_another():
    # "which choir did Halvorsen conduct?": "a choir ... conducted by Edvard Grieg" says Grieg
    # conducted it, not Halvorsen (he sang in it): a near-miss
    singer = hit(1, _SINGER, title="Johan Halvorsen", slug="johan-halvorsen")
    brief = _brief("Which choir did Halvorsen conduct from 1902 onwards?", singer)
    assert not brief.answerable, compose(brief)
    # ...the one who did it is asked about: answered
    assert "Bergen Cathedral Choir" in compose(
        _brief("Which choir did Grieg conduct from 1902 onwards?", singer)
    )
    # ...and where he did it himself, another verb's agent is no matter
    led = hit(1, _SINGER.replace("he sang in the Bergen Cathedral Choir, which was then conducted by Edvard Grieg", "Halvorsen conducted the Bergen Cathedral Choir, which was founded by Edvard Grieg"), title="Johan Halvorsen", slug="johan-halvorsen")  # fmt: skip
    assert "Bergen Cathedral Choir" in compose(
        _brief("Which choir did Halvorsen conduct from 1902 onwards?", led)
    )


_RIVER = """# River Tell

The River Tell rises in the Orrin uplands and flows 212 kilometres to the sea at Holmwick.

Its longest tributary is the Wenn, which joins it at Calder Mill.

The Tell's highest bridge, at Stannard Gorge, carries the railway 48 metres above the water.
"""


def test_a_superlative_is_not_answered_by_its_opposite():
    # "the shortest tributary" is not "the longest tributary" (an antonym swapped in, a
    # common near-miss of reading-comprehension sets), as "the second part" is not "the
    # first part"; the superlative the text gives answers
    river = hit(1, _RIVER, title="River Tell", slug="river-tell")
    assert not _brief("What is the shortest tributary of the River Tell?", river).answerable
    assert "the Wenn" in compose(_brief("What is the longest tributary of the River Tell?", river))
    assert "the Wenn" in compose(_brief("What is the biggest tributary of the River Tell?", river))
    assert "Stannard Gorge" in compose(
        _brief("What is the highest bridge over the River Tell?", river)
    )


def test_a_unit_ranking_the_asked_thing_otherwise_is_not_quoted_in_support():
    # asked for the lowest bridge, the highest bridge is about another bridge: never quoted
    # beside whatever answers (as the first part is not quoted for the second)
    river = hit(1, _RIVER, title="River Tell", slug="river-tell")
    text = compose(_brief("What is the lowest bridge over the River Tell?", river))
    assert "Stannard Gorge" not in text, text
    assert "Stannard Gorge" in compose(
        _brief("What is the highest bridge over the River Tell?", river)
    )


def test_asked_whether_a_drafts_proposal_is_live_yet_the_draft_answers_not_the_record():
    # what is asked about (release after 72 hours) is said only by the draft; a record of
    # the same system that says something else of it does not answer whether it is live
    draft = hit(1, """# Releasing test results to patients in the portal

Draft for discussion, not approved. Until it is approved, results continue to be released to
the portal 7 days after authorisation.

## Proposal

1. Standard results on the portal release list would be released 72 hours after
   authorisation instead of 7 days.
2. Held results would not be released automatically at all.
""", title="DRAFT - Releasing test results to patients in the portal",
                canonical_type="standard", canonical_status="draft", slug="draft-release")  # fmt: skip
    feed = hit(2, """# Portal results release feed

## Portal results release

The feed copies results to the patient portal over HTTPS. Only test groups on the portal
release list are copied. Results are released to the portal 7 days after authorisation.
""", title="Portal results release feed", canonical_type="runbook",
               canonical_status="accepted", slug="results-feed")  # fmt: skip
    weights = {"72": 1.0, "hour": 0.5, "live": 1.0, "portal": 2.0, "release": 2.0, "result": 1.0}
    brief = _brief("is the 72 hour portal results release live yet?", feed, draft, weights=weights)
    assert brief.lead is not None and brief.lead.source.hit.slug == "draft-release", brief.lead
    text = compose(brief)
    assert "not an accepted record" in text or "not approved" in text, text
    assert "7 days" in text, text
    # asked whether the proposed value holds now: no, it is only proposed (the draft alone
    # says it, and a draft's other lines say neither yes nor no)
    now = compose(_brief("are standard results released after 72 hours now?", draft))
    assert now.startswith("No: Proposal: Standard results"), now
    assert "72 hours" in now and "not an accepted record" in now, now
    assert not compose(_brief("are held results released now?", draft)).startswith("Yes"), now


def test_a_trusted_record_of_another_subject_does_not_stand_in_for_the_only_source_of_it():
    # the hygiene card is described only in an uploaded procedure (no curated status); the
    # accepted fleet standard renews another thing every 5 years, and says nothing of a
    # hygiene card or a blue one: it neither answers nor disagrees
    procedure = hit(1, """# Mains repair hygiene

Everyone who works in the excavation while the main is open holds a valid Water Hygiene Card
(the blue card). The card is renewed every 3 years after a half-day course.
""", title="Mains repair hygiene and return to service", slug="mains-repair-hygiene")  # fmt: skip
    fleet = hit(2, """# Fleet vehicles and driving

## Towing

Only drivers who have passed our towing course may tow trailers or plant. The course must be
renewed every 5 years.

## Fuel cards

Each vehicle has its own fuel card. Use it only for that vehicle.
""", title="Fleet vehicles and driving", canonical_type="standard",
                canonical_status="accepted", slug="fleet-standard")  # fmt: skip
    weights = {"blue": 4.0, "card": 3.0, "hygiene": 3.0, "renew": 4.0}
    brief = _brief("how often does the blue hygiene card need renewing?", procedure, fleet,
                   weights=weights)  # fmt: skip
    assert brief.lead is not None and brief.lead.source.hit.slug == "mains-repair-hygiene"
    text = compose(brief)
    assert "3 years" in text.split("[")[0], text
    assert "5 years" not in text, text


def test_who_is_on_a_team_asks_for_every_member():
    # "who's on the exec team?" asks who the members are: the whole table, not its first row
    for asked in ("who's on the exec team?", "who is in the platform team", "who sits on the "
                  "safety committee?", "and who's on the board"):  # fmt: skip
        assert read_question(asked).wants_list, asked
    for asked in ("who's in charge at coldhurst", "who's on call tonight", "who is on the rota "
                  "this week", "who leads the platform team?"):  # fmt: skip
        assert not read_question(asked).wants_list, asked
    team = hit(1, """# Who's who

## Executive team

| Name | Role |
|---|---|
| Margaret Oyelaran | Chief Executive |
| Huw Penhallow | Director of Water Services |
| Siobhan Treloar | Director of Wastewater Services |
| Anil Mehta | Director of Customer Services |

## Treatment works

| Area | Manager |
|---|---|
| Kestle Moor WTW | Ollie Trevithick |
""", title="Who's who", canonical_type="project-index", canonical_status="accepted")  # fmt: skip
    text = compose(_brief("who's on the exec team?", team))
    for name in ("Margaret Oyelaran", "Huw Penhallow", "Siobhan Treloar", "Anil Mehta"):
        assert name in text, text
    assert "Ollie Trevithick" not in text, text


def test_who_is_in_charge_of_something_is_answered_by_whose_role_it_is():
    # "in charge of" is said by a role (Owner, Manager), not by the words "in charge"
    assert read_question("who's in charge of the chlorine control rules?").relation == {"charge"}
    assert read_question("who is responsible for fleet safety").relation == {"responsible"}
    standard = hit(1, """# Final water chlorine control (WQ-05 rev 4)

These rules apply at every treatment works. Owner: Rosa Pengelly, Water Quality Manager.

## Targets

Each works keeps its final water free chlorine between its target bands, measured at the works
outlet by two analysers.
""", title="Final water chlorine control (WQ-05 rev 4)", canonical_type="standard",
                   canonical_status="accepted")  # fmt: skip
    brief = _brief("who's in charge of the chlorine control rules at the treatment works?",
                   standard)  # fmt: skip
    assert brief.answerable, brief.refusal
    assert "Rosa Pengelly" in compose(brief)


def test_a_claim_the_reader_heard_or_tags_as_right_is_checked_against_the_record():
    # "i heard 14 days" reports a claim, like "leila said 14 days"; "X, right?" asks whether
    # a statement holds: the record answers both, not the note that says the same as the asker
    heard = read_question("how far back can we restore windsight from the backup appliance? "
                          "i heard 14 days")  # fmt: skip
    assert "14" not in heard.names and "heard" not in heard.terms, heard
    assert read_question("the lift turbines can be climbed up to 18 m/s wind right?").kind == YESNO
    assert read_question("so we keep logs 14 days, correct?").kind == YESNO
    assert read_question("which one is right?").kind != YESNO
    notes = hit(1, "# Ops meeting 11 March\n\nSomeone asked how far back we can restore "
                   "WindSight, and Leila said backups are kept 14 days on the appliance.\n",
                title="Ops meeting 11 March")  # fmt: skip
    standard = hit(2, "# WindSight backup and restore\n\n## Requirements\n\n| Item | Requirement |\n"
                      "|---|---|\n| Local retention | 35 days of nightly backups on the backup "
                      "appliance |\n",
                   title="WindSight backup and restore", canonical_type="standard",
                   canonical_status="accepted")  # fmt: skip
    text = compose(_brief("how far back can we restore windsight from the backup appliance? i "
                          "heard 14 days", notes, standard))  # fmt: skip
    assert "35 days" in text.split("[")[0], text


def test_what_was_done_before_a_change_is_answered_by_the_record_the_question_names_when_replaced():
    # the question's words name the old procedure's title ("chlorine analyser checks"); the
    # change it asks about ("the new photometers") came with the record that replaced it:
    # what operators did before is what the old record says, not the new record's step
    import datetime as dt

    old_title = "Chlorine analyser checks (WQ-05 rev 3)"
    old = hit(1, f"# {old_title}\n\n## Weekly check\n\nThe operator measures free chlorine with "
                 "the colour comparator from the works laboratory cupboard.\n",
              title=old_title, canonical_type="standard", canonical_status="deprecated",
              document_id=41)  # fmt: skip
    new = hit(2, "# Final water chlorine control (WQ-05 rev 4)\n\n## Daily analyser verification"
                 "\n\nMeasure free chlorine with the Lumio photometer and check the analyser "
                 "against the photometer reading.\n",
              title="Final water chlorine control (WQ-05 rev 4)", canonical_type="standard",
              canonical_status="accepted", document_id=42)  # fmt: skip
    link = supersede_link((41, old_title, None),
                          (42, "Final water chlorine control (WQ-05 rev 4)", dt.date(2025, 12, 1)))  # fmt: skip
    text = compose(_brief("what did operators check the chlorine analysers against before the "
                          "new photometers?", new, old, links=[link]))  # fmt: skip
    assert "colour comparator" in text.split("[")[0], text
    # asked what is done now, the new record answers
    now = compose(_brief("what do operators check the chlorine analysers against?", new, old,
                         links=[link]))  # fmt: skip
    assert "photometer" in now.split("[")[0], now


def test_when_an_idea_was_turned_down_is_answered_by_the_line_saying_it_was_rejected():
    # "the chloramine idea" names the rejected approach ("idea" is the kind of record, as
    # "the procedure" is); its line dating the rejection answers when, not the line dating
    # when the consultants proposed it, nor another document's "in 2023 we considered it"
    rejected = hit(1, """# Rejected: switching Kestle Moor to chloramine

In spring 2023 Aldermoor Water Consulting recommended that Kestle Moor should form chloramine
by dosing ammonia after chlorination. The proposal was rejected on 21 November 2023 by Huw
Penhallow, Director of Water Services.

## Why we rejected it

- Nitrification in long rural mains.
""", title="Rejected: switching Kestle Moor to chloramine", canonical_type="rejected-approach",
                   canonical_status="accepted", document_id=51)  # fmt: skip
    process = hit(2, "# How Kestle Moor treats water\n\n## Disinfection\n\nIn 2023 we considered "
                     "switching the network residual from free chlorine to chloramine. It was "
                     "rejected.\n", title="How Kestle Moor treats water",
                  canonical_type="domain-concept", canonical_status="accepted",
                  document_id=52)  # fmt: skip
    sources = number_sources(result([process], rejected=[rejected]))
    question = "when was the chloramine idea turned down and who made the call?"
    text = compose(build_brief(question=read_question(question), sources=sources))
    assert text.startswith("The proposal was rejected on 21 November 2023"), text


def test_a_scorecard_of_another_year_does_not_answer_for_the_year_asked_about():
    # the year is in the document's title only; its rows and its notes are of 2025, and a
    # story dated 2024 elsewhere says nothing of the scorecard
    card = hit(1, "# Vendor scores\n\n| Vendor | Safety | Total |\n|---|---|---|\n"
                  "| Polar Electrical | 6 | 35 |\n| NorthLink Fibre | 8 | 31 |\n\n"
                  "Scores agreed with the site managers and the HSE Manager.\n",
               title="Vendor Scorecard 2025", canonical_type="standard",
               canonical_status="accepted")  # fmt: skip
    story = hit(2, "# Lockout\n\nOn 2024-11-06 a shift supervisor removed a lock on an "
                   "electrical cabinet while the technician was still working.\n",
                title="Lockout procedure")  # fmt: skip
    question = "what did polar electrical score on the {} vendor scorecard?"
    refused = _brief(question.format(2024), card, story)
    assert not refused.answerable, compose(refused)
    answered = _brief(question.format(2025), card, story)
    assert answered.answerable and "35" in compose(answered)


def test_a_unit_about_another_of_the_kind_asked_does_not_answer():
    tiers = hit(1, "# Backup tiers\n\n| Tier | Systems | RTO |\n|---|---|---|\n"
                   "| Tier 1 | EPR, LIS | 4 hours |\n| Tier 2 | Portal, email | 24 hours |\n"
                   "| Tier 3 | Everything else | 5 working days |\n",
                title="Backup and recovery standard", canonical_type="standard",
                canonical_status="accepted")  # fmt: skip
    assert not _brief("whats the RTO for tier 4 systems?", tiers).answerable
    answered = _brief("whats the RTO for tier 2 systems?", tiers)
    assert answered.answerable and compose(answered).startswith("Tier 2")
    prices = hit(1, "# Prices\n\n| Code | Item | Price per pack (GBP) |\n|---|---|---|\n"
                    "| RPL-1090 | Troponin I reagent pack | 465.00 |\n"
                    "| RPL-1100 | CRP reagent pack | 88.00 |\n",
                 title="Lab consumables price list")  # fmt: skip
    assert not _brief("what is the price of a troponin T reagent pack?", prices).answerable
    assert "465.00" in compose(_brief("what is the price of a troponin I reagent pack?", prices))
    # one side of words that tell things apart: the north crews' supervisor is not the south's
    leads = hit(1, "# Who's who\n\n## Functional leads\n\n"
                   "- Lorna Vickers - Network Supervisor, North crews\n"
                   "- Bev Harland - RCC Supervisor, control room\n",
                title="Who's who")  # fmt: skip
    south = _brief("who's the network supervisor for the south crews?", leads)
    assert "Lorna Vickers" not in compose(south) if south.answerable else True
    north = _brief("who's the network supervisor for the north crews?", leads)
    assert north.answerable and "Lorna Vickers" in compose(north)


def test_a_follow_up_typing_a_name_in_lower_case_asks_of_that_name_instead():
    from chat.answers.evidence import earlier_subject
    from chat.answers.question import read_follow_up

    sites = hit(1, "# Moving to Fabrica\n\n## Sites\n\n| Site | Replaces | Go-live |\n"
                   "|---|---|---|\n| Hollin Bridge | LineLog | live since 2 February 2026 |\n"
                   "| Tenterfield | LineLog | planned for 8 June 2026 |\n\n## Decision\n\n"
                   "Contract: 5 years from 1 March 2025 for all three sites. Until then both "
                   "Hollin Bridge and Tenterfield were still on LineLog.\n",
                title="Moving to Fabrica MES",
                canonical_type="decision", canonical_status="accepted")  # fmt: skip
    earlier = "when did hollin bridge go live on fabrica?"
    brief = build_brief(question=read_follow_up(earlier, "and tenterfield?"),
                        sources=number_sources(result([sites])),
                        earlier_terms=earlier_subject(earlier))  # fmt: skip
    assert brief.question.names == ("Tenterfield",), brief.question.names
    assert compose(brief).startswith("Tenterfield"), compose(brief)


def test_one_in_a_follow_up_is_the_thing_the_answer_before_led_with():
    from chat.answers.evidence import earlier_subject

    assert read_question("and how long do we wait for one after ordering?").refers_back
    for question in ("is one week enough?", "one of the pumps failed, what now?"):
        assert not read_question(question).refers_back, question
    prices = hit(1, "# Spare parts\n\n| Part | Description | Unit price (EUR) | Lead time "
                    "(weeks) |\n|---|---|---|---|\n| NV-12120 | Yaw planetary drive | 7,940 | 16 |\n"
                    "| NV-12110 | Yaw drive motor | 5,120 | 14 |\n", title="Spare parts price list",
                 slug="spare-parts")  # fmt: skip
    blog = hit(2, "# Historian\n\nIf you have ever waited ten minutes for a query to come back "
                  "from Aurora, this one is for you.\n", title="Historian blog")  # fmt: skip
    earlier = earlier_subject("how much does a yaw planetary drive cost?")

    def close(texts):  # as close in meaning as the embedder finds them (0.71, 0.27)
        return [0.71 if "yaw" in text.lower() else 0.27 for text in texts]

    text = compose(_brief("and how long do we wait for one after ordering?", blog, prices,
                          earlier_terms=earlier, earlier_lead="spare-parts", meaning=close))  # fmt: skip
    assert "16" in text.split("[")[0] and "Yaw planetary drive" in text.split("[")[0], text


def test_hedges_and_idioms_are_not_what_a_question_asks_about():
    asked = read_question("roughly how many hl7 msgs a day does the interface engine handle")
    assert {"roughly"}.isdisjoint(asked.terms) and {"hl7", "msgs"} <= asked.counted, asked
    asked = read_question("when did the old engine finally get switched off for good?")
    assert {"finally", "good"}.isdisjoint(asked.terms), asked.terms
    engine = hit(1, "# Interface engine\n\nWe carry 84 interfaces and around 118,000 messages "
                    "a day, including every lab order and result.\n", title="Larkspur "
                    "Integration Hub as our interface engine", canonical_type="decision",
                 canonical_status="accepted")  # fmt: skip
    text = compose(_brief("roughly how many msgs a day does the interface engine carry?", engine))
    assert "118,000 messages" in text, text


def test_a_reading_told_after_the_question_is_checked_not_asked_about():
    question = "whats the ATP pass limit after an allergen changeover clean? coldhurst got 240"
    asked = read_question(question)
    assert "coldhurst" not in asked.terms and asked.text.endswith("clean?"), asked
    record = hit(1, "# Allergen changeover cleaning\n\n## The seven required steps\n\n"
                    "1. ATP swab at the same three points. The pass limit is 150 RLU or below.\n",
                 title="Allergen changeover cleaning (QP-09)", canonical_type="standard",
                 canonical_status="accepted")  # fmt: skip
    notes = hit(2, "# Coldhurst shift handover\n\n## Hygiene / allergens\n\nCelery changeover on "
                   "CH2 at 05:40. ATP on the depositor came back 240 RLU - pass, the limit is 300 "
                   "RLU so we're fine. Coldhurst line released 07:05.\n",
                title="Coldhurst shift handover - nights", canonical_type="meeting")  # fmt: skip
    text = compose(_brief(question, notes, record))
    assert text.startswith("The seven required steps: 1. ATP swab") or re.match(
        r"^[^\[]*150 RLU", text
    ), text


def test_who_turned_an_idea_down_is_answered_by_the_line_saying_who_rejected_it():
    rejected = hit(1, "# Not doing: X-ray inspection on every packing line\n\n**Outcome: rejected "
                      "on 2 October 2024** by Dr Ruth Kellerman (Technical Director).\n\n"
                      "## The proposal\n\nThe argument for the idea was that X-ray on every "
                      "line also finds glass and stone, and that Brightways Supermarkets was "
                      "expected to ask for X-ray on every line in its next code of practice.\n",
                   title="Not doing: X-ray inspection on every packing line",
                   canonical_type="rejected", canonical_status="rejected")  # fmt: skip
    # (a rejected approach comes in its own block of the search result)
    brief = build_brief(
        question=read_question(
            "who knocked back the idea of x-ray on every line, and when was that"
        ),
        sources=number_sources(result([], rejected=[rejected])),
    )
    text = compose(brief)
    assert text.startswith("Outcome: rejected on 2 October 2024 by Dr Ruth Kellerman"), text


def test_a_superlative_of_the_other_end_does_not_answer():
    cobalt = hit(1, "# Cobalt\n\nCobalt is a hard, lustrous metal. Its Curie temperature of 1,115 °C "
                    "is the highest of any element, which makes its alloys useful for magnets.\n",
                 title="Cobalt")  # fmt: skip
    assert not _brief("Which element has the lowest Curie temperature?", cobalt).answerable
    answered = _brief("Which element has the highest Curie temperature?", cobalt)
    assert answered.answerable and "1,115" in compose(answered)


ANDES = """# Andes

The Andes are the longest continental mountain range in the world, extending for about
7,000 kilometres along the western edge of South America. The range is between 200 and
700 kilometres wide, reaching its greatest width in Bolivia. Between the eastern and western
ranges of Peru and Bolivia lies the Altiplano, a high plateau.
"""


def _andes_meaning(texts):
    # as the embedder finds it: the width sentence means the question, the others do not
    return [0.83 if "width" in text else 0.5 for text in texts]


def test_what_is_said_only_of_another_thing_is_not_answered_by_a_unit_sharing_words():
    andes = hit(1, ANDES, title="Andes")
    brief = _brief("In which country does the Andes range reach its smallest width?", andes,
                   meaning=_andes_meaning)  # fmt: skip
    assert not brief.answerable, compose(brief)
    assert "another thing" in brief.refusal
    answered = _brief("In which country does the Andes range reach its greatest width?", andes,
                      meaning=_andes_meaning)  # fmt: skip
    assert answered.answerable and "Bolivia" in compose(answered).split("[")[0]


def test_a_year_said_of_another_event_does_not_let_a_vaguer_unit_answer():
    tour = hit(1, "# Tour de France\n\nLeaders of the different classifications wear coloured "
                  "jerseys. The yellow jersey of the overall leader was introduced in 1919. The "
                  "green jersey for the points classification followed in 1953.\n",
               title="Tour de France")  # fmt: skip

    def meaning(texts):
        return [0.73 if "introduced" in text or "followed" in text else 0.49 for text in texts]

    assert not _brief("Which Tour de France jersey was introduced in 1930?", tour,
                      meaning=meaning).answerable  # fmt: skip
    answered = _brief("Which Tour de France jersey was introduced in 1919?", tour, meaning=meaning)
    assert answered.answerable and "yellow" in compose(answered), compose(answered)


def test_a_model_number_asked_is_not_answered_by_another_model_s_row():
    from chat.answers.evidence import about_another

    parts = hit(1, "# Spare parts\n\n| Part | Description | Model | Lead time (weeks) |\n"
                   "|---|---|---|---|\n| NV-12110 | Yaw drive motor | NV-3.6 | 14 |\n",
                title="Spare parts price list")  # fmt: skip
    for question, another in (("lead time on a yaw drive motor for the nv-4.2s?", True),
                              ("lead time on a yaw drive motor for the nv-3.6s?", False),
                              ("how long does a yaw drive motor take to come?", False)):  # fmt: skip
        brief = _brief(question, parts, refuse=False)
        row = next(s for s in brief.ranked if "Yaw" in s.unit.text)
        assert about_another(brief.question, row) is another, question


def test_when_something_was_switched_off_is_the_date_a_record_says_it_went():
    # the record that replaced it says when it was switched off; that it replaced it (and
    # when that was decided), or a bulletin's plan to switch it off, does not answer
    old = hit(1, "# Telemetry 2017: keep Sentry\n\nSince 2004 our remote sites had been watched "
                 "by Sentry, a scanner program written in-house.\n",
              title="Telemetry 2017: keep Sentry", canonical_type="decision",
              canonical_status="superseded", document_id=11)  # fmt: skip
    new = hit(2, "# Telemetry 2021: Aquanet 6\n\nWe move from Sentry to Aquanet 6 in three "
                 "waves.\n\n## Migration\n\nThe migration finished in October 2022 and Sentry "
                 "was switched off on 4 November 2022.\n",
              title="Telemetry 2021: Aquanet 6", canonical_type="decision",
              canonical_status="accepted", document_id=12)  # fmt: skip
    bulletin = hit(3, "# Staff bulletin\n\nWhat is planned: Sentry switched off at the end of "
                      "March 2022.\n", title="Staff bulletin", document_id=13)  # fmt: skip
    link = supersede_link((11, "Telemetry 2017: keep Sentry", None),
                          (12, "Telemetry 2021: Aquanet 6", dt.date(2021, 3, 3)))  # fmt: skip
    for question in ("when did the old sentry scanner finally get turned off",
                     "when did sentry actually get turned off",
                     "when did we stop using Sentry?"):  # fmt: skip
        text = compose(_brief(question, bulletin, old, new, links=[link]))
        assert text.startswith("The migration finished in October 2022 and Sentry was switched "
                               "off on 4 November 2022"), text  # fmt: skip


def test_the_other_of_a_pair_of_opposite_verbs_does_not_answer():
    rock = hit(1, "# Moore's law\n\nRock's law, named after the investor Arthur Rock, states that "
                  "the cost of a chip factory doubles every four years.\n",
               title="Moore's law")  # fmt: skip

    # (as close in meaning as the embedder finds them)
    def close(texts):
        return [0.8 for _ in texts]

    assert not _brief("How often does the cost of a chip factory halve according to Rock's law?",
                      rock, meaning=close).answerable  # fmt: skip
    answered = _brief("How often does the cost of a chip factory double according to Rock's law?",
                      rock, refuse=False)  # fmt: skip
    assert "four years" in compose(answered)
    strassmann = hit(1, "# Fritz Strassmann\n\nFritz Strassmann was a German chemist. He died in "
                        "1980 in Hanover.\n", title="Fritz Strassmann")  # fmt: skip
    assert not _brief("When was Fritz Strassmann born?", strassmann, meaning=close).answerable
    assert "1980" in compose(_brief("When did Fritz Strassmann die?", strassmann))


def test_atm_typed_in_lower_case_is_at_the_moment():
    asked = read_question("how much do i get paid for a weekday standby atm")
    assert asked.asks_current and "atm" not in asked.terms
    machine = read_question("where is the nearest ATM?")
    assert "atm" in machine.terms and not machine.asks_current


API_SUNSET = """## 3. Deprecation and sunset

- Minimum **12 months** between deprecation announcement and sunset for a major version; **6 months** for individual endpoints or fields within a major.
- Deprecated endpoints return headers:
  ```
  Deprecation: @1704067200
  ```
- Every Monday, `api-usage-report` emails the Customer Success team a list of tenants still calling deprecated endpoints in the last 7 days.
- After sunset, calls return HTTP 410 Gone with GW-4100 API_VERSION_SUNSET for 90 days, then 404.

## 4. Major version in the URL path

- Webhook payloads carry `"api_version": "2"` and are delivered in the major version the merchant configured for that endpoint.
"""


def test_the_unit_stating_most_of_the_question_is_always_judged_for_meaning():
    judged = []

    def meaning(texts):
        judged.extend(texts)
        return [0.7 for _ in texts]

    versioning = hit(1, API_SUNSET, title="API versioning")
    brief = _brief("What is the minimum notice between deprecating and sunsetting a major API "
                   "version?", versioning, meaning=meaning, meaning_units=2)  # fmt: skip
    assert any("Minimum 12 months" in t for t in judged), judged
    minimum = next(s for s in brief.ranked if "Minimum 12 months" in s.unit.text)
    assert minimum.meaning == 0.7


def test_chat_spellings_of_short_words_are_those_words_not_letters():
    assert "r" not in read_question("what r we paying per yr for the hosted historian").terms
    assert "n" not in read_question("how do i mix up the swab n spray stuff").terms
    assert (
        read_question("what r we paying for the historian?").kind
        == read_question("what are we paying for the historian?").kind
    )
    # a capital R, a unit's letters and a week commencing keep theirs
    assert "r" in read_question("what is R used for here?").terms
    assert "w/c 11 may" in read_question("who is on call w/c 11 may").text


def test_where_a_journey_is_for_is_its_destination_not_a_narrowing():
    asked = read_question(
        "how many dogs did amundsen's party take when they left framheim for the pole"
    )
    assert asked.restricted_to == (), asked.restricted_to
    assert read_question("whats the critical potassium limit for children").restricted_to


def test_placeholder_nouns_name_no_subject():
    assert not {"guy", "guys"} & read_question("can the roc guys work from home on nights?").terms
    assert "stuff" not in read_question("how do i mix up the swab n spray stuff").terms
    assert "spray" in read_question("how do i mix up the swab n spray stuff").terms


def test_shutting_something_down_in_a_procedure_leaves_nothing_behind():
    # "switched off" asks when a thing's life ended only in a question asking when; in a
    # how-to or what-if it is a step, and the question leaves nothing behind
    for question in ("how do i shut down a turbine for a blade inspection?",
                     "what happens if the dosing pump is switched off?"):  # fmt: skip
        assert read_question(question).leaving == frozenset(), question


def test_the_other_end_of_a_superlative_does_not_answer():
    poll = hit(1, "# Don Quixote\n\nIn a 2002 poll of 100 writers organised by the Norwegian Book "
                  "Clubs it was voted the best literary work ever written.\n",
               title="Don Quixote")  # fmt: skip

    # (as close in meaning as the embedder finds them)
    def close(texts):
        return [0.8 for _ in texts]

    assert not _brief("In the 2002 Norwegian Book Clubs poll, which book was voted the worst "
                      "literary work ever written?", poll, meaning=close).answerable  # fmt: skip
    assert "best literary work" in compose(
        _brief(
            "In the 2002 Norwegian Book Clubs poll, which book was voted the best literary "
            "work ever written?",
            poll,
            refuse=False,
        )  # fmt: skip
    )
    climate = hit(1, "# Lake Baikal\n\nThe coldest month at the lake is January, with an average "
                     "of -19 °C.\n", title="Lake Baikal")  # fmt: skip
    assert not _brief(
        "Which is the hottest month at Lake Baikal?", climate, meaning=close
    ).answerable
    assert "January" in compose(_brief("Which is the coldest month at Lake Baikal?", climate))


def test_a_bound_is_one_end_of_a_scale_like_a_superlative():
    pam = hit(1, "# Remote access for suppliers\n\nSuppliers get a named account on the PAM jump "
                 "host, enabled for the agreed time window only (maximum 8 hours), and an "
                 "engineer approves each session.\n", title="Remote access for suppliers")  # fmt: skip

    # (as close in meaning as the embedder finds them)
    def close(texts):
        return [0.8 for _ in texts]

    assert not _brief("whats the shortest window a supplier can be given on the pam jump host",
                      pam, meaning=close).answerable  # fmt: skip
    assert "8 hours" in compose(
        _brief("whats the longest window a supplier can be given on the pam jump host", pam)
    )
    rosetta = hit(1, "# Rosetta\n\nRosetta accompanied the comet through its closest approach to "
                     "the Sun in August 2015.\n", title="Rosetta")  # fmt: skip
    assert not _brief("In which month did Rosetta accompany the comet through its farthest point "
                      "from the Sun?", rosetta, meaning=close).answerable  # fmt: skip
    assert "August 2015" in compose(
        _brief(
            "In which month did Rosetta accompany the comet through its closest approach to "
            "the Sun?",
            rosetta,
        )  # fmt: skip
    )


def test_a_melting_point_is_a_value_said_of_one_thing():
    tungsten = hit(1, "# Tungsten\n\nTungsten is a chemical element. It is a hard, grey "
                      "transition metal with the highest melting point of all the elements, "
                      "3,422 °C, followed among the metals by rhenium.\n", title="Tungsten")  # fmt: skip
    assert read_question("What is the melting point of rhenium?").specific
    assert not _brief("What is the melting point of rhenium?", tungsten).answerable
    assert "3,422" in compose(_brief("What is the melting point of tungsten?", tungsten))


def test_what_we_pay_or_what_it_costs_asks_for_an_amount():
    for typed in (
        "what r we paying per yr for the hosted historian",
        "what does the hosted historian cost",
        "what are we spending on the historian each year?",
    ):
        asked = read_question(typed)
        assert asked.kind == "number" and asked.value_kinds == {"money"}, typed
    assert "year" in read_question("what r we paying per yr for the hosted historian").terms
    # what a payment is for is not an amount
    assert read_question("what does the annual fee pay for?").kind != "number"
    historian = hit(1, "# Historian in the cloud\n\nStratus replaced the on-site historian in "
                       "November 2025. It is hosted in the provider's EU region, on a contract "
                       "at EUR 48,000 per year.\n", title="Historian in the cloud")  # fmt: skip
    assert "EUR 48,000" in compose(
        _brief("what r we paying per yr for the hosted historian", historian)
    )


def test_what_a_noun_is_paid_is_those_things_not_an_amount():
    assert read_question("what stuff will finance never pay back on an expense claim").kind != (
        "number"
    )
    assert "pay" not in read_question("what do we pay for the mes system per year").terms


def test_a_unit_of_measure_in_what_is_asked_asks_for_a_quantity():
    asked = read_question("whats the kva rating on the standby generator at eastmoor")
    assert asked.kind == "number" and asked.specific
    assert [v.kind for v in values.values_in("Rating each: 400 kVA")] == ["quantity"]
    generators = hit(1, "# Standby generators\n\n| Site | Generators | Rating each |\n|---|---|---|\n"
                        "| Eastmoor Community Hospital | 1 | 400 kVA |\n"
                        "| St Brigid's Hospital | 2 | 800 kVA |\n",
                     title="Standby generators")  # fmt: skip
    assert "400 kVA" in compose(
        _brief("whats the kva rating on the standby generator at eastmoor", generators)
    )
    assert not _brief("whats the kva rating on the standby generator at the kingsmead park lab",
                      generators).answerable  # fmt: skip


def test_a_question_may_open_with_where_or_when_it_holds_before_it_asks():
    assert read_question("in the 2018 version of the sla what was the p1 fix time").kind == DURATION
    assert read_question("at coldhurst who signs off a recall").kind == "person"
    assert read_question("In what year did the canal open?").kind == "date"
    assert read_question("in the event of a fire which exit do we use").kind == "which"


def test_the_number_of_a_measure_in_a_question_is_no_name():
    asked = read_question("whats the 5 yr cost for larkspur 3.1?")
    assert "5" not in asked.names and "3.1" in asked.names, asked.names
    engine = hit(1, "# Interface engine\n\nLarkspur Integration Hub 3.1, self-hosted in our own "
                    "data centres. Five-year cost of £465,000, covering subscription, support "
                    "and the servers.\n", title="Interface engine",
                 summary="Larkspur Integration Hub 3.1, self-hosted, chosen in 2025.")  # fmt: skip
    assert "£465,000" in compose(_brief("whats the 5 yr cost for larkspur 3.1?", engine))


def test_a_sentence_saying_the_same_year_holds_the_year_of_the_sentence_before():
    cholera = hit(1, "# Cholera\n\nDuring the London epidemic of 1854 the physician John Snow "
                     "traced a cluster of cases to a public water pump. In the same year the "
                     "Italian anatomist Filippo Pacini described the bacterium under the "
                     "microscope, although Robert Koch's isolation of it in 1883 is better "
                     "known.\n", title="Cholera")  # fmt: skip

    def meaning(texts):
        return [0.83 if "Pacini" in text else 0.5 for text in texts]

    answered = _brief("Which Italian anatomist described the cholera bacterium under the "
                      "microscope in 1854?", cholera, meaning=meaning)  # fmt: skip
    assert answered.answerable and "Filippo Pacini" in compose(answered), answered.refusal
    # the sentence before says 1854, not 1855
    assert not _brief("Which Italian anatomist described the cholera bacterium under the "
                      "microscope in 1855?", cholera, meaning=meaning).answerable  # fmt: skip


def test_a_question_is_refused_when_its_source_says_the_named_one_did_not_do_it():
    gresham = hit(1, "# Gresham's law\n\nThe law is named after Sir Thomas Gresham (1519-1579), "
                     "an English merchant and financier who acted as an agent of the Crown in "
                     "Antwerp and advised Queen Elizabeth I on the reform of the debased English "
                     "coinage. Gresham also founded the Royal Exchange in the City of London, "
                     "which opened in 1571. He did not formulate the law in its modern form; the "
                     "name was coined in 1858 by the Scottish economist Henry Dunning Macleod.\n",
                  title="Gresham's law")  # fmt: skip

    def meaning(texts):
        return [0.69 if "formulate" in t else 0.73 if "named after" in t else 0.5 for t in texts]

    brief = _brief("In what year did Thomas Gresham formulate Gresham's law in its modern form?",
                   gresham, meaning=meaning)  # fmt: skip
    assert not brief.answerable, compose(brief)
    # what the source says was done is answered
    answered = _brief("In what year did the Royal Exchange open?", gresham, meaning=meaning)
    assert answered.answerable and "1571" in compose(answered), answered.refusal
    # and asked whether he did, the answer quotes the sentence saying he did not
    asked = _brief("Did Thomas Gresham formulate the law in its modern form?", gresham,
                   meaning=meaning)  # fmt: skip
    assert asked.answerable and "did not formulate" in compose(asked), asked.refusal


def test_a_time_of_its_own_event_does_not_tie_a_sentence_to_the_one_before():
    from chat.answers.units import refers_back, split_units

    text = ("Every reject bin is locked. Metal found in a pack is reported to the technical "
            "manager the same day. Later that year the bins were replaced.")  # fmt: skip
    by_text = {u.text: u for u in split_units(text)}
    assert not refers_back(
        by_text["Metal found in a pack is reported to the technical manager the same day."]
    )
    assert refers_back(by_text["Later that year the bins were replaced."])


def test_a_question_setting_a_thing_aside_is_not_answered_by_that_thing():
    spill = hit(1, "# Quay Street spill, March 2026\n\nWhy it happened: Rags. Both pumps at Quay "
                   "Street were blocked by wet wipes. Quay Street had 23 rag trips in 2025, the most "
                   "of any station.\n", title="Quay Street spill, March 2026")  # fmt: skip
    asked = "which pumping station had the most rag trips last yr"
    answered = _brief(asked, spill)
    assert answered.answerable and "Quay Street had 23 rag trips" in compose(answered)
    for question in (f"apart from quay st, {asked}", f"besides Quay Street, {asked}?",
                     f"other than quay st {asked}"):  # fmt: skip
        brief = _brief(question, spill)
        assert not brief.answerable, (question, compose(brief))
    assert read_question(f"apart from quay st, {asked}").excluded == frozenset({"quay", "st"})


def test_which_things_count_as_something_asks_for_the_things_not_a_number():
    scada = hit(1, "# Meridian SCADA\n\nCritical sites are the three water treatment works, the "
                   "two wastewater treatment works, every service reservoir and the terminal "
                   "pumping stations. Non-critical sites are polled every 30 minutes.\n",
                title="Meridian SCADA platform")  # fmt: skip
    question = read_question("which sites count as the critical ones on scada")
    assert question.kind != NUMBER
    answered = _brief("which sites count as the critical ones on scada", scada)
    assert answered.answerable and "every service reservoir" in compose(answered), answered.refusal


def test_a_thing_asked_at_one_end_of_a_scale_is_not_answered_by_a_unit_silent_on_it():
    baikal = hit(1, "# Lake Baikal\n\nLake Baikal is a rift lake in southern Siberia, Russia, "
                    "lying between Irkutsk Oblast and the Republic of Buryatia. The largest of the "
                    "lake's 27 islands is Olkhon, about 72 kilometres long. Much of Baikal's "
                    "wildlife is found nowhere else.\n", title="Lake Baikal")  # fmt: skip

    def meaning(texts):
        return [0.6 if "islands" in text else 0.55 for text in texts]

    brief = _brief("What is the smallest of Lake Baikal's islands?", baikal, meaning=meaning)
    assert not brief.answerable, compose(brief)
    answered = _brief("What is the largest of Lake Baikal's islands?", baikal, meaning=meaning)
    assert answered.answerable and "Olkhon" in compose(answered), answered.refusal


def test_a_unit_naming_what_is_set_aside_with_something_else_answers():
    peace = hit(1, "# Peace of Westphalia\n\nSweden received Western Pomerania, Wismar and the "
                   "bishoprics of Bremen and Verden, while France gained most of Alsace.\n",
                title="Peace of Westphalia")  # fmt: skip
    brief = _brief("Besides Wismar and the bishoprics of Bremen and Verden, what did the Swedish "
                   "crown gain in the 1648 settlement?", peace,
                   meaning=lambda texts: [0.72 for _ in texts])  # fmt: skip
    assert brief.answerable and "Western Pomerania" in compose(brief), brief.refusal


def test_a_check_due_within_the_last_span_says_how_often():
    climb = hit(1, "# Turbine climb standard\n\n## Required before every climb\n\n- Full-body "
                   "harness inspected within the last 6 months. The inspection tag on the harness "
                   "must show the date.\n", title="SP-04 turbine climb standard")  # fmt: skip
    answered = _brief("how often do climbing harnesses need checked", climb,
                      meaning=lambda texts: [0.73 for _ in texts])  # fmt: skip
    assert answered.answerable and "6 months" in compose(answered), answered.refusal


def test_a_person_named_again_by_surname_is_the_person_the_question_names_in_full():
    icrc = hit(1, "# International Committee of the Red Cross\n\nIt grew out of the experiences "
                  "of the Geneva businessman Henry Dunant, who witnessed the aftermath of the "
                  "Battle of Solferino in 1859. On 17 February 1863 Dunant and four other "
                  "Genevans, Gustave Moynier, Guillaume-Henri Dufour, Louis Appia and Théodore "
                  "Maunoir, founded the so-called Committee of Five.\n",
               title="International Committee of the Red Cross")  # fmt: skip
    brief = _brief("Which four Genevans founded the Committee of Five together with Henry Dunant?",
                   icrc, meaning=lambda texts: [0.7 for _ in texts])  # fmt: skip
    assert brief.answerable and "Gustave Moynier" in compose(brief), brief.refusal
    # a surname alone does not name another person of that name
    assert not names_present(["Jean Dunant"], number_sources(result([icrc]))[0],
                             split_units("On 17 February 1863 Dunant founded it.")[0])  # fmt: skip


def test_a_question_setting_aside_several_things_sets_aside_each():
    question = read_question("apart from the concert hall, the joan sutherland theatre and the "
                             "drama theatre, what other venues does the sydney opera house have")  # fmt: skip
    assert {"concert", "hall", "joan", "sutherland", "drama", "theatre"} <= question.excluded
    assert not {"sydney", "opera", "venue"} & question.excluded


def test_a_unit_saying_it_the_other_way_round_does_not_answer():
    cold = hit(1, "# Cold chain\n\nRecords: Each trailer has a temperature data logger. The "
                  "Pennine driver downloads it at each delivery, and Pennine sends the files to "
                  "the Coldhurst dispatch office weekly.\n", title="Cold chain and transport")  # fmt: skip
    brief = _brief("how often does coldhurst dispatch send the trailer logger files over to pennine",
                   cold, meaning=lambda texts: [0.8 for _ in texts])  # fmt: skip
    assert not brief.answerable, compose(brief)
    answered = _brief("how often does pennine send the trailer logger files to coldhurst", cold,
                      meaning=lambda texts: [0.8 for _ in texts])  # fmt: skip
    assert answered.answerable and "weekly" in compose(answered), answered.refusal


def test_a_second_time_is_not_answered_by_a_unit_telling_of_it_once():
    moore = hit(1, "# Moore's law\n\nGordon Moore predicted in 1965 that the number of components "
                   "per chip would double every year. In 1975 he revised the forecast to a "
                   "doubling every two years.\n", title="Moore's law")  # fmt: skip
    meaning = lambda texts: [0.7 for _ in texts]  # noqa: E731
    brief = _brief("In what year did Gordon Moore revise his forecast for a second time?", moore,
                   meaning=meaning)  # fmt: skip
    assert not brief.answerable, compose(brief)
    answered = _brief("In what year did Gordon Moore revise his forecast?", moore, meaning=meaning)
    assert answered.answerable and "1975" in compose(answered), answered.refusal


def test_a_question_naming_nothing_after_what_is_read():
    for text in ("what?", "what is", "which", "what count", "what count as"):
        assert read_question(text).kind  # (no error)


def test_the_max_time_is_not_a_time_it_happened_again():
    freezer = hit(1, "# Freezer entry\n\nEntering a spiral freezer (SF-1, SF-2): for a maximum of "
                     "20 minutes per entry, followed by at least 15 minutes in a warm area.\n",
                  title="Cold environment work")  # fmt: skip
    brief = _brief("max time per entry inside the spiral freezer?", freezer,
                   meaning=lambda texts: [0.75 for _ in texts])  # fmt: skip
    assert brief.answerable and "20 minutes" in compose(brief), brief.refusal


def test_a_possessive_in_what_is_asked_does_not_hide_the_quantity_after_it():
    assert read_question("greyrock's total score on the 2025 contractor scorecard?").kind == NUMBER
    assert read_question("what is the dam's height?").kind == NUMBER


def test_a_second_question_asking_how_often_keeps_who_the_first_asks_for():
    escalation = hit(1, "# IT and OT support\n\nThe OT escalation list is checked by Marcus "
                        "Lindqvist on the first working day of every month.\n",
                     title="IT and OT support service levels")  # fmt: skip
    question = read_question("who checks the OT on call escalation list and how often")
    assert not question.asks_frequency
    brief = _brief("who checks the OT on call escalation list and how often", escalation,
                   meaning=lambda texts: [0.7 for _ in texts])  # fmt: skip
    answered = compose(brief)
    assert brief.answerable and "Marcus Lindqvist" in answered and "every month" in answered, (
        brief.refusal
    )
    assert read_question("how often is the escalation list checked").asks_frequency


def test_reject_before_a_noun_names_a_thing_not_a_decision():
    bins = hit(1, "# Metal detection\n\nA QA technician empties each bin at least once per "
                  "shift, examines every rejected pack and records what was found.\n",
               title="Metal detection verification")  # fmt: skip
    brief = _brief("who empties the MD reject bins", bins,
                   meaning=lambda texts: [0.6 for _ in texts])  # fmt: skip
    assert brief.answerable and "QA technician" in compose(brief), brief.refusal
    # ...while a question asking who rejected something asks who decided it
    assert not read_question("who empties the MD reject bins").decides
    assert read_question("who knocked back the idea of x-ray").decides
    assert (
        read_question("when did the board reject linelog").relation
        == read_question("when did the board turn down linelog").relation
    )


def test_what_the_question_asks_of_its_subject_is_said_by_the_unit_that_answers():
    cholera = hit(1, "# Cholera\n\nCholera is an infection of the small intestine. A major "
                     "outbreak followed the 2010 earthquake in Haiti.\n", title="Cholera")  # fmt: skip
    lisbon = hit(2, "# Lisbon earthquake\n\nThe Lisbon earthquake struck on 1 November 1755. "
                    "Modern estimates put its magnitude between about 8.5 and 9.0.\n",
                 title="1755 Lisbon earthquake")  # fmt: skip
    meaning = lambda texts: [0.6 for _ in texts]  # noqa: E731
    weights = {"magnitude": 1.5, "earthquake": 2.0, "haiti": 3.0}
    brief = _brief("What was the magnitude of the 2010 earthquake in Haiti?", cholera, lisbon,
                   meaning=meaning, weights=weights)  # fmt: skip
    assert not brief.answerable, compose(brief)
    answered = _brief("What was the magnitude of the 1755 Lisbon earthquake?", cholera, lisbon,
                      meaning=meaning)  # fmt: skip
    assert answered.answerable and "8.5" in compose(answered), answered.refusal
    # what something is called is asked of it, not said by the word "name"
    assert not read_question("What is the name of Don Quixote's horse?").property_asked


def test_a_unit_saying_the_word_a_question_negates_with_un_says_the_opposite():
    dvorak = hit(1, "# Antonín Dvořák\n\nBack in Bohemia he turned increasingly to opera; the "
                    "most successful of his operas, Rusalka, was first staged in Prague in 1901.\n",
                 title="Antonín Dvořák")  # fmt: skip
    meaning = lambda texts: [0.65 for _ in texts]  # noqa: E731
    brief = _brief("Which of Dvořák's operas were unsuccessful when first staged?", dvorak,
                   meaning=meaning)  # fmt: skip
    assert not brief.answerable, compose(brief)
    answered = _brief("Which of Dvořák's operas was successful when first staged?", dvorak,
                      meaning=meaning)  # fmt: skip
    assert answered.answerable and "Rusalka" in compose(answered), answered.refusal
    assert not read_question("which unit is it on").opposed  # (not a word negated)


def test_a_handover_note_stating_another_limit_in_the_same_measure_yields_to_the_standard():
    # the handover names the line and the allergen; the standard's rule is for every
    # changeover, so it shares fewer of the question's words
    handover = hit(1, "# Coldhurst shift handover\n\n## Hygiene / allergens\n\n- Celery changeover "
                      "on CH2 at 05:40: swabs negative at all 3 points. ATP on the depositor came "
                      "back 240 RLU - pass, the limit is 300 RLU so we're fine.\n- Purple kit on "
                      "CH2 missing one scraper.\n",
                   title="Coldhurst shift handover 18 February", slug="handover")  # fmt: skip
    standard = hit(2, "# Allergen changeover cleaning\n\n## The seven required steps\n\n1. "
                      "**Allergen swab.** A swab at three fixed points on the line.\n2. **ATP "
                      "swab.** At the same three points. The pass limit is 150 RLU or below.\n",
                   title="Allergen changeover cleaning", slug="allergen-changeover",
                   canonical_type="standard", canonical_status="accepted")  # fmt: skip
    weights = {"celery": 3.0, "ch2": 3.0, "atp": 2.0, "changeover": 1.5, "pass": 1.0,
               "limit": 1.0, "clean": 1.0}  # fmt: skip
    brief = _brief("whats the atp pass limit after the celery changeover clean on ch2", handover,
                   standard, weights=weights, meaning=lambda texts: [0.6 for _ in texts])  # fmt: skip
    text = compose(brief)
    assert brief.lead is not None and brief.lead.source.hit.slug == "allergen-changeover", (
        brief.refusal or text
    )
    assert text.index("150 RLU") < text.index("handover"), text


def test_where_the_documents_say_the_other_side_a_unit_saying_neither_does_not_answer():
    store = hit(1, "# Cold chain\n\n## Frozen store\n\n- The store runs at a set point of -25 °C.\n"
                   "- The high-temperature alarm is set at -21 °C and goes to the security "
                   "lodge.\n", title="Cold chain and dispatch standard")  # fmt: skip
    meaning = lambda texts: [0.7 for _ in texts]  # noqa: E731
    brief = _brief("at what temp does the low temperature alarm go off in the frozen store",
                   store, meaning=meaning)  # fmt: skip
    assert not brief.answerable, compose(brief)
    answered = _brief("at what temp does the high temperature alarm go off in the frozen store",
                      store, meaning=meaning)  # fmt: skip
    assert answered.answerable and "-21 °C" in compose(answered), answered.refusal


def test_every_time_something_is_done_is_no_span_of_time():
    assert read_question("list every time the metal detectors have to be tested").kind != DURATION
    assert read_question("what is the response time for a P2").kind == DURATION


def test_what_a_question_sets_aside_ends_at_its_verb_and_its_article_does_not_answer():
    question = read_question("what other land mammals besides the arctic fox are native to iceland")
    assert question.excluded == words.terms("the arctic fox")
    fox = hit(1, "# Arctic fox\n\nThe Arctic fox is the only land mammal native to Iceland, which "
                 "it reached across the sea ice at the end of the last ice age.\n",
              title="Arctic fox")  # fmt: skip
    brief = _brief("what other land mammals besides the arctic fox are native to iceland", fox,
                   meaning=lambda texts: [0.8 for _ in texts])  # fmt: skip
    assert not brief.answerable, compose(brief)


def test_a_not_about_something_else_does_not_answer_what_is_not_so():
    moby = hit(1, "# Moby-Dick\n\nThe book contains 135 chapters and an epilogue, many of them "
                  "digressions on whales and whaling. The British edition omitted the epilogue, "
                  "which led some reviewers to complain that the narrator could not have survived "
                  "to tell the story.\n", title="Moby-Dick")  # fmt: skip
    meaning = lambda texts: [0.6 for _ in texts]  # noqa: E731
    brief = _brief("Which chapters of Moby-Dick are not digressions?", moby, meaning=meaning)
    assert not brief.answerable, compose(brief)
    kili = hit(2, "# Kilimanjaro\n\nThe Marangu route offers sleeping huts. The Machame route has "
                  "no huts; climbers camp in tents.\n", title="Kilimanjaro")  # fmt: skip
    answered = _brief("which route up kilimanjaro does not offer huts?", kili, meaning=meaning)
    assert answered.answerable and "Machame" in compose(answered), answered.refusal


def test_a_question_checking_its_own_guess_after_a_comma_still_asks_what_it_asked():
    question = read_question("p2 tickets - how fast do we have to respond, is it an hour?")
    assert question.kind == DURATION
    # ...while a case stated first is still only the case
    assert read_question("a tech left his lock on, who has to sign off?").kind != DURATION


def test_asked_when_something_was_left_behind_a_superseded_record_saying_so_is_quoted():
    tessellate = hit(1, "# Tessellate replaces BridgeWay\n\nWe move every feed from BridgeWay to "
                        "Tessellate in three waves. Migration finished on 25 November 2019 and "
                        "BridgeWay was switched off the same evening.\n",
                     title="Tessellate Interface Engine replaces BridgeWay",
                     canonical_type="decision", canonical_status="superseded", document_id=11)  # fmt: skip
    larkspur = hit(2, "# Larkspur Integration Hub\n\nLarkspur Integration Hub is our interface "
                      "engine. Replaces: the Tessellate Interface Engine.\n",
                   title="Larkspur Integration Hub", canonical_type="decision",
                   canonical_status="accepted", document_id=12)  # fmt: skip
    link = SupersedeLink(
        older=DocumentRef(document_id=11, title="Tessellate Interface Engine replaces BridgeWay",
                          slug="t", status="superseded"),
        newer=DocumentRef(document_id=12, title="Larkspur Integration Hub", slug="l",
                          status="accepted"),
    )  # fmt: skip
    brief = _brief("when did we stop using bridgeway altogether", tessellate, larkspur,
                   links=[link], meaning=lambda texts: [0.6 for _ in texts])  # fmt: skip
    text = compose(brief)
    assert "25 November 2019" in text, text


def test_a_thing_set_aside_that_the_question_also_names_as_its_subject_still_answers():
    bologna = hit(1, "# University of Bologna\n\nThe university today has around 90,000 students "
                     "and campuses in Bologna, Cesena, Forlì, Ravenna and Rimini.\n",
                  title="University of Bologna")  # fmt: skip
    weights = {"campus": 2.0, "bologna": 1.5, "university": 1.0, "town": 1.0, "host": 1.0}
    brief = _brief("besides Bologna itself, which towns host campuses of the University of "
                   "Bologna", bologna, weights=weights, meaning=lambda texts: [0.73 for _ in texts])  # fmt: skip
    assert brief.answerable and "Cesena" in compose(brief), brief.refusal


def test_a_week_commencing_is_no_subject_and_a_number_is_not_found_inside_a_larger_one():
    assert not {"w", "c"} & read_question("whos on the integration on call w/c 20 april").terms
    rota = hit(1, "# On-call rota\n\n## Rota\n\n| Week | Integration | Duty manager |\n|---|---|---|\n"
                  "| 13 Apr 2026 | Liam Foster | Rachel Okafor |\n"
                  "| 20 Apr 2026 | Sofia Lindqvist | Declan Byrne |\n",
               title="Clinical IT on-call rota Q2 2026")  # fmt: skip
    runbook = hit(2, "# Queue backlog\n\nEscalate when the queue passes 20,000 messages: phone "
                     "the Head of Integration (Owen Gallagher).\n", title="Larkspur queue backlog")  # fmt: skip
    brief = _brief("whos on the integration on call w/c 20 april", runbook, rota,
                   meaning=lambda texts: [0.5 for _ in texts])  # fmt: skip
    assert brief.answerable and "Sofia Lindqvist" in compose(brief), brief.refusal or compose(brief)
    assert not names_in(["20"], "the queue passes 20,000 messages")


def test_where_every_unit_saying_the_verb_dates_it_to_another_year_the_year_asked_is_refused():
    nokia = hit(1, "# Nokia\n\nNokia Corporation is a Finnish multinational telecommunications "
                   "company. The company then concentrated on network infrastructure, buying the "
                   "French-American equipment maker Alcatel-Lucent in 2016.\n", title="Nokia")  # fmt: skip
    meaning = lambda texts: [0.7 for _ in texts]  # noqa: E731
    weights = {"nokia": 3.0, "company": 2.0, "buy": 2.0}
    brief = _brief("Which company did Nokia buy in 2006?", nokia, meaning=meaning, weights=weights)
    assert not brief.answerable, compose(brief)
    answered = _brief("Which company did Nokia buy in 2016?", nokia, meaning=meaning,
                      weights=weights)  # fmt: skip
    assert answered.answerable and "Alcatel-Lucent" in compose(answered), answered.refusal


def test_a_comparison_with_neither_value_in_its_evidence_looks_for_both_in_turn():
    from chat.answers.evidence import says_more

    # the postmortem's many timeline rows are found first, its summary and the SLA's table
    # are not; a meeting note's "6 hours" is no target (a note does not set one)
    rows = "\n".join(
        f"| {7 + n // 6:02d}:{n % 6 * 10:02d} | Lab feed outage: step {n + 1} of the recovery "
        f"of the lab results feed |"
        for n in range(44)
    )
    timeline = hit(1, "# Lab feed outage, 9 February\n\n## Timeline\n\n| Time | What happened "
                      f"|\n|---|---|\n{rows}\n", title="Lab feed outage, 9 February",
                   canonical_type="incident", canonical_status="accepted", slug="inc-31")  # fmt: skip
    notes = _ops_sync("someone asked if we met the SLA. P1s get 6 hours to fix, so yes.")
    question = "did we meet the sla on the feb lab feed outage"
    first = _brief(question, timeline, notes)
    # neither what was measured nor a target: the measurement is looked for first
    assert first.unstated.split()[-1] == "duration", first.unstated
    summary = hit(4, LAB_OUTAGE, title="Lab feed outage, 9 February", canonical_type="incident",
                  canonical_status="accepted", slug="inc-31")  # fmt: skip
    second = _brief(question, timeline, notes, summary)
    # what was measured, where the first found neither it nor a target, says more; the
    # target is looked for next, by the incident's priority
    assert second.measured and not first.measured
    assert says_more(first, second)
    assert "P1" in second.unstated.split(), second.unstated
    levels = hit(2, SUPPORT_LEVELS + "\n## Change history\n\n- Version 4: P1 response target "
                    "shortened from 15 to 10 minutes.\n",
                 title="Support priorities and service levels (SLA)", canonical_type="standard",
                 canonical_status="accepted", slug="std-sl")  # fmt: skip
    third = _brief(question, timeline, notes, summary, levels)
    assert says_more(second, third)
    # the P1 row, however far below the timeline's rows it ranks, not the change history
    assert third.support[0].unit.text.startswith("P1"), third.support[0].unit.text
    assert third.verdict == "no"
    answer = compose(third)
    assert re.search(r"\b5 h 05 min\b", answer) and re.search(r"\b4 hours\b", answer), answer


def test_a_value_of_another_thing_named_with_the_same_noun_does_not_answer():
    process = hit(1, "# Kestle Moor treatment works\n\n## Source\n\nKestle Moor Reservoir is an "
                     "upland impounding reservoir holding about 9,800 Ml when full. It supplies "
                     "Brenmouth and the coastal towns through the Carn Hill and Lantern Hill "
                     "service reservoirs.\n", title="Kestle Moor treatment works",
                  canonical_type="standard", canonical_status="accepted")  # fmt: skip
    # "Kestle Moor Reservoir" is another reservoir than the one asked about
    weights = {"lantern": 1.0, "hill": 0.5, "reservoir": 1.0, "hold": 1.0, "water": 0.5}
    swapped = _brief("how much water does lantern hill reservoir hold", process, weights=weights)
    assert not swapped.answerable, compose(swapped)
    asked = _brief("how much water does kestle moor reservoir hold", process, weights=weights)
    assert asked.answerable and re.search(r"\b9,800 Ml\b", compose(asked)), compose(asked)


def test_a_value_changed_from_one_amount_to_another_states_a_change():
    from chat.answers.units import states_change

    def said(text):
        return states_change(split_units(text)[0])

    assert said("Version 4 (2025): P1 response target shortened from 15 to 10 minutes.")
    assert said("The limit was raised from 100 to 150 RLU in March.")
    assert not said("Results are sent from Vireo to Aster EPR every minute.")
    assert not said("P1 - Critical: response target 10 minutes, resolution target 4 hours.")


def test_the_shortest_is_not_answered_by_a_bound_on_the_longest():
    billing = hit(1, "# Billing and debt\n\n## Paying\n\n- Payment plans for customers in arrears, "
                     "agreed by the contact centre for up to 24 months.\n- Direct debit on any "
                     "day of the month.\n", title="Billing and debt", canonical_type="standard",
                  canonical_status="accepted")  # fmt: skip
    shortest = _brief("whats the shortest payment plan we can agree for a customer in arrears",
                      billing)  # fmt: skip
    assert not shortest.answerable, compose(shortest)
    longest = _brief("whats the longest payment plan we can agree for a customer in arrears",
                     billing)  # fmt: skip
    assert longest.answerable and re.search(r"\b24 months\b", compose(longest))
    # nor a maximum by a minimum
    crew = hit(2, "# Confined space entry\n\nEvery entry needs at least 3 people: the entrant, "
                  "the top person and a rescuer.\n", title="Confined space entry",
               canonical_type="standard", canonical_status="accepted")  # fmt: skip
    assert not _brief("what is the maximum number of people for a confined space entry?",
                      crew).answerable  # fmt: skip


def test_a_target_named_only_as_a_target_is_the_one_of_the_measurement_s_scale():
    # "the P1 target" names both the response and the resolution target alike: the one an
    # outage of hours is held against is the one of hours, not the 10-minute response
    question = "did the february lab feed outage get fixed within the P1 target?"
    brief = _brief(question, *_lab_outage_and_levels())
    assert brief.support[0].unit.text.startswith("P1"), brief.support[0].unit.text
    assert brief.verdict == "no", compose(brief)
    quick = _lab_outage_and_levels(outage=LAB_OUTAGE.replace("5 h 05 min", "3 h 20 min"))
    assert _brief(question, *quick).verdict == "yes"


def test_a_target_labelled_as_one_is_held_against_ahead_of_a_limit_said_in_passing():
    escalation = (
        "\n## Escalation\n\nA P1 lab feed outage not fixed within 2 hours is escalated to the "
        "head of service.\n\nAny P1, and any P2 that misses its resolution target, gets a written "
        "postmortem within 10 business days.\n"
    )
    sources = _lab_outage_and_levels(levels=escalation + "\n" + SUPPORT_LEVELS)
    brief = _brief("did the february lab feed outage get fixed within the P1 target?", *sources)
    assert brief.support[0].unit.text.startswith("P1"), brief.support[0].unit.text
    assert brief.verdict == "no", compose(brief)


def test_a_verb_another_name_does_is_not_done_by_the_one_asked_about():
    meitner = hit(1, "# Lise Meitner\n\nLise Meitner was an Austrian-Swedish physicist. Hahn "
                     "alone received the 1944 Nobel Prize in Chemistry, although Meitner was "
                     "nominated 48 times for Nobel prizes in physics and chemistry.\n",
                  title="Lise Meitner")  # fmt: skip
    brief = _brief("In what year did Lise Meitner receive a Nobel Prize?", meitner)
    assert not brief.answerable, compose(brief)
    assert _brief("In what year did Hahn receive a Nobel Prize?", meitner).answerable
    # the one asked about named in the clause before the verb does it too
    both = hit(2, "# Lise Meitner\n\nIn 1966 Meitner, with Hahn and Strassmann, received the "
                  "Enrico Fermi Award.\n", title="Lise Meitner")  # fmt: skip
    assert _brief("In what year did Lise Meitner receive the Enrico Fermi Award?", both).answerable


def test_a_thing_its_document_says_was_never_found_is_not_measured_by_another_sentence():
    tunguska = hit(1, "# Tunguska event\n\nThe Tunguska event was a huge explosion on 30 June "
                      "1908. It is thought to have been the air burst of a stony asteroid about "
                      "50 to 60 metres across. Leonid Kulik led the first expedition in 1927. He "
                      "expected a crater but found none; near the centre of the blast, trees "
                      "still stood upright.\n", title="Tunguska event")  # fmt: skip
    weights = {"crater": 1.0, "explosion": 1.0, "left": 0.3, "tunguska": 2.0, "asteroid": 1.0}

    def close(texts):  # (as close in meaning as the embedder finds them)
        return [0.7 for _ in texts]

    brief = _brief("how wide is the crater left by the tunguska explosion", tunguska,
                   weights=weights, meaning=close)  # fmt: skip
    assert not brief.answerable, compose(brief)
    asked = _brief("how wide was the asteroid behind the tunguska explosion", tunguska,
                   weights=weights, meaning=close)  # fmt: skip
    assert asked.answerable and "60 metres" in compose(asked), compose(asked)


def test_what_was_never_found_is_the_thing_the_sentence_says_so_of():
    amundsen = hit(1, "# Roald Amundsen\n\nBetween 1903 and 1906 Amundsen took the 47-ton herring "
                      "sloop Gjøa through the Northwest Passage. Amundsen vanished in 1928 when "
                      "the flying boat carrying him disappeared during the rescue search; his "
                      "body was never found.\n", title="Roald Amundsen")  # fmt: skip
    # his body was never found, not the boat asked about
    brief = _brief("What was the name of the boat Amundsen used to get through the Northwest "
                   "Passage?", amundsen)  # fmt: skip
    assert brief.answerable and "Gjøa" in compose(brief), compose(brief)


def test_a_verb_said_of_another_after_the_one_asked_about_may_say_it_in_other_words():
    westphalia = hit(1, "# Peace of Westphalia\n\nSweden received Western Pomerania, Wismar and "
                        "the bishoprics of Bremen and Verden, while France gained most of "
                        "Alsace.\n", title="Peace of Westphalia")  # fmt: skip
    brief = _brief("Which territories did Sweden gain under the Peace of Westphalia?", westphalia)
    assert brief.answerable and "Western Pomerania" in compose(brief), compose(brief)
