"""The status workflow table, without a database."""

from __future__ import annotations

import pytest

from canonical.transitions import (
    ALLOWED_TRANSITIONS,
    InvalidTransition,
    InvalidValue,
    change_errors,
    check_priority,
    check_transition,
)
from kb.models import CanonicalStatus


@pytest.mark.parametrize(
    ("from_status", "to_status"),
    [
        ("draft", "review"),
        ("review", "accepted"),
        ("accepted", "deprecated"),
        ("accepted", "archived"),
        ("deprecated", "accepted"),
        ("archived", "accepted"),
        ("accepted", "superseded"),
        (None, "draft"),
    ],
)
def test_allowed_transitions_pass(from_status, to_status):
    check_transition(from_status, to_status)


@pytest.mark.parametrize(
    ("from_status", "to_status"),
    [
        ("draft", "deprecated"),
        ("draft", "superseded"),
        ("archived", "deprecated"),
        ("superseded", "deprecated"),
        (None, "archived"),
    ],
)
def test_disallowed_transitions_name_both_ends_and_the_way_out(from_status, to_status):
    with pytest.raises(InvalidTransition) as err:
        check_transition(from_status, to_status)
    message = str(err.value)
    assert f"to {to_status}" in message
    assert "Allowed from" in message
    assert err.value.field == "canonical_status"


def test_same_status_is_reported_as_already_there():
    with pytest.raises(InvalidTransition, match="already accepted"):
        check_transition("accepted", "accepted")


def test_unknown_status_is_a_value_error_listing_the_vocabulary():
    with pytest.raises(InvalidValue, match="Unknown status 'done'.*accepted"):
        check_transition("accepted", "done")


def test_table_covers_every_status_and_only_known_ones():
    statuses = set(CanonicalStatus.values)
    assert set(ALLOWED_TRANSITIONS) == statuses | {None}
    for targets in ALLOWED_TRANSITIONS.values():
        assert targets <= statuses


@pytest.mark.parametrize("value", [0, 50, 100])
def test_priority_in_range(value):
    assert check_priority(value) == value


@pytest.mark.parametrize("value", [-1, 101, 1000, "50", 5.5, True, None])
def test_priority_out_of_range_or_not_an_int(value):
    with pytest.raises(InvalidValue) as err:
        check_priority(value)
    assert err.value.field == "retrieval_priority"


@pytest.mark.parametrize(
    ("state", "changes", "expected"),
    [
        # a new type makes a plain document a draft, so "draft" with it is no change of status
        ((None, None), {"canonical_type": "runbook", "canonical_status": "draft"}, {}),
        ((None, None), {"canonical_type": "runbook", "canonical_status": "accepted"}, {}),
        ((None, None), {"canonical_status": "accepted"}, {"canonical_status": "type first"}),
        (("runbook", "accepted"), {"canonical_type": None}, {"canonical_type": "keeps its type"}),
        (("runbook", "accepted"), {"canonical_status": None}, {"canonical_status": "cleared"}),
        (
            ("runbook", "accepted"),
            {"canonical_status": "superseded", "retrieval_priority": 101},
            {"canonical_status": "naming its successor", "retrieval_priority": "0 and 100"},
        ),
        (("runbook", "archived"), {"canonical_status": "review"}, {"canonical_status": "Allowed"}),
    ],
)
def test_change_errors_is_the_one_dry_run_of_the_edit_rules(state, changes, expected):
    canonical_type, canonical_status = state
    errors = change_errors(
        canonical_type=canonical_type, canonical_status=canonical_status, changes=changes
    )
    assert set(errors) == set(expected)
    for field, fragment in expected.items():
        assert fragment in str(errors[field]) and errors[field].field == field
