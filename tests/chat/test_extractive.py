"""The offline extractive provider: short, cited, prefers accepted, warns about rejected."""

from __future__ import annotations

import re

from chat.citations import check_citations
from chat.providers import NO_GROUNDED_ANSWER, get_provider
from chat.providers.extractive import ExtractiveProvider, split_sentences
from tests.chat.helpers import hit, prompt_for, result

CACHE_V2 = """# ADR-0011: Redis Cluster as the standard cache layer

- **Status:** accepted (2024-01-22)

## Decision

**The standard cache layer at Acme is Redis Cluster 7.2 with RESP3 client-side tracking.** Every service that needs a shared cache uses it through the internal `acme-cache` library. Direct use of other cache technologies requires a new ADR.

```
ACME_CACHE_LOCAL_ENABLED=true
```

| Prefix | Owner |
|--------|-------|
| `sess:` | sessions |
"""
CACHE_V1 = "The cache layer is a single Redis node shared by all services. It runs on cache-primary.internal with noeviction."
ONBOARDING = "New joiners get a laptop on day one. The buddy programme lasts four weeks."
MEMCACHED = "Memcached was evaluated as the cache layer and rejected because it lacks persistence."


def _answer(question, search_result):
    prompt = prompt_for(question, search_result)
    return prompt, ExtractiveProvider().answer(prompt).text


def test_default_provider_is_extractive():
    assert get_provider().name == "extractive"


def test_every_sentence_carries_a_citation_to_a_prompt_source():
    search_result = result(
        [
            hit(1, CACHE_V2, title="ADR-0011", canonical_status="accepted"),
            hit(2, ONBOARDING, title="Onboarding"),
        ]
    )
    prompt, text = _answer("What cache layer did we standardise on?", search_result)
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", text) if s]
    assert 2 <= len(sentences) <= 4
    assert all(re.search(r"\[\d+\][.!?]$", s) for s in sentences), text
    check = check_citations(text, prompt)
    assert check.dropped == ()
    assert check.valid[0] == 1
    assert "Redis Cluster 7.2" in text
    assert "ACME_CACHE_LOCAL_ENABLED" not in text  # code blocks are not prose
    assert "| Prefix" not in text  # neither are tables


def test_accepted_sources_beat_superseded_ones_and_superseded_ones_are_labelled():
    search_result = result(
        [
            hit(1, CACHE_V1, title="ADR-0003 single Redis", canonical_status="superseded"),
            hit(2, CACHE_V2, title="ADR-0011", canonical_status="accepted"),
        ]
    )
    _, text = _answer("Which cache layer do services use?", search_result)
    first = text.split("[")[0]
    assert "Redis Cluster" in first, text
    if "[1]" in text:
        assert "ADR-0003 single Redis (superseded) said:" in text


def test_a_rejected_approach_in_the_prompt_adds_a_cited_warning():
    search_result = result(
        [hit(1, CACHE_V2, title="ADR-0011", canonical_status="accepted")],
        rejected=[
            hit(2, MEMCACHED, title="Rejected: Memcached", canonical_type="rejected-approach",
                origin="rejected_injection")
        ],
    )  # fmt: skip
    _, text = _answer("Should we use Memcached for the cache layer?", search_result)
    assert text.endswith("⚠ Note: Rejected: Memcached was considered and rejected [2].")


def test_the_answer_is_deterministic():
    search_result = result([hit(1, CACHE_V2), hit(2, CACHE_V1)])
    assert _answer("cache layer?", search_result)[1] == _answer("cache layer?", search_result)[1]


def test_no_usable_sentences_means_the_provider_refuses_with_the_protocol_token():
    _, text = _answer("anything", result([hit(1, "# Only a heading\n\n```\ncode\n```")]))
    assert text == NO_GROUNDED_ANSWER


def test_sentence_splitter_drops_markup_and_fragments():
    sentences = split_sentences(
        "# Title\n\n- **Owner:** Platform team runs it.\n\nOk.\n\nOne. Two three four five."
    )
    assert sentences == ["Owner: Platform team runs it.", "Two three four five."]
