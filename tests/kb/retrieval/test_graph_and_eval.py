"""Database-free tests: graph neighbour selection, rejected picking, evaluation metrics."""

from __future__ import annotations

import json

import pytest

from kb.evaluation.datasets import load_beir, load_goldset
from kb.evaluation.metrics import doc_run, evaluate, percentile
from kb.retrieval.expand import neighbour_ids
from kb.retrieval.inject import pick_rejected
from kb.retrieval.types import Candidate

ALLOWED = ("depends_on", "implements", "decision_for", "related_to", "supersedes")


def cand(doc: int, cosine: float | None) -> Candidate:
    return Candidate(
        chunk_id=doc * 10,
        document_id=doc,
        slug=f"d{doc}",
        title="t",
        project_key="p",
        heading_path="",
        text="x",
        chunk_order=0,
        source_type="markdown",
        cosine=cosine,
    )


class TestNeighbours:
    EDGES = [
        (1, 2, "depends_on"),
        (3, 1, "supersedes"),  # incoming: the record that supersedes seed 1
        (1, 4, "owned_by"),  # not allow-listed
        (5, 6, "related_to"),  # does not touch a seed
        (1, 7, "related_to"),
    ]

    def test_one_hop_both_directions_allow_listed(self):
        ids = neighbour_ids(self.EDGES, seeds=[1], allowed_types=ALLOWED, exclude=(), max_nodes=20)
        assert ids == [2, 3, 7]

    def test_excludes_primary_documents_and_caps(self):
        ids = neighbour_ids(self.EDGES, seeds=[1], allowed_types=ALLOWED, exclude={2}, max_nodes=1)
        assert ids == [3]

    def test_no_seeds_no_neighbours(self):
        assert (
            neighbour_ids(self.EDGES, seeds=[], allowed_types=ALLOWED, exclude=(), max_nodes=20)
            == []
        )


class TestPickRejected:
    def test_floor_cap_order_and_exclusion(self):
        picked = pick_rejected(
            [
                cand(1, 0.39),
                cand(2, 0.55),
                cand(3, 0.41),
                cand(4, 0.9),
                cand(5, None),
                cand(6, 0.7),
            ],
            min_similarity=0.40,
            max_docs=3,
            exclude={4},
        )
        assert [c.document_id for c in picked] == [6, 2, 3]


class TestMetrics:
    def test_doc_run_takes_best_position(self):
        run = doc_run(["a", "b", "a", "c"])
        assert sorted(run, key=lambda d: -run[d]) == ["a", "b", "c"]

    def test_perfect_and_missing_queries(self):
        qrels = {"q1": {"a": 1}, "q2": {"z": 1}}
        run = {"q1": {"a": 2.0, "b": 1.0}}  # q2 returned nothing: counts as 0, not skipped
        metrics = evaluate(qrels, run)
        assert metrics["mrr@10"] == 0.5 and metrics["hit@8"] == 0.5
        assert metrics["ndcg@10"] == 0.5

    def test_rank_two(self):
        metrics = evaluate({"q": {"a": 1}}, {"q": {"b": 2.0, "a": 1.0}})
        assert metrics["mrr@10"] == 0.5
        assert metrics["ndcg@10"] == pytest.approx(0.6309, abs=1e-4)

    def test_percentile(self):
        assert percentile([5, 1, 3, 2, 4], 50) == 3
        assert percentile([], 95) == 0.0


def test_loaders(tmp_path):
    gold = tmp_path / "gold.jsonl"
    gold.write_text(
        json.dumps({"q": "a?", "slugs": ["x"]})
        + "\n\n"
        + json.dumps({"q": "b?", "doc_ids": [7], "expect_refusal": False})
        + "\n"
        + json.dumps({"q": "c?", "expect_refusal": True})
    )
    queries = load_goldset(gold)
    assert [q.relevant for q in queries] == [{"x": 1}, {"id:7": 1}, {}]
    assert queries[2].expect_refusal

    root = tmp_path / "tiny"
    (root / "qrels").mkdir(parents=True)
    (root / "corpus.jsonl").write_text(json.dumps({"_id": "d1", "title": "T", "text": "x"}) + "\n")
    (root / "queries.jsonl").write_text(
        json.dumps({"_id": "1", "text": "q one"}) + "\n" + json.dumps({"_id": "2", "text": "q2"})
    )
    (root / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n1\td1\t1\n")
    dataset = load_beir(root)
    assert [(q.qid, q.relevant) for q in dataset.queries] == [("1", {"d1": 1})]
    assert dataset.corpus_size() == 1
    with pytest.raises(FileNotFoundError):
        load_beir(root, split="dev")
