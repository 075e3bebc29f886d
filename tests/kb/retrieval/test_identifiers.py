"""Identifiers named in a query: which tokens count (no database)."""

from __future__ import annotations

import pytest

from kb.words import identifiers


@pytest.mark.parametrize(
    ("query", "exact", "slug_like"),
    [
        ("What did ADR-0005 decide?", ("ADR-0005",), ()),
        ("What does ERR-NTF-6002 mean?", ("ERR-NTF-6002",), ()),
        ("What does INGEST_DEDUPE_FAIL_OPEN do?", ("INGEST_DEDUPE_FAIL_OPEN",), ()),
        ("How long is tracking.events.raw kept?", ("tracking.events.raw",), ()),
        ("What is dec-rate-limiting about?", (), ("dec-rate-limiting",)),
        ("Why not SQS?", ("SQS",), ()),
        ("Is it ok on 2024-01-22 or at 10:00?", (), ()),  # dates and times are not names
        ("How do I fail over the Redis cluster?", (), ()),
    ],
)
def test_query_identifiers(query, exact, slug_like):
    found = identifiers(query)
    assert found.exact == exact
    assert found.slug_like == slug_like


def test_quoted_titles_are_matched_as_titles():
    found = identifiers('What does "Standard: Logging" say about secrets?')
    assert found.titles == ("Standard: Logging",)
