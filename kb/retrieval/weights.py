"""Every tuning number of retrieval, with the reason it has its value.

These were environment variables once; they are code now because no operator should turn
them: each was measured on SciFact's train split and the demo gold set (benchmarks/RESULTS.md),
and moving one changes rankings everywhere. A deployment decides limits, providers and
features in settings; the ranking's arithmetic lives here. `benchmarks/retrieval_tune.py`
sweeps them on the train split by replacing `WEIGHTS` for a run.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, kw_only=True)
class Weights:
    """The weighted-sum reranker and the canonical trust gradient (signals min-max normalised
    over each search's candidates, so a weight is a share of the score)."""

    vector: float = 0.55  # meaning carries most of a match (SciFact: dense alone beats keyword)
    keyword: float = 0.25  # exact terms rescue names and codes that embeddings blur
    heading: float = 0.05  # a query word in the section's heading path marks the right section
    tags: float = 0.05  # editors' tags name the topic
    preamble: float = 0.05  # the summary and opening lines say what a document is about
    recency: float = 0.02  # a tie-breaker towards the newer text, never more
    recency_half_life_days: float = 180.0  # half a year ages a page by half of that nudge
    status: float = 0.02  # accepted records win ties
    mention: float = 0.50  # an @mention or a named identifier means exactly that document
    priority: float = 0.001  # x retrieval_priority (0-100): at most 0.1, an editor's nudge
    superseded_penalty: float = 0.40  # history stays findable, below what replaced it
    deprecated_penalty: float = 0.40  # as superseded: no longer the way to do it
    archived_penalty: float = 0.60  # kept for the record only
    auto_tier_penalty: float = 0.02  # generated knowledge sits just below human-written


WEIGHTS = Weights()

# Each arm over-retrieves this many times the requested hits before fusion and the
# per-document cap (3 x 8 = 24 candidates per arm by default).
CANDIDATE_MULTIPLIER = 3
# Reciprocal rank fusion (KB_FUSION_METHOD=rrf): the reference pipeline's constant and arm
# weights (../shared/reference, "RRF k=60"; semantic 0.70 / keyword 0.30).
RRF_K = 60
RRF_SEMANTIC_WEIGHT = 0.70
RRF_KEYWORD_WEIGHT = 0.30
# meta.relevance_level buckets of the best quality_score.
RELEVANCE_HIGH = 0.60
RELEVANCE_MEDIUM = 0.40
# A rejected approach is injected when its best chunk is this close to the query (cosine):
# nearer than that, it is about the same thing.
REJECTED_MIN_SIMILARITY = 0.40
# With a request floor, runner-ups are kept down to this cosine (or the floor, if lower).
RUNNER_UP_MIN_SIMILARITY = 0.20
# ...and a chunk under the floor still counts when it holds this IDF-weighted share of the
# query's words: a table row or a terse list embeds far from a question it answers word
# for word ("lead time on a slip ring assembly"). Checked among this many best candidates.
LEXICAL_FLOOR_SHARE = 0.9
LEXICAL_FLOOR_CANDIDATES = 20
# When nothing passes the floor, a chunk this close under it (cosine) that holds this share
# of the query's weighted words passes: a short question embeds far from everything, and its
# answer is the nearest chunk that holds most of what it names.
NEAR_FLOOR_MARGIN = 0.05
NEAR_FLOOR_SHARE = 0.6
