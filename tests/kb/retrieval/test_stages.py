"""Database-free tests of the pure retrieval stages: fusion math, trust gradient, cap, normaliser."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from kb import words
from kb.retrieval import query as query_text
from kb.retrieval.diversify import cap_per_document, select
from kb.retrieval.fusion import fuse, merge_arms, rrf_scores
from kb.retrieval.normalize import quality_score, relevance_level, score_label_for
from kb.retrieval.rerank import min_max, recency, weighted_sum
from kb.retrieval.types import Candidate, Scored
from kb.retrieval.weights import Weights

NOW = dt.datetime(2026, 11, 29, tzinfo=dt.UTC)
WEIGHTS = Weights()


def cand(chunk_id: int, doc: int | None = None, **fields) -> Candidate:
    base: dict[str, Any] = dict(
        chunk_id=chunk_id,
        document_id=doc if doc is not None else chunk_id,
        slug=f"doc-{doc if doc is not None else chunk_id}",
        title="t",
        project_key="p",
        heading_path="",
        text="body",
        chunk_order=1,
        source_type="markdown",
    )
    base.update(fields)
    return Candidate(**base)


def scored(chunk_id: int, doc: int, score: float, cosine: float | None = 0.9) -> Scored:
    return Scored(candidate=cand(chunk_id, doc, cosine=cosine), score=score)


class TestMinMax:
    def test_spreads_to_unit_interval_and_missing_is_zero(self):
        assert min_max([0.2, 0.6, None, 0.4]) == pytest.approx([0.0, 1.0, 0.0, 0.5])

    def test_constant_batch(self):
        assert min_max([0.5, 0.5]) == [1.0, 1.0]
        assert min_max([None, None]) == [0.0, 0.0]


class TestWeightedSum:
    def test_design_weights_on_extremes(self):
        best = cand(1, cosine=0.9, keyword_score=2.0)
        worst = cand(2, cosine=0.1, keyword_score=0.5)
        ranked = weighted_sum([worst, best], query="zzz", weights=WEIGHTS, now=NOW)
        assert [s.candidate.chunk_id for s in ranked] == [1, 2]
        top = ranked[0]
        assert top.signals["vector"] == 1.0 and top.signals["keyword"] == 1.0
        # 0.55 + 0.25 + priority 0.001 * 50
        assert top.score == pytest.approx(0.55 + 0.25 + 0.05)
        assert ranked[1].score == pytest.approx(0.05)

    def test_superseded_penalty_puts_accepted_first(self):
        old = cand(
            1,
            cosine=0.80,
            keyword_score=1.0,
            canonical_status="superseded",
            canonical_type="decision",
            retrieval_priority=90,
        )
        new = cand(
            2,
            cosine=0.78,
            keyword_score=0.9,
            canonical_status="accepted",
            canonical_type="decision",
            retrieval_priority=90,
        )
        filler = cand(3, cosine=0.30, keyword_score=0.1)
        ranked = weighted_sum([old, new, filler], query="cache", weights=WEIGHTS, now=NOW)
        assert [s.candidate.chunk_id for s in ranked] == [2, 1, 3]
        superseded = ranked[1]
        assert superseded.signals["status_penalty"] == pytest.approx(-0.40)
        assert ranked[0].signals["active"] == 1.0

    @pytest.mark.parametrize(
        ("status", "penalty"), [("deprecated", 0.40), ("archived", 0.60), ("review", 0.0)]
    )
    def test_status_penalties(self, status, penalty):
        (hit,) = weighted_sum(
            [cand(1, canonical_status=status)], query="x", weights=WEIGHTS, now=NOW
        )
        assert hit.signals["status_penalty"] == pytest.approx(-penalty)

    def test_auto_tier_penalty_and_priority(self):
        auto = cand(1, cosine=0.5, generation_source="auto", retrieval_priority=100)
        (hit,) = weighted_sum([auto], query="x", weights=WEIGHTS, now=NOW)
        assert hit.signals["auto_tier_penalty"] == pytest.approx(-0.02)
        assert hit.signals["priority"] == pytest.approx(0.1)

    def test_mention_boost_lifts_a_weak_document(self):
        strong = cand(1, cosine=0.9, keyword_score=1.0)
        weak = cand(2, cosine=0.75, slug="dec-cache-v1")
        filler = cand(3, cosine=0.3)
        ranked = weighted_sum(
            [strong, weak, filler],
            query="tell me about @dec-cache-v1",
            weights=WEIGHTS,
            now=NOW,
            mentions=query_text.mentions("tell me about @dec-cache-v1"),
        )
        assert ranked[0].candidate.slug == "dec-cache-v1"
        assert ranked[0].signals["mention"] == 0.5

    def test_heading_tag_and_preamble_signals(self):
        c = cand(
            1,
            heading_path="Runbook > Redis failover",
            tags=("redis", "failover"),
            summary="Redis failover how-to",
            chunk_order=0,
        )
        (hit,) = weighted_sum([c], query="redis failover steps", weights=WEIGHTS, now=NOW)
        assert hit.signals["heading"] == pytest.approx(2 / 3)
        assert hit.signals["tags"] == pytest.approx(2 / 3)
        assert hit.signals["preamble"] == pytest.approx(2 / 3)

    def test_recency_half_life(self):
        assert recency(NOW, now=NOW, half_life_days=180) == pytest.approx(1.0)
        assert recency(NOW - dt.timedelta(days=180), now=NOW, half_life_days=180) == pytest.approx(
            0.5
        )
        assert recency(None, now=NOW, half_life_days=180) == 0.0


class TestRrf:
    def test_rrf_math_k60_and_weights(self):
        both = cand(1, semantic_rank=1, keyword_rank=1)
        sem = cand(2, semantic_rank=2)
        kw = cand(3, keyword_rank=1)
        raw = rrf_scores([both, sem, kw], k=60, semantic_weight=0.7, keyword_weight=0.3)
        best = 0.7 / 61 + 0.3 / 61
        assert raw[0] == pytest.approx(1.0)
        assert raw[1] == pytest.approx((0.7 / 62) / best)
        assert raw[2] == pytest.approx((0.3 / 61) / best)

    def test_rrf_fusion_orders_and_applies_penalty(self):
        a = cand(1, semantic_rank=1, keyword_rank=2, canonical_status="superseded")
        b = cand(2, semantic_rank=2, keyword_rank=1)
        ranked = fuse([a, b], method="rrf", query="q", weights=WEIGHTS, now=NOW)
        assert [s.candidate.chunk_id for s in ranked] == [2, 1]
        assert "rrf" in ranked[0].signals

    def test_semantic_only_is_cosine_order(self):
        ranked = fuse(
            [cand(1, cosine=0.4), cand(2, cosine=0.7)],
            method="semantic_only",
            query="q",
            weights=WEIGHTS,
            now=NOW,
        )
        assert [s.candidate.chunk_id for s in ranked] == [2, 1]

    def test_unknown_method(self):
        with pytest.raises(ValueError):
            fuse([], method="nope", query="q", weights=WEIGHTS, now=NOW)

    def test_merge_keeps_both_arms(self):
        s = cand(1, cosine=0.8, semantic_rank=1)
        k = cand(1, cosine=0.8, keyword_score=3.0, keyword_rank=4)
        (merged,) = merge_arms([s], [k])
        assert (merged.semantic_rank, merged.keyword_rank, merged.keyword_score) == (1, 4, 3.0)


class TestDiversify:
    def test_cap_moves_over_cap_chunks_to_the_tail_in_order(self):
        items = [scored(i, 1, 1 - i / 10) for i in range(5)] + [scored(10, 2, 0.1)]
        ordered = cap_per_document(items, 3)
        assert [s.candidate.chunk_id for s in ordered] == [0, 1, 2, 10, 3, 4]

    def test_floor_limit_and_runner_ups(self):
        items = [
            scored(1, 1, 0.9, cosine=0.8),
            scored(2, 2, 0.8, cosine=0.25),  # under the 0.30 floor, over the 0.20 runner-up floor
            scored(3, 3, 0.7, cosine=0.6),
            scored(4, 4, 0.6, cosine=0.5),
            scored(5, 5, 0.5, cosine=0.1),  # under both floors: gone
        ]
        sel = select(
            items,
            limit=2,
            min_similarity=0.30,
            max_per_doc=3,
            runner_up_max=15,
            runner_up_floor=0.20,
        )
        assert [s.candidate.chunk_id for s in sel.primary] == [1, 3]
        assert [s.candidate.chunk_id for s in sel.runner_up] == [2, 4]
        assert sel.candidates_post_threshold == 3

    def test_without_a_floor_the_limit_is_filled_whatever_the_cosines(self):
        items = [scored(i, i, 1 - i / 100, cosine=0.05) for i in range(12)]
        sel = select(
            items, limit=8, min_similarity=None, max_per_doc=3, runner_up_max=3,
            runner_up_floor=None,
        )  # fmt: skip
        assert [s.candidate.chunk_id for s in sel.primary] == list(range(8))
        assert [s.candidate.chunk_id for s in sel.runner_up] == [8, 9, 10]

    def test_runner_ups_reach_new_documents_before_repeating_one(self):
        # doc 1 fills its cap in primary; its later chunks wait behind other documents
        items = [scored(i, 1, 1 - i / 100) for i in range(5)] + [
            scored(10, 2, 0.5),
            scored(11, 3, 0.4),
        ]
        sel = select(
            items, limit=3, min_similarity=None, max_per_doc=3, runner_up_max=15,
            runner_up_floor=None,
        )  # fmt: skip
        assert [s.candidate.chunk_id for s in sel.primary] == [0, 1, 2]
        assert [s.candidate.chunk_id for s in sel.runner_up] == [10, 11, 3, 4]

    def test_runner_up_max(self):
        items = [scored(i, i, 1 - i / 100) for i in range(30)]
        sel = select(
            items, limit=8, min_similarity=0.3, max_per_doc=3, runner_up_max=15, runner_up_floor=0.2
        )
        assert len(sel.primary) == 8 and len(sel.runner_up) == 15

    def test_keyword_only_hits_without_cosine_pass_the_floor(self):
        sel = select(
            [scored(1, 1, 0.5, cosine=None)],
            limit=8,
            min_similarity=0.3,
            max_per_doc=3,
            runner_up_max=15,
            runner_up_floor=0.2,
        )
        assert len(sel.primary) == 1


class TestNormaliser:
    def test_dense_is_clamped_cosine(self):
        assert quality_score(label="dense", cosine=0.73, rank=5, batch_size=9) == 0.73
        assert quality_score(label="dense", cosine=-0.2, rank=1, batch_size=1) == 0.0
        assert quality_score(label="dense", cosine=1.2, rank=1, batch_size=1) == 1.0

    def test_hybrid_is_rank_over_batch(self):
        values = [
            quality_score(label="hybrid", cosine=None, rank=r, batch_size=4) for r in range(1, 5)
        ]
        assert values == [1.0, 0.75, 0.5, 0.25]

    def test_labels_and_levels(self):
        assert score_label_for("dense") == "dense"
        assert score_label_for("hybrid") == score_label_for("keyword") == "hybrid"
        assert relevance_level(None, high=0.6, medium=0.4) == "none"
        assert relevance_level(0.61, high=0.6, medium=0.4) == "high"
        assert relevance_level(0.5, high=0.6, medium=0.4) == "medium"
        assert relevance_level(0.1, high=0.6, medium=0.4) == "low"


class TestQueryText:
    def test_terms_and_mentions(self):
        assert {"gw-4021", "gw", "4021", "fire"} <= words.terms("What is GW-4021 firing?") | {
            "fire"
        }
        assert query_text.mentions("see @dec-cache-v2 and @Dec-Cache-V2, mail a@b.c") == (
            "dec-cache-v2",
        )
        assert query_text.strip_mentions("about @rej-memcached") == "about rej-memcached"

    @pytest.mark.parametrize(
        "query,text,expected",
        [
            ("caching layer", "We chose CACHES for the Layers.", 1.0),
            ("caching layer", "A cache-layer decision", 0.5),  # the part "layer" counts
            ("redis cluster", "redisson clusters", 0.5),  # 'redis' is only a substring
            ("retry budget", "Nothing relevant here.", 0.0),
            ("GW-4021 outage", "the gw-4021 alert", 0.75),  # gw-4021, gw, 4021
            ("İstanbul office", "İSTANBUL OFFICE", 1.0),  # lower() changes the length
            ("the of", "the of and", 0.0),  # stop words only: no query terms
        ],
    )
    def test_overlap_counts_whole_terms(self, query, text, expected):
        query_terms = words.terms(query)
        assert words.overlap(query_terms, text) == expected
        if query_terms:  # the substring shortcut never changes the tokenised answer
            full = len(query_terms & words.terms(text)) / len(query_terms)
            assert words.overlap(query_terms, text) == full
