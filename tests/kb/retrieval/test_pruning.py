"""The keyword arm's top-k pruning (MaxScore) returns exactly what scoring every posting does.

The pruned and the exhaustive statements run on the same database, on random queries over
Zipf-distributed words and on the demo handbook's real questions over its real paragraphs,
with a scope that hides a third of the documents; rankings, scores and tie order must be
identical. The pruning thresholds are lowered so that these small corpora are pruned (in
production only queries with many postings are), and the tests check that pruning did
happen, not just fall back. The bounds the pruning relies on (kb_termbound) follow every
write, and kb_check / kb_postings_repair find and mend a bound left too low.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from kb.models import Chunk, Document
from kb.postings import postings_state
from kb.retrieval import arms, pruning, search
from kb.retrieval.frequencies import reset_keyword_stats
from kb.retrieval.sql import Scope
from portal.access.services import project_ensure
from tests.conftest import make_user

HANDBOOK = Path(__file__).resolve().parents[3] / "kb" / "demo_corpus" / "handbook"
QUESTIONS = HANDBOOK.parent / "QUESTIONS.jsonl"


def test_split_prunes_common_terms_then_the_smallest_bounds_below_theta():
    bounds = {"rare": 50.0, "mid": 20.0, "low": 8.0, "the": 3.0}
    selecting = {"rare", "mid", "low"}
    terms = ["rare", "mid", "low", "the"]
    # the common word and the smallest selecting bound fit under 12; "mid" would not
    assert pruning.split_terms(terms, selecting, bounds, 12.0) == (
        ["rare", "mid"],
        ["the", "low"],
        11.0,
    )
    # theta at the sum exactly is not below it: "low" stays essential
    assert pruning.split_terms(terms, selecting, bounds, 11.0) is None
    assert pruning.split_terms(terms, selecting, bounds, 40.0) == (
        ["rare"],
        ["the", "low", "mid"],
        31.0,
    )
    # an unknown bound is never pruned; a common term's unknown bound prunes nothing
    assert pruning.split_terms(terms, selecting, {**bounds, "low": None}, 40.0) == (
        ["rare", "low"],
        ["the", "mid"],
        23.0,
    )
    assert pruning.split_terms(terms, selecting, {**bounds, "the": None}, 40.0) is None
    # common terms alone reach theta: nothing can be pruned
    assert pruning.split_terms(terms, selecting, bounds, 3.0) is None


def test_first_round_reads_the_rarest_terms_up_to_the_budget(monkeypatch):
    monkeypatch.setattr(pruning, "FIRST_ROUND_POSTINGS", 100)
    df = {"a": 5, "b": 90, "c": 40, "d": 1000}
    assert pruning.first_round_terms(["a", "b", "c", "d"], df) == ["a", "c", "b"]
    assert pruning.first_round_terms(["d"], df) == ["d"]


def _insert(project, texts: list[str], per_doc: int) -> list[int]:
    """Documents of `per_doc` chunks each with these texts; tsvectors as ingestion computes
    them, postings and bounds by the triggers. No embeddings: the keyword arm needs none."""
    docs = Document.objects.bulk_create(
        [
            Document(
                project=project,
                title=f"doc {i}",
                slug=f"{project.key}-{i}",
                source_path=f"{project.key}-{i}.md",
                source_type="markdown",
                content_hash=f"{project.key}-{i}",
            )
            for i in range((len(texts) + per_doc - 1) // per_doc)
        ]
    )
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO kb_chunk (document_id, chunk_order, heading_path, text, overlap_chars, "
            "token_count, search_vector) "
            "SELECT d, o, '', x, 0, 0, to_tsvector('english', x) "
            "FROM unnest(%s::bigint[], %s::int[], %s::text[]) AS u(d, o, x)",
            [
                [docs[i // per_doc].pk for i in range(len(texts))],
                [i % per_doc for i in range(len(texts))],
                texts,
            ],
        )
    return [doc.pk for doc in docs]


@pytest.fixture
def lowered(monkeypatch):
    """Prune every query of these small corpora; count the queries actually pruned."""
    monkeypatch.setattr(pruning, "PRUNE_MIN_POSTINGS", 0)
    monkeypatch.setattr(pruning, "FIRST_ROUND_POSTINGS", 30)
    counts = {"pruned": 0, "fallback": 0}
    split = pruning.split_terms

    def counting(*args, **kwargs):
        result = split(*args, **kwargs)
        counts["pruned" if result is not None else "fallback"] += 1
        return result

    monkeypatch.setattr(pruning, "split_terms", counting)
    reset_keyword_stats()
    yield counts
    reset_keyword_stats()


def _both(query: str, scope: Scope, k: int) -> tuple[list, list]:
    def key(found):
        return [(hit.chunk_id, hit.keyword_score) for hit in found]

    pruned = arms.keyword_arm(query=query, scope=scope, k=k, language="english", prune=True)
    exhaustive = arms.keyword_arm(query=query, scope=scope, k=k, language="english", prune=False)
    return key(pruned), key(exhaustive)


def _handbook_paragraphs() -> list[str]:
    """The demo handbook's paragraphs of at least 4 words: real text to index."""
    return [
        part.strip()
        for path in sorted(HANDBOOK.rglob("*.md"))
        for part in path.read_text().split("\n\n")
        if len(part.split()) >= 4
    ]


def _handbook_questions() -> list[str]:
    """The demo handbook's gold questions: real queries."""
    return [json.loads(line)["q"] for line in QUESTIONS.read_text().splitlines() if line]


def _visible_scope(doc_ids: list[int]) -> Scope:
    # a third of the documents hidden, as another project's would be
    return Scope.for_documents(Document.objects.filter(pk__in=doc_ids[::3] + doc_ids[1::3]))


def test_pruned_equals_exhaustive_on_random_queries(alpha, lowered):
    rng = random.Random(7)
    vocabulary = [f"w{i}x" for i in range(400)]
    weights = [1 / (rank + 1) for rank in range(len(vocabulary))]  # Zipf
    texts = [" ".join(rng.choices(vocabulary, weights, k=rng.randint(20, 40))) for _ in range(1500)]
    doc_ids = _insert(project_ensure(key="prune-random"), texts, per_doc=3)
    scope = _visible_scope(doc_ids)
    compared = 0
    for _ in range(120):
        query = " ".join(rng.choices(vocabulary[:300], k=rng.randint(3, 9)))
        pruned, exhaustive = _both(query, scope, k=rng.choice([1, 3, 5, 10, 24]))
        assert pruned == exhaustive, query
        compared += bool(exhaustive)
    assert compared >= 100
    # the pruned path ran and cut terms (28 of the queries), not only fell back
    assert lowered["pruned"] >= 20


def test_pruned_equals_exhaustive_on_real_questions_and_paragraphs(alpha, lowered):
    paragraphs = _handbook_paragraphs()
    assert len(paragraphs) > 300
    doc_ids = _insert(project_ensure(key="prune-real"), paragraphs, per_doc=4)
    scope = _visible_scope(doc_ids)
    questions = _handbook_questions()
    for question in questions:
        for k in (3, 10, 24):
            pruned, exhaustive = _both(question, scope, k=k)
            assert pruned == exhaustive, (question, k)
    assert lowered["pruned"] >= 20  # of 69 (26 when written)


def _bounds() -> dict[str, float]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT lexeme, max_weight FROM kb_termbound")
        return dict(cursor.fetchall())


def _maxima() -> dict[str, float]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT lexeme, max(weight) FROM kb_chunkterm GROUP BY lexeme")
        return dict(cursor.fetchall())


def test_bounds_follow_inserts_and_updates_and_never_fall(alpha):
    (doc,) = _insert(project_ensure(key="prune-bounds"), ["quokka habitat survey"], per_doc=1)
    assert _bounds()["quokka"] == _maxima()["quokka"]
    before = _bounds()["quokka"]
    chunk = Chunk.objects.get(document_id=doc)
    with connection.cursor() as cursor:
        # a shorter chunk with the word twice weighs more: the bound rises with it
        cursor.execute(
            "UPDATE kb_chunk SET search_vector = to_tsvector('english', 'quokka quokka') "
            "WHERE id = %s",
            [chunk.pk],
        )
    assert _bounds()["quokka"] > before
    raised = _bounds()["quokka"]
    Chunk.objects.filter(pk=chunk.pk).delete()
    assert _bounds()["quokka"] == raised  # an upper bound may stay high; never too low
    assert not _maxima().get("quokka")


def test_a_bound_left_too_low_is_reported_and_repaired(alpha, capsys):
    _insert(project_ensure(key="prune-repair"), ["numbat burrow", "numbat numbat"], per_doc=1)
    with connection.cursor() as cursor:
        cursor.execute("UPDATE kb_termbound SET max_weight = 0 WHERE lexeme = 'numbat'")
    state = postings_state()
    assert state.low_bounds == 1
    assert any("upper bound below" in problem for problem in state.problems)
    with pytest.raises(CommandError, match="kb_postings_repair"):
        call_command("kb_check", "--tenant", "alpha")
    capsys.readouterr()
    call_command("kb_postings_repair", "--tenant", "alpha")
    assert "1 term bounds raised" in capsys.readouterr().out
    assert _bounds()["numbat"] == _maxima()["numbat"]
    assert postings_state().problems == []


def test_the_setting_prunes_searches_without_changing_them(alpha, lowered, settings):
    """KB_KEYWORD_PRUNING on: a reader's keyword search prunes, and finds what it found off."""
    paragraphs = _handbook_paragraphs()
    _insert(project_ensure(key="prune-search"), paragraphs, per_doc=4)
    reader = make_user(alpha, "prune-reader", projects={"prune-search": "reader"})
    questions = _handbook_questions()

    def ranked(question: str) -> list[tuple[int, float]]:
        found = search(user=reader, query=question, mode="keyword", limit=8)
        return [(hit.chunk_id, hit.score) for hit in found.primary]

    settings.KB = {**settings.KB, "KEYWORD_PRUNING": False}
    unpruned = [ranked(question) for question in questions]
    assert lowered["pruned"] == 0
    settings.KB = {**settings.KB, "KEYWORD_PRUNING": True}
    assert [ranked(question) for question in questions] == unpruned
    assert lowered["pruned"] >= 5
