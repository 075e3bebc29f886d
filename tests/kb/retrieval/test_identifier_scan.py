"""Identifiers contained in chunk text: found through the full-text index, as by the regex."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from kb.models import Document
from kb.retrieval.identifiers import identifier_candidates
from kb.retrieval.sql import Scope
from kb.services import document_ingest
from portal.access.services import project_ensure

# Each document mentions its identifier in a different context (punctuation, compounds).
TEXTS = {
    "paren": "The pager fired (GW-4021). Drain the backlog first.",
    "suffix": "A GW-4021-x alert is the same backlog, seen by the replica.",
    "env": "Set INGEST_DEDUPE_FAIL_OPEN=1 to keep ingesting when the dedupe store is down.",
    "dotted": "Raw events land in tracking.events.raw, kept for thirty days.",
    "gene": "IL-6-dependent signalling rises after the injury.",
    "longer": "GW-40210 is a different code entirely.",
    "flag": "Pass BOTH to merge the two lists.",
}


@pytest.fixture
def scope(alpha) -> Scope:
    project = project_ensure(key="ident-scan")
    for slug, text in TEXTS.items():
        # titles and slugs name nothing: only the text contains the identifiers
        document_ingest(project=project, source_path=f"{slug}.md", content=f"# Note\n\n{text}\n")
    return Scope.for_documents(Document.objects.filter(project=project))


def containing(scope: Scope, query: str) -> list[str]:
    found = identifier_candidates(
        query=query, scope=scope, vector=None, max_docs=8, max_chunks=12, language="english"
    )
    assert found.slugs == ()  # containing is not naming: no @mention boost
    return sorted({candidate.slug for candidate in found.candidates})


@pytest.mark.parametrize(
    ("query", "slugs"),
    [
        ("What does GW-4021 mean?", ["paren", "suffix"]),  # not GW-40210
        ("What does INGEST_DEDUPE_FAIL_OPEN do?", ["env"]),
        ("How long is tracking.events.raw kept?", ["dotted"]),
        ("Does IL-6 rise?", ["gene"]),
        ("Where is GW-9999?", []),
    ],
)
def test_text_mentions_are_found(scope, query, slugs):
    assert containing(scope, query) == slugs


def test_the_text_scan_goes_through_the_full_text_index(scope):
    with CaptureQueriesContext(connection) as queries:
        containing(scope, "What does GW-4021 mean?")
    scans = [q["sql"] for q in queries if "DISTINCT c.document_id" in q["sql"]]
    assert scans and all("@@" in sql for sql in scans)


def test_an_identifier_of_stop_words_still_scans_the_text(scope):
    # "BOTH" has no full-text lexeme (a stop word): the regex alone decides, as before
    assert containing(scope, "What does BOTH do?") == ["flag"]
