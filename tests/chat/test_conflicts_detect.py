"""The conflicts detector on passage pairs, without a database: the same subject with a
different value is raised; other subjects, the same value in other words and the same number
about another thing are not."""

from __future__ import annotations

import pytest

from chat.conflicts.detect import RULE, conflict, conflicts, passages

RUNBOOK = """# Portal database recovery

## Backups

- PITR window: 35 days of WAL on the backup bucket.
- Restores are tested every quarter by the platform team.
"""
NOTES = """# Ops sync 11 June

Someone asked about restores. We agreed the PITR window of WAL on the backup bucket is 14
days, said Tom, and nobody objected.
"""


def _one(a: str, b: str):
    found = conflicts(passages(a, document_id=1), passages(b, document_id=2))
    return found[0] if found else None


def test_a_meeting_note_stating_another_pitr_window_conflicts_with_the_runbook():
    found = conflicts(passages(RUNBOOK, document_id=1), passages(NOTES, document_id=2))
    assert len(found) == 1
    assert (found[0].record_value, found[0].other_value) == ("35 days", "14 days")
    assert "PITR window: 35 days" in found[0].record.text
    assert "said Tom" in found[0].other.text


@pytest.mark.parametrize(
    ("record", "other", "values"),
    [
        (
            "Hotel stays are reimbursed up to EUR 180 per night.",
            "How much can I spend? Hotel stays are reimbursed up to EUR 150 per night.",
            ("EUR 180", "EUR 150"),
        ),
        (
            "The production Kafka cluster runs 6 brokers across three zones.",
            "Our production Kafka cluster has 9 brokers spread over three zones.",
            ("6 brokers across", "9 brokers spread"),
        ),
        (
            "An account is locked after 5 failed login attempts.",
            "Users get locked out after 3 failed login attempts, so ask them to wait.",
            ("5 failed login", "3 failed login"),
        ),
        (
            "The scrap rate target for line 3 is 2.5% per shift.",
            "Line 3 scrap rate target is 4% per shift, per the new plant manager.",
            ("2.5%", "4%"),
        ),
    ],
)
def test_the_same_subject_with_another_value_conflicts(record, other, values):
    found = _one(record, other)
    assert found is not None
    assert (found.record_value, found.other_value) == values


def test_the_opposite_rule_about_the_same_thing_conflicts():
    found = _one(
        "Employees on probation must not work remotely from abroad.",
        "Employees on probation are allowed to work remotely from abroad for up to two weeks.",
    )
    assert found is not None and found.kind == RULE


@pytest.mark.parametrize(
    ("record", "other"),
    [
        # other subjects, other values
        ("PITR window: 35 days of WAL on the backup bucket.", "Access logs are kept for 14 days."),
        (
            "The production Kafka cluster runs 6 brokers across three zones.",
            "The staging Kafka cluster runs 3 brokers in a single zone.",
        ),
        (
            "Priority 1 tickets: first response within 1 hour.",
            "Priority 3 tickets: first response within 2 working days.",
        ),
        (
            "The annual access review must be completed by 31 March 2025.",
            "The annual security awareness training must be completed by 30 June 2025.",
        ),
        # the same value in other words
        (
            "PITR window: 35 days of WAL on the backup bucket.",
            "You can restore the portal database to any point in the last five weeks.",
        ),
        (
            "Priority 1 tickets: first response within 1 hour.",
            "We answer priority 1 tickets within 60 minutes, day or night.",
        ),
        # the same number about another thing
        (
            "An account is locked after 5 failed login attempts.",
            "On 5 July the login service failed for 40 minutes; accounts were not affected.",
        ),
        # a length of time is no answer to how often
        (
            "Full-time staff receive 25 days of paid annual leave per year.",
            "Annual leave requests are approved weekly by the team lead.",
        ),
        # a measure in another unit (not converted: not compared)
        (
            "Guard rails on scaffolding must be at least 950 mm high.",
            "Scaffolding guard rails must be at least 95 cm high.",
        ),
        # a row about another site (a name each side says and the other does not)
        (
            "Tenterfield — Replaces: LineLog; Go-live: planned for 8 June 2026",
            "The plan is to go live at Coldhurst in August 2025.",
        ),
        # a count of things is no answer to a bare score
        (
            "Quantity — 3,120 packs, all in one batch",
            "Kestrel Packaging — Quality (complaints, rejections): 5; Price: 8",
        ),
        # a date said less precisely agrees with it
        (
            "Larkspur therefore went live on 13 October 2025.",
            "Since Larkspur went live in October 2025, the team has had its own pager.",
        ),
        # a number per period is no answer to a total
        (
            "The call centre took 212 calls about the problem.",
            "The call centre takes about 1,900 calls a month from patients asking for results.",
        ),
        # when a chat message was sent is not what it says
        (
            "Marcus Lee approves the certificate change by phone at 13:05.",
            "[2026-03-05 08:45] Marcus Lee: certificate change approved, morning all.",
        ),
        # a row about a site says other things about it than a note naming the site
        (
            "Carn Dubh — Turbines: 12; In operation since: October 2023",
            "Nordvik spring service starts at Sollia Heights in April. Carn Dubh in June as usual.",
        ),
        # the same polarity
        (
            "Employees on probation must not work remotely from abroad.",
            "While on probation you cannot work remotely from another country.",
        ),
    ],
)
def test_no_conflict(record, other):
    assert _one(record, other) is None


def test_a_passage_is_in_at_most_one_conflict():
    record = passages(
        "Hotel stays are reimbursed up to EUR 180 per night.", document_id=1
    ) + passages("Hotel stays abroad are reimbursed up to EUR 180 per night.", document_id=1)
    other = passages("Hotel stays are reimbursed up to EUR 150 per night.", document_id=2)
    assert len(conflicts(record, other)) == 1


def test_code_lines_are_no_passages():
    assert passages("```\nretention_days = 35\n```\n", document_id=1) == []


def test_the_record_side_of_a_conflict_is_the_record_passage():
    a = passages("Hotel stays are reimbursed up to EUR 180 per night.", document_id=1)[0]
    b = passages("Hotel stays are reimbursed up to EUR 150 per night.", document_id=2)[0]
    found = conflict(a, b)
    assert found is not None and found.record is a and found.other is b


def test_a_table_rows_first_cell_is_what_its_values_are_about():
    table = (
        "## Rollout\n\n| Site | Replaces | Go-live |\n|---|---|---|\n"
        "| Coldhurst | Tracto | October 2025 |\n| Tenterfield | LineLog | planned for 8 June 2026 |\n"
    )
    note = "The plan is to go live at Coldhurst in August 2025."
    found = conflicts(passages(table, document_id=1), passages(note, document_id=2))
    assert [f.record.text.split(" — ")[0] for f in found] == ["Coldhurst"]
    assert found[0].record_value == "October 2025"


def test_how_often_in_words_is_not_compared():
    assert (
        _one(
            "The escalation list is checked monthly by the OT lead.",
            "The OT lead checks the escalation list every month.",
        )
        is None
    )


def test_a_date_that_differs_in_a_part_both_state_conflicts():
    found = _one(
        "Larkspur therefore went live on 13 October 2025.",
        "Larkspur went live in November 2025, after the second test run.",
    )
    assert found is not None
    assert (found.record_value, found.other_value) == ("13 October 2025", "November 2025")
