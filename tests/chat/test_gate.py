"""The grounding gate and the content-gap key (no database)."""

from __future__ import annotations

import pytest

from chat.services import is_grounded, normalise_question
from tests.chat.helpers import hit, result


@pytest.mark.parametrize(
    ("score", "cosine", "grounded"),
    [
        (0.25, 0.10, True),  # fused score at the bar
        (0.2499, 0.45, True),  # cosine at the bar
        (0.2499, 0.4499, False),
        (0.10, None, False),  # keyword-only hit without a cosine
        (0.90, None, True),
    ],
)
def test_a_primary_chunk_must_clear_the_score_or_the_cosine_bar(score, cosine, grounded):
    assert is_grounded(result([hit(1, "t", score=score, cosine=cosine)])) is grounded


def test_expanded_and_rejected_hits_alone_never_ground_an_answer():
    strong = hit(1, "t", score=0.9, cosine=0.9)
    assert not is_grounded(result([], expanded=[strong], rejected=[strong]))


def test_thresholds_come_from_settings(settings):
    settings.CHAT = {**settings.CHAT, "GROUNDING_MIN_SCORE": 0.5, "GROUNDING_MIN_COSINE": 0.9}
    assert not is_grounded(result([hit(1, "t", score=0.4, cosine=0.8)]))


@pytest.mark.parametrize(
    ("question", "key"),
    [
        ("  What's  the   VPN policy?! ", "what s the vpn policy"),
        ("what’s the vpn policy", "what s the vpn policy"),
        ("Tabs\tand\nnewlines", "tabs and newlines"),
        ("???", ""),
    ],
)
def test_questions_normalise_to_one_gap_key(question, key):
    assert normalise_question(question) == key
