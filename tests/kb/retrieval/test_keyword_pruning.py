"""The keyword arm skips postings that cannot reach the top k, and returns exactly what reading
every posting returns."""

from __future__ import annotations

import random

import pytest

from kb.models import Document
from kb.retrieval import arms
from kb.services import IngestItem, documents_ingest_many
from portal.access.services import project_ensure

FILLER = "river stone lantern orchard harbor violet canyon ember willow signal".split()
QUERY = "zephyr quartz meadow report"


def _text(rng: random.Random, words: list[str], length: int) -> str:
    body = [rng.choice(FILLER) for _ in range(length)]
    for word in words:
        body.insert(rng.randrange(len(body) + 1), word)
    return " ".join(body)


@pytest.fixture
def scope(alpha):
    """240 one-chunk documents: 'zephyr' in 30 short ones, 'quartz' in 70 and 'meadow' in
    90 of mixed length, 'report' in 150 (a common term: it selects nothing by itself)."""
    rng = random.Random(7)
    items = []
    for i in range(240):
        words = []
        if i < 30:
            words += ["zephyr"] * (1 + i % 3)
        if 20 <= i < 90:
            words.append("quartz")
        if 60 <= i < 150:
            words.append("meadow")
        if i % 8 < 5:
            words.append("report")
        length = 6 + (i % 5) * 4 if i < 30 else 10 + (i * 7) % 60
        items.append(IngestItem(source_path=f"p{i:03d}.md", content=_text(rng, words, length)))
    project = project_ensure(key="kw-prune")
    outcomes = documents_ingest_many(project=project, items=items)
    assert all(o.status == "created" for o in outcomes)
    arms.reset_keyword_stats()
    yield arms.Scope.for_documents(Document.objects.filter(project=project))
    arms.reset_keyword_stats()


def _ranked(scope, k: int) -> list[tuple[int, float]]:
    hits = arms.keyword_arm(query=QUERY, scope=scope, k=k, language="english")
    return [(hit.chunk_id, hit.keyword_score or 0.0) for hit in hits]


@pytest.fixture
def skipped(monkeypatch) -> list[list[str]]:
    """What each pruning decision skipped (the real rule, observed)."""
    seen: list[list[str]] = []
    real = arms._skippable

    def observed(*args, **kwargs):
        result = real(*args, **kwargs)
        seen.append(result)
        return result

    monkeypatch.setattr(arms, "_skippable", observed)
    return seen


def _assert_same(pruned: list[tuple[int, float]], full: list[tuple[int, float]]) -> None:
    assert [chunk for chunk, _ in pruned] == [chunk for chunk, _ in full]
    assert [score for _, score in pruned] == pytest.approx([s for _, s in full], rel=1e-12)


def test_frequent_terms_are_skipped_and_the_ranking_is_unchanged(scope, skipped):
    full = _ranked(scope, 5)  # nothing is known yet: every posting is read (and peaks learnt)
    assert skipped == []
    assert len(full) == 5
    pruned = _ranked(scope, 5)
    assert skipped and skipped[-1], "the frequent terms' postings should have been skipped"
    _assert_same(pruned, full)


def test_when_the_rare_term_cannot_fill_k_the_rest_is_read_and_merged(scope, skipped, monkeypatch):
    monkeypatch.setattr(arms, "PRUNE_MIN_POSTINGS_PER_RESULT", 0)  # the rarest term alone
    full = _ranked(scope, 60)  # more than the 30 'zephyr' chunks
    pruned = _ranked(scope, 60)
    assert skipped == [[]]  # no bar to prune against: the second statement read the rest
    assert len(pruned) == 60
    _assert_same(pruned, full)


@pytest.mark.parametrize("k", [1, 3, 10, 24, 40])
def test_any_depth_returns_what_reading_every_posting_returns(scope, k):
    full = _ranked(scope, k)
    for _ in range(2):  # peaks known from the first call on
        _assert_same(_ranked(scope, k), full)


def test_the_skip_bound_covers_every_chunk_left_out(scope):
    """No chunk without the rare term scores above the bar the skipped terms were let go at."""
    _ranked(scope, 5)
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT ARRAY(SELECT lexeme FROM unnest(to_tsvector('english', %s)))", [QUERY]
        )
        lexemes = cursor.fetchone()[0]
        total, frequencies = arms._document_frequencies(cursor, lexemes)
        idfs = {lex: arms.idf(total, frequencies[lex]) for lex in lexemes}
        cursor.execute("SELECT coalesce(max(id), 0), coalesce(min(id), 0) FROM kb_chunk")
        peaks = arms._known_peaks(tuple(cursor.fetchone()), lexemes)
        assert set(peaks) == {"zephyr", "quartz", "meadow"}
        # the true score of every chunk without 'zephyr'
        terms = " + ".join(["%s * ts_rank(search_vector, %s::tsquery, 1)"] * len(lexemes))
        params = [p for lex in lexemes for p in (idfs[lex], arms._tsquery_literal(lex))]
        cursor.execute(
            f"SELECT max({terms}) FROM kb_chunk WHERE NOT search_vector @@ 'zephyr'::tsquery",
            params,
        )
        best_left_out = cursor.fetchone()[0]
    bound_parts = arms._skippable(
        ["meadow", "quartz"], bar=float("inf"), idfs=idfs, peaks=peaks, common=["report"]
    )
    assert bound_parts == ["meadow", "quartz"]  # an infinite bar skips everything
    own = sum(idfs[lex] * peaks[lex] for lex in ("meadow", "quartz"))
    bound = own + arms.RANK_SPAN * max(peaks["meadow"], peaks["quartz"]) * idfs["report"]
    assert best_left_out <= bound
