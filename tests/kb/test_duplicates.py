"""Near-duplicate documents (issue 30 part 4): MinHash signatures (datasketch), groups and the
document that stands for a group. Pure: no database."""

from __future__ import annotations

import datetime as dt

from kb.duplicates import (
    BANDS,
    NUM_PERM,
    Candidate,
    bands,
    document_signature,
    groups,
    preferred,
    signature,
    similarity,
    stand_ins,
)

POLICY = (
    "Backup retention policy. The Kestrel vault keeps every nightly backup for four hundred "
    "days and the Osprey vault keeps ninety days. Encryption keys rotate every forty five "
    "days; the on-call engineer approves each rotation before nine in the morning. Restores "
    "are tested every quarter on a random two percent of the snapshots, compared byte for "
    "byte with their checksums, and the results are filed with the security officer."
)
EDITED = POLICY.replace("before nine in the morning", "before ten in the morning")
OTHER = (
    "Incident severity. A SEV-1 is customer data lost or exposed, or the product down for "
    "more than thirty minutes; the incident commander pages the database team at once."
)
NOON = dt.datetime(2026, 3, 1, 12, tzinfo=dt.UTC)


def test_the_same_text_has_the_same_signature_whatever_its_layout():
    one = signature(POLICY)
    assert len(one) == NUM_PERM
    assert signature(POLICY.upper().replace(". ", ".\n\n")) == one
    assert document_signature([POLICY[:200], POLICY[200:]]) != []
    assert similarity(one, signature(POLICY)) == 1.0
    assert signature("  ... ") == [] and bands([]) == []


def test_a_lightly_edited_copy_is_near_and_another_text_is_far():
    assert similarity(signature(POLICY), signature(EDITED)) > 0.8
    assert similarity(signature(POLICY), signature(OTHER)) < 0.2
    assert similarity(signature(POLICY), []) == 0.0


def test_near_copies_share_an_lsh_band_and_unrelated_texts_do_not():
    policy, edited, other = (bands(signature(text)) for text in (POLICY, EDITED, OTHER))
    assert len(policy) == BANDS
    assert set(policy) & set(edited)
    assert not set(policy) & set(other)


def test_pairs_chain_into_groups():
    assert groups([(1, 2), (2, 3), (7, 8)]) == [{1, 2, 3}, {7, 8}]
    assert groups([]) == []


def test_a_curated_record_stands_for_its_group_else_the_newest():
    old_record = Candidate(document_id=1, curated=True, updated_at=NOON)
    newer_copy = Candidate(document_id=2, curated=False, updated_at=NOON + dt.timedelta(days=9))
    newest_copy = Candidate(document_id=3, curated=False, updated_at=NOON + dt.timedelta(days=10))
    assert preferred([old_record, newer_copy, newest_copy]) == 1
    assert preferred([newer_copy, newest_copy]) == 3
    same_time = Candidate(document_id=4, curated=False, updated_at=newest_copy.updated_at)
    assert preferred([newest_copy, same_time]) == 4  # a tie: the later document
    lone = Candidate(document_id=9, curated=False, updated_at=NOON)
    assert stand_ins([newer_copy, newest_copy, lone], [(2, 3)]) == {2: 3, 3: 3}
