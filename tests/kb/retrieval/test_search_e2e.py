"""The pipeline end to end on real PostgreSQL + pgvector with the real embedding model."""

from __future__ import annotations

import json
from collections.abc import Iterator
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection, transaction

from kb.embeddings import build_embedder, reset_embedders
from kb.models import Document
from kb.retrieval import (
    InvalidSearchRequest,
    SearchFilters,
    arms,
    opening_hits,
    search,
    short_document_hits,
    worded_chunk_hits,
)
from kb.retrieval.frequencies import document_frequencies, reset_keyword_stats
from kb.retrieval.sql import Scope
from kb.retrieval.support import query_shares
from kb.services import document_ingest
from kb.words import idf
from portal.access.models import Project
from portal.access.services import project_ensure
from tests.conftest import make_user, token_for
from tests.kb.retrieval.corpus import BETA_DOC, DOCS, FOREIGN_DOC

pytestmark = pytest.mark.real_model

PROJECT = "retr-e2e"
FOREIGN = "retr-foreign"
READER = "retr-reader"
QUERIES = [
    "What cache layer did we standardise on?",
    "What does GW-4021 mean?",
    "Should we use Memcached for sessions?",
    "zebra-lattice",
    "holiday leave",
]
# primary: the accepted cache decision; injected: the rejected Memcached approach
CACHE_CHOICE = "Which cache should new services use, Redis or Memcached?"


def _cleanup(info) -> None:
    with info.scope():
        Document.objects.filter(project__key__in=[PROJECT, FOREIGN]).delete()
        Project.objects.filter(key__in=[PROJECT, FOREIGN]).delete()


@pytest.fixture(scope="module")
def corpus(tenants, django_db_blocker) -> Iterator[dict]:
    """Ingest the small corpus (real model) into alpha; a foreign project and beta get a twin."""
    alpha, beta = tenants["alpha"], tenants["beta"]
    embedder = build_embedder("local")
    with django_db_blocker.unblock():
        _cleanup(alpha)
        _cleanup(beta)
        with alpha.scope():
            project = project_ensure(key=PROJECT)
            foreign = project_ensure(key=FOREIGN)
            for path, text in DOCS.items():
                outcome = document_ingest(
                    project=project, source_path=path, content=text, embedder=embedder
                )
                assert outcome.status == "created", outcome
            document_ingest(
                project=foreign, source_path="foreign.md", content=FOREIGN_DOC, embedder=embedder
            )
        with beta.scope():
            document_ingest(
                project=project_ensure(key=PROJECT),
                source_path="beta.md",
                content=BETA_DOC,
                embedder=embedder,
            )
        reader = make_user(alpha, READER, projects={PROJECT: "reader"})
        superuser = make_user(alpha, "retr-admin", superuser=True)
        reset_keyword_stats()
    yield {"reader": reader, "superuser": superuser}
    with django_db_blocker.unblock():
        _cleanup(alpha)
        _cleanup(beta)


@pytest.fixture(autouse=True)
def real_model(settings) -> Iterator[None]:
    settings.KB = {**settings.KB, "EMBEDDING_PROVIDER": "local"}
    yield
    reset_embedders()


def slugs(hits) -> list[str]:
    return [hit.slug for hit in hits]


def all_hits(result):
    return [*result.primary, *result.expanded, *result.rejected, *result.runner_up]


def test_accepted_outranks_superseded_which_stays_retrievable(alpha, corpus):
    result = search(user=corpus["reader"], query="What cache layer did we standardise on?")
    ranked = slugs([*result.primary, *result.runner_up])
    assert ranked[0] == "dec-cache-v2"
    assert "dec-cache-v1" in ranked
    assert ranked.index("dec-cache-v2") < ranked.index("dec-cache-v1")
    v1 = next(h for h in [*result.primary, *result.runner_up] if h.slug == "dec-cache-v1")
    assert v1.signals["status_penalty"] == pytest.approx(-0.40)
    assert {"vector", "keyword", "heading", "tags", "preamble", "recency", "active"} <= set(
        v1.signals
    )
    assert result.primary[0].score_label == "hybrid" and result.primary[0].quality_score == 1.0
    assert result.meta["relevance_level"] == "high"
    assert result.meta["search_strategy"]["fusion_method"] == "rerank_weighted_sum"


def test_superseded_record_comes_first_when_mentioned(alpha, corpus):
    result = search(user=corpus["reader"], query="What did @dec-cache-v1 decide?")
    assert result.primary[0].slug == "dec-cache-v1"
    assert result.primary[0].signals["mention"] == pytest.approx(0.5)


def test_a_hit_carries_its_documents_owners_but_the_api_does_not_show_them(alpha, corpus):
    document = Document.objects.get(project__key=PROJECT, slug="dec-cache-v2")
    Document.objects.filter(pk=document.pk).update(owners=["Platform Team"])
    try:
        result = search(user=corpus["reader"], query="What cache layer did we standardise on?")
        hit = next(h for h in result.primary if h.slug == "dec-cache-v2")
        assert hit.owners == ("Platform Team",)
        assert "owners" not in hit.to_dict()
    finally:
        Document.objects.filter(pk=document.pk).update(owners=document.owners)


def test_graph_expansion_brings_accepted_neighbours_only(alpha, corpus):
    result = search(user=corpus["reader"], query="What cache layer did we standardise on?", limit=1)
    assert slugs(result.primary) == ["dec-cache-v2"]
    expanded = slugs(result.expanded)
    assert "mod-session-store" in expanded
    assert "dec-cache-v1" not in expanded  # superseded neighbours are not expanded
    assert all(hit.origin == "graph_expansion" for hit in result.expanded)
    assert result.meta["expanded_count"] == len(result.expanded)


def test_a_short_document_is_read_whole_and_a_longer_or_foreign_one_not(alpha, corpus):
    from kb.models import Chunk

    documents = Document.objects.filter(project__key__in=[PROJECT, FOREIGN])
    sizes = {d.id: Chunk.objects.filter(document=d).count() for d in documents}
    longest = max((d for d in documents if d.project.key == PROJECT), key=lambda d: sizes[d.id])
    foreign = next(d for d in documents if d.project.key == FOREIGN)
    size = sizes[longest.id]
    assert size >= 2
    whole = short_document_hits(
        user=corpus["reader"], query="cache", document_ids=[longest.id, foreign.id], max_chunks=size
    )
    assert [hit.chunk_order for hit in whole] == list(range(size))  # all of it, in order
    assert {hit.slug for hit in whole} == {longest.slug}  # never a document the reader cannot see
    assert all(hit.cosine is not None for hit in whole)
    assert not short_document_hits(
        user=corpus["reader"], query="cache", document_ids=[longest.id], max_chunks=size - 1
    )


def test_a_document_of_many_short_sections_is_read_whole_by_its_length(alpha, corpus):
    from kb.models import Chunk

    documents = Document.objects.filter(project__key=PROJECT)
    longest = max(documents, key=lambda d: Chunk.objects.filter(document=d).count())
    chunks = Chunk.objects.filter(document=longest)
    size, length = chunks.count(), sum(len(c.text) for c in chunks)
    assert size >= 2
    # more chunks than the count allows, but no longer than the length allows: read whole
    whole = short_document_hits(
        user=corpus["reader"], query="cache", document_ids=[longest.id], max_chunks=size - 1,
        max_chars=length,
    )  # fmt: skip
    assert [hit.chunk_order for hit in whole] == list(range(size))
    assert not short_document_hits(
        user=corpus["reader"], query="cache", document_ids=[longest.id], max_chunks=size - 1,
        max_chars=length - 1,
    )  # fmt: skip


def test_the_chunks_of_a_document_that_hold_the_question_words_are_read(alpha, corpus):
    from kb.models import Chunk

    documents = Document.objects.filter(project__key__in=[PROJECT, FOREIGN])
    mine = [d for d in documents if d.project.key == PROJECT]
    longest = max(mine, key=lambda d: Chunk.objects.filter(document=d).count())
    foreign = next(d for d in documents if d.project.key == FOREIGN)
    last = Chunk.objects.filter(document=longest).order_by("-chunk_order").first()
    query = " ".join(last.text.split()[:12])  # the words of its last section
    found = worded_chunk_hits(
        user=corpus["reader"], query=query, document_ids=[longest.id, foreign.id], limit=1,
        min_share=0.5,
    )  # fmt: skip
    assert [(hit.slug, hit.chunk_order) for hit in found] == [(longest.slug, last.chunk_order)]
    assert found[0].cosine is not None
    # a chunk already read is not fetched again; nothing holds none of the words
    again = worded_chunk_hits(
        user=corpus["reader"], query=query, document_ids=[longest.id], limit=1, min_share=0.5,
        exclude={last.id},
    )  # fmt: skip
    assert last.chunk_order not in [hit.chunk_order for hit in again]
    assert not worded_chunk_hits(
        user=corpus["reader"], query="zebra lattice quokka", document_ids=[longest.id], limit=2,
        min_share=0.5,
    )  # fmt: skip


def test_rejected_approach_is_injected(alpha, corpus):
    result = search(
        user=corpus["reader"],
        query=CACHE_CHOICE,
        limit=1,
    )
    assert slugs(result.primary) == ["dec-cache-v2"]
    assert slugs(result.rejected) == ["rej-memcached"]
    hit = result.rejected[0]
    assert hit.origin == "rejected_injection" and hit.cosine >= 0.40


def test_exact_identifier_is_found_by_the_keyword_arm(alpha, corpus):
    keyword = search(user=corpus["reader"], query="GW-4021", mode="keyword", min_similarity=0)
    assert keyword.primary[0].slug == "rb-ingest-backlog"
    assert keyword.primary[0].signals["keyword"] == 1.0
    hybrid = search(user=corpus["reader"], query="What does GW-4021 mean?")
    assert hybrid.primary[0].slug == "rb-ingest-backlog"


def test_keyword_arm_matches_any_term_of_a_long_question(alpha, corpus):
    # plainto_tsquery would AND every word and find nothing; the arm ORs IDF-weighted terms
    question = "Tonight the pager says GW-4021, what exactly should the on-call engineer do?"
    result = search(user=corpus["reader"], query=question, mode="keyword", min_similarity=-1)
    assert result.primary[0].slug == "rb-ingest-backlog"
    assert result.meta["search_strategy"]["fts_enabled"] is True


def test_keyword_arm_join_hint_does_not_leak_into_the_callers_transaction(alpha, corpus):
    with transaction.atomic(), connection.cursor() as cursor:
        result = search(user=corpus["reader"], query="GW-4021", mode="keyword", min_similarity=0)
        assert result.primary[0].slug == "rb-ingest-backlog"
        cursor.execute(
            "SELECT current_setting('enable_hashjoin'), "
            "current_setting('max_parallel_workers_per_gather')"
        )
        assert cursor.fetchone() == ("on", "2")


@pytest.mark.parametrize("scan_per_probe", [0, 10**9], ids=["probed", "read-along"])
def test_keyword_score_is_the_idf_weighted_sum_over_every_query_term(
    alpha, corpus, monkeypatch, scan_per_probe
):
    # Every present term counts as common here: only the 3 rarest select candidates, the
    # rest are scored on them, their postings probed per candidate or read along; the score
    # must still be the sum over all terms, and the candidates those of the 3.
    monkeypatch.setattr(arms, "COMMON_TERM_SHARE", 0.0)
    monkeypatch.setattr(arms, "COMMON_TERM_MIN_DF", 0)
    monkeypatch.setattr(arms, "COMMON_SCAN_PER_PROBE", scan_per_probe)
    question = "cache layer sessions memcached redis ingest backlog pager"
    scope = Scope.for_documents(Document.objects.visible_to(corpus["reader"]))
    hits = arms.keyword_arm(query=question, scope=scope, k=50, language="english")
    assert len(hits) >= 3
    with connection.cursor() as cursor:
        cursor.execute("SELECT lexeme FROM unnest(to_tsvector('english', %s))", [question])
        lexemes = [row[0] for row in cursor.fetchall()]
        assert len(lexemes) > 3
        total, frequencies = document_frequencies(cursor, lexemes)
        for lexeme in lexemes:  # counted from the postings: as many as the chunks' tsvectors
            cursor.execute(
                "SELECT count(*) FROM kb_chunk WHERE search_vector @@ quote_literal(%s)::tsquery",
                [lexeme],
            )
            assert frequencies[lexeme] == cursor.fetchone()[0]
        for hit in hits:
            expected = 0.0
            for lexeme in lexemes:
                cursor.execute(
                    "SELECT coalesce(ts_rank(search_vector, quote_literal(%s)::tsquery, 1), 0) "
                    "FROM kb_chunk WHERE id = %s",
                    [lexeme, hit.chunk_id],
                )
                expected += idf(total, frequencies.get(lexeme, 0)) * cursor.fetchone()[0]
            assert hit.keyword_score == pytest.approx(expected, rel=1e-6)
        rarest = sorted((lexeme for lexeme in lexemes if frequencies[lexeme]), key=frequencies.get)
        cursor.execute(
            "SELECT count(*) FROM kb_chunk WHERE id = ANY(%s) AND search_vector @@ "
            "(SELECT string_agg(quote_literal(x), ' | ')::tsquery FROM unnest(%s::text[]) x)",
            [[hit.chunk_id for hit in hits], rarest[:3]],
        )
        assert cursor.fetchone()[0] == len(hits)
    scores = [hit.keyword_score for hit in hits]
    assert scores == sorted(scores, reverse=True)


def test_semantic_arm_planner_hints_do_not_leak_into_the_callers_transaction(alpha, corpus):
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('hnsw.ef_search', true)")
        ef_before = cursor.fetchone()[0]
        search(user=corpus["reader"], query="cache layer", mode="dense")
        cursor.execute(
            "SELECT current_setting('enable_sort'), current_setting('enable_indexscan'), "
            "current_setting('max_parallel_workers_per_gather'), "
            "current_setting('hnsw.ef_search', true)"
        )
        sort, indexscan, workers, ef_after = cursor.fetchone()
        assert (sort, indexscan, workers) == ("on", "on", "2")
        assert ef_after == (ef_before or "40")


def test_modes_label_scores(alpha, corpus):
    dense = search(user=corpus["reader"], query="cache layer", mode="dense")
    assert dense.meta["search_strategy"]["fusion_method"] == "semantic_only"
    assert all(hit.score_label == "dense" for hit in dense.primary)
    assert all(hit.quality_score == pytest.approx(hit.cosine, abs=1e-6) for hit in dense.primary)
    assert not dense.meta["search_strategy"]["fts_enabled"]
    keyword = search(user=corpus["reader"], query="cache layer", mode="keyword")
    assert keyword.meta["search_strategy"]["fusion_method"] == "keyword_only"
    assert not keyword.meta["search_strategy"]["semantic_enabled"]


def test_min_similarity_floor_moves_weak_hits_out_of_primary(alpha, corpus):
    loose = search(user=corpus["reader"], query="twenty-eight days paid leave", min_similarity=0)
    strict = search(user=corpus["reader"], query="twenty-eight days paid leave", min_similarity=0.9)
    assert "holiday-policy" in slugs(loose.primary)
    assert strict.primary == ()
    assert strict.meta["relevance_level"] == "none"
    assert strict.meta["retrieval_stats"]["min_score_used"] == 0.9


def test_a_chunk_holding_the_query_word_for_word_passes_the_floor_when_asked(alpha, corpus):
    """Chat's floor: a terse row or list embeds far from a question it answers word for
    word; it stays when it holds nearly all the query's weighted words, and only then."""
    query = "twenty-eight days paid leave"
    kept = search(
        user=corpus["reader"], query=query, min_similarity=0.9, word_matches_pass_floor=True
    )
    assert slugs(kept.primary) == ["holiday-policy"]
    assert all(hit.cosine < 0.9 for hit in kept.primary)
    partly = search(
        user=corpus["reader"],
        query="twenty-eight days of zebra marmalade",
        min_similarity=0.9,
        word_matches_pass_floor=True,
    )
    assert partly.primary == ()


def test_when_nothing_passes_the_floor_a_chunk_just_under_it_holding_most_words_does(alpha, corpus):
    """A short question embeds far from everything ("who is the lead for the platform
    team?" and the onboarding table of leads): when nothing passes the floor, a chunk just
    under it that holds most of the question's weighted words passes; never far under it."""
    query = "twenty-eight days paid leave for new managers"
    loose = search(user=corpus["reader"], query=query, min_similarity=0)
    best = next(hit for hit in loose.primary if hit.slug == "holiday-policy")
    assert all(hit.cosine <= best.cosine for hit in loose.primary)
    shares = query_shares(query=query, chunk_ids=[best.chunk_id], language="english")
    assert 0.6 <= shares[best.chunk_id] < 0.9  # most of its words, not nearly all

    def kept(floor: float) -> list[str]:
        found = search(
            user=corpus["reader"], query=query, min_similarity=floor, word_matches_pass_floor=True
        )
        return slugs(found.primary)

    assert kept(best.cosine + 0.01) == ["holiday-policy"]
    assert kept(best.cosine + 0.1) == []  # far under the floor
    # a question holding few of the chunk's words is not let through just under the floor
    few = "paid leave for zebra marmalade keepers"
    closest = max(hit.cosine for hit in search(user=corpus["reader"], query=few).primary)
    assert (
        slugs(
            search(
                user=corpus["reader"],
                query=few,
                min_similarity=closest + 0.01,
                word_matches_pass_floor=True,
            ).primary  # fmt: skip
        )
        == []
    )


@pytest.mark.parametrize("mode", ["hybrid", "dense"])
def test_without_min_similarity_the_list_is_never_shortened_by_the_floor(alpha, corpus, mode):
    """An integration that asks for top=5 gets 5 ranked hits even when none is relevant; the
    relevance floor (KB MIN_SIMILARITY) shows in meta instead, and is applied when asked."""
    query = "zebra xylophone quantum marmalade"
    unfloored = search(user=corpus["reader"], query=query, limit=5, mode=mode)
    assert len(unfloored.primary) == 5
    assert all(hit.cosine < 0.30 for hit in unfloored.primary)
    stats = unfloored.meta["retrieval_stats"]
    assert stats["min_score_used"] is None
    assert stats["relevance_floor"] == 0.30 and stats["relevant_count"] == 0
    assert unfloored.meta["relevance_level"] == "low"
    floored = search(user=corpus["reader"], query=query, limit=5, mode=mode, min_similarity=0.30)
    assert floored.primary == ()
    assert floored.meta["relevance_level"] == "none"
    relevant = search(user=corpus["reader"], query="What cache layer did we standardise on?")
    assert relevant.meta["retrieval_stats"]["relevant_count"] >= 1
    assert relevant.meta["relevance_level"] == "high"


@pytest.mark.parametrize("mode", ["hybrid", "dense", "keyword"])
def test_foreign_project_and_tenant_never_leak(alpha, corpus, mode):
    for query in QUERIES:
        result = search(user=corpus["reader"], query=query, mode=mode, min_similarity=-1)
        found = {(hit.project_key, hit.slug) for hit in all_hits(result)}
        assert all(project == PROJECT for project, _ in found), (query, found)
        assert not {"foreign-cache-secret", "beta-cache-secret"} & {s for _, s in found}
    # naming the foreign project in a filter matches nothing, it never widens visibility
    result = search(
        user=corpus["reader"],
        query="zebra-lattice cache",
        mode=mode,
        filters=SearchFilters(project_keys=(FOREIGN,)),
        min_similarity=-1,
    )
    assert all_hits(result) == []


def test_superuser_sees_every_project_of_its_tenant_only(alpha, corpus):
    result = search(user=corpus["superuser"], query="zebra-lattice cache layer", min_similarity=0)
    found = slugs(all_hits(result))
    assert "foreign-cache-secret" in found
    assert "beta-cache-secret" not in found


def test_scope_is_exactly_the_visibility_rule(alpha, corpus):
    """visible_to (project ids inlined for the planner) equals the rule written as a join."""
    for user in (corpus["reader"], corpus["superuser"]):
        joined = Document.objects.alive().filter(project__in=Project.objects.visible_to(user))
        expected = set(joined.values_list("id", flat=True))
        assert set(Document.objects.visible_to(user).values_list("id", flat=True)) == expected
    narrowed = Document.objects.visible_to(corpus["reader"]).filtered(
        SearchFilters(project_keys=(FOREIGN,))
    )
    assert not narrowed.exists()


@pytest.mark.parametrize(
    "filters",
    [
        None,
        SearchFilters(),
        SearchFilters(project_keys=(FOREIGN,)),
        SearchFilters(project_keys=(PROJECT, FOREIGN)),
        SearchFilters(project_keys=(PROJECT,), source_types=("markdown",)),
    ],
)
def test_search_scope_resolves_projects_once(alpha, corpus, filters, django_assert_num_queries):
    """The search scope is visible_to().filtered(), with one project lookup, not two."""
    for user in (corpus["reader"], corpus["superuser"]):
        expected = set(
            Document.objects.visible_to(user).filtered(filters).values_list("id", flat=True)
        )
        with django_assert_num_queries(1):  # the project lookup; the documents stay lazy
            scope = Document.objects.visible_filtered(user, filters)
        assert set(scope.values_list("id", flat=True)) == expected


def test_filters_narrow_inside_the_arms(alpha, corpus):
    result = search(
        user=corpus["reader"],
        query="cache layer",
        filters=SearchFilters(canonical_types=("runbook",)),
        min_similarity=-1,
    )
    assert {hit.canonical_type for hit in [*result.primary, *result.runner_up]} == {"runbook"}
    assert result.meta["search_strategy"]["filters_applied"] == {"canonical_types": ["runbook"]}


def test_keyword_arm_failure_degrades_to_semantic_only(alpha, corpus, settings):
    settings.KB = {**settings.KB, "FTS_LANGUAGE": "nosuchlang"}
    result = search(user=corpus["reader"], query="What cache layer did we standardise on?")
    assert result.primary[0].slug == "dec-cache-v2"
    strategy = result.meta["search_strategy"]
    assert strategy["fts_enabled"] is False and strategy["fusion_method"] == "semantic_only"
    assert any("keyword" in note for note in result.meta["degraded"])
    # the transaction survived: the database is still usable in the same test transaction
    assert Document.objects.filter(project__key=PROJECT).count() == len(DOCS)


def test_embedding_failure_degrades_to_keyword_only(alpha, corpus, settings):
    settings.KB = {
        **settings.KB,
        "EMBEDDING_PROVIDER": "openai",
        "EMBEDDING_BASE_URL": "http://127.0.0.1:9/v1",
        "EMBEDDING_API_KEY": "x",
        "EMBEDDING_TIMEOUT": 2.0,
    }
    reset_embedders()
    result = search(user=corpus["reader"], query="GW-4021 carrier queue")
    assert result.primary[0].slug == "rb-ingest-backlog"
    assert result.primary[0].cosine is None
    assert result.meta["search_strategy"]["semantic_enabled"] is False
    assert any("embedding" in note for note in result.meta["degraded"])
    assert result.meta["embedding_available"] is False
    assert result.rejected == ()  # injection needs a query vector


def test_invalid_requests_raise_field_errors(alpha, corpus):
    with pytest.raises(InvalidSearchRequest) as excinfo:
        search(user=corpus["reader"], query="x", mode="fuzzy")
    assert excinfo.value.field == "mode"
    with pytest.raises(InvalidSearchRequest):
        search(user=corpus["reader"], query="   ")
    with pytest.raises(InvalidSearchRequest):
        search(user=corpus["reader"], query="x", limit=0)


# --- HTTP API ------------------------------------------------------------------------------


def post(info, token: str | None, body) -> tuple[int, dict]:
    headers = {"HTTP_AUTHORIZATION": f"Token {token}"} if token else {}
    response = info.client().post(
        "/api/kb/search", data=json.dumps(body), content_type="application/json", **headers
    )
    return response.status_code, response.json()


def test_api_search_happy_path(alpha, corpus):
    token = token_for(alpha, corpus["reader"])
    status, body = post(
        alpha, token, {"query": "What cache layer did we standardise on?", "top": 3}
    )
    assert status == 200
    assert body["primary"][0]["slug"] == "dec-cache-v2"
    assert len(body["primary"]) <= 3
    assert set(body) == {"primary", "expanded", "rejected", "runner_up", "meta"}
    assert body["meta"]["primary_count"] == len(body["primary"])
    assert body["primary"][0]["origin"] == "primary"


def test_api_legacy_project_key_and_foreign_filter(alpha, corpus):
    token = token_for(alpha, corpus["reader"])
    status, body = post(alpha, token, {"query": "cache layer", "project_key": PROJECT})
    assert status == 200 and body["primary"]
    assert body["meta"]["search_strategy"]["filters_applied"] == {"project_keys": [PROJECT]}
    status, body = post(alpha, token, {"query": "zebra-lattice", "project_key": FOREIGN})
    assert status == 200
    assert body["primary"] == body["runner_up"] == body["expanded"] == body["rejected"] == []


def test_api_tag_filter_ignores_case(alpha, corpus):
    """Regression: a search filtered on tag "Redis" finds documents tagged "redis"."""
    token = token_for(alpha, corpus["reader"])
    found = {}
    for tag in ("Redis", "redis"):
        status, body = post(
            alpha, token, {"query": "cache layer", "filters": {"tags": [tag]}, "top": 10}
        )
        assert status == 200
        found[tag] = {hit["slug"] for hit in [*body["primary"], *body["runner_up"]]}
    assert "dec-cache-v2" in found["Redis"]
    assert found["Redis"] == found["redis"]
    assert found["Redis"].isdisjoint({"rej-memcached", "mod-session-store"})


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "query"),
        ({"query": ""}, "query"),
        ({"query": "x" * 10_001}, "query"),
        ({"query": ["x"]}, "query"),
        ({"query": "x", "top": 0}, "top"),
        ({"query": "x", "top": 101}, "top"),
        ({"query": "x", "top": "many"}, "top"),
        ({"query": "x", "mode": "fuzzy"}, "mode"),
        ({"query": "x", "filters": {"colour": ["red"]}}, "filters"),
        ({"query": "x", "filters": ["project_keys"]}, "filters"),
        ({"query": "x", "filters": {"project_keys": "retr-e2e"}}, "filters"),
        ({"query": "x", "filters": {"doc_ids": ["one"]}}, "filters"),
        (
            {"query": "x", "filters": {"date_from": "2024-02-01", "date_to": "2024-01-01"}},
            "filters",
        ),
        ({"query": "x", "min_similarity": "high"}, "min_similarity"),
        ({"query": "x", "min_similarity": 3}, "min_similarity"),
    ],
)
def test_api_bad_input_is_a_400_with_field_errors(alpha, corpus, body, field):
    token = token_for(alpha, corpus["reader"])
    status, payload = post(alpha, token, body)
    assert status == 400, payload
    if field:
        assert field in payload


def test_api_needs_a_token_of_this_tenant(alpha, beta, corpus):
    status, _ = post(alpha, None, {"query": "cache"})
    assert status in (401, 403)
    beta_user = make_user(beta, "retr-beta-user", superuser=True)
    status, _ = post(alpha, token_for(beta, beta_user), {"query": "cache"})
    assert status in (401, 403)


def test_openapi_schema_documents_search(alpha, corpus):
    response = alpha.client().get("/api/schema/", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    assert "/api/kb/search" in response.content.decode()


# --- CLI -----------------------------------------------------------------------------------


def test_kb_search_cli_json_and_as_user(alpha, corpus):
    out = StringIO()
    call_command("kb_search", "zebra-lattice", tenant="alpha", json=True, stdout=out)
    body = json.loads(out.getvalue())
    assert "foreign-cache-secret" in [hit["slug"] for hit in body["primary"]]  # all projects
    out = StringIO()
    call_command("kb_search", "zebra-lattice", tenant="alpha", as_user=READER, stdout=out)
    assert "foreign-cache-secret" not in out.getvalue()


def test_kb_search_cli_table(alpha, corpus):
    out = StringIO()
    call_command("kb_search", "What does GW-4021 mean?", tenant="alpha", top=2, stdout=out)
    text = out.getvalue()
    assert "rb-ingest-backlog" in text and "primary" in text


def test_kb_benchmark_goldset(alpha, corpus, tmp_path):
    goldset = tmp_path / "gold.jsonl"
    goldset.write_text(
        "\n".join(
            json.dumps(line)
            for line in [
                {"q": "What cache layer did we standardise on?", "slugs": ["dec-cache-v2"]},
                {"q": "What does GW-4021 mean?", "slugs": ["rb-ingest-backlog"]},
                {"q": "How many days of paid leave do employees get?", "slugs": ["holiday-policy"]},
            ]
        )
    )
    out = StringIO()
    call_command(
        "kb_benchmark", tenant="alpha", goldset=goldset, as_user=READER, json=True, stdout=out
    )
    report = json.loads(out.getvalue())
    assert report["queries"] == 3 and set(report["modes"]) == {"hybrid", "dense", "keyword"}
    hybrid = report["modes"]["hybrid"]
    assert hybrid["hit@8"] == 1.0 and hybrid["mrr@10"] == 1.0
    assert {"ndcg@10", "recall@10", "recall@100", "p50_ms", "p95_ms"} <= set(hybrid)


def _in_autocommit_thread(alpha, body):
    """body() in a thread of its own, in alpha's schema: its connection is in autocommit (the
    test's is in a transaction), so the arms may run concurrently, and it sees the committed
    module corpus."""
    import threading

    from kb.retrieval import parallel

    outcome: dict = {}

    def run() -> None:
        try:
            with alpha.scope():
                assert not connection.in_atomic_block
                outcome["value"] = body()
        except BaseException as exc:  # re-raised in the test thread
            outcome["error"] = exc
        finally:
            connection.close()
            parallel.close_connections()

    thread = threading.Thread(target=run, name="searcher")
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def _all_lists(result) -> dict[str, list]:
    return {
        name: [(hit.chunk_id, hit.score, hit.origin) for hit in getattr(result, name)]
        for name in ("primary", "runner_up", "expanded", "rejected")
    }


def _together_and_alone(settings, **request):
    base = dict(settings.KB)
    settings.KB = {**base, "PARALLEL_ARMS": True}
    together = search(**request)
    settings.KB = {**base, "PARALLEL_ARMS": False}
    alone = search(**request)
    settings.KB = base
    return together, alone


def test_parallel_arms_give_the_same_results_as_sequential(alpha, corpus, monkeypatch, settings):
    """Outside a transaction the semantic arm runs on a second connection (the caller's tenant
    schema) while the keyword arm runs; every list is exactly the sequential one."""
    from kb.retrieval import parallel

    submitted: list[str] = []
    real_submit = parallel.submit

    def spy(work):
        submitted.append(connection.schema_name)
        return real_submit(work)

    monkeypatch.setattr(parallel, "submit", spy)

    def compare() -> dict:
        return {
            (query, limit): _together_and_alone(
                settings, user=corpus["reader"], query=query, limit=limit, min_similarity=-1
            )
            for query in (*QUERIES, CACHE_CHOICE)
            for limit in (1, None)
        }

    outcome = _in_autocommit_thread(alpha, compare)
    for (query, limit), (together, alone) in outcome.items():
        assert together.primary, query
        assert _all_lists(together) == _all_lists(alone), (query, limit)
        assert together.meta["search_strategy"] == alone.meta["search_strategy"]
    # the comparison covers injected rejected approaches and expanded decisions too
    assert any(together.rejected for together, _ in outcome.values())
    assert any(together.expanded for together, _ in outcome.values())
    assert submitted == [alpha.schema] * len(outcome)


@pytest.mark.parametrize(
    ("slower", "fetched_on"), [("keyword", "kb-arm"), ("semantic", "searcher")]
)
def test_rejected_approaches_are_fetched_by_the_arm_that_finishes_first(
    alpha, corpus, monkeypatch, settings, slower, fetched_on
):
    """The rejected-approach lookup needs neither arm's result: the thread whose arm is done
    first runs it while the other arm is still running, and the lists stay the same."""
    import threading
    import time

    from kb.retrieval import pipeline

    fetched_by: list[str] = []
    real_inject, real_arm = pipeline.inject, getattr(pipeline, f"{slower}_arm")

    def spy_inject(**kwargs):
        fetched_by.append(threading.current_thread().name)
        return real_inject(**kwargs)

    def slow_arm(**kwargs):
        time.sleep(0.5)
        return real_arm(**kwargs)

    monkeypatch.setattr(pipeline, "inject", spy_inject)
    monkeypatch.setattr(pipeline, f"{slower}_arm", slow_arm)
    together, alone = _in_autocommit_thread(
        alpha,
        lambda: _together_and_alone(
            settings,
            user=corpus["reader"],
            query=CACHE_CHOICE,
            limit=1,
        ),
    )
    assert slugs(together.rejected) == ["rej-memcached"]
    assert _all_lists(together) == _all_lists(alone)
    assert fetched_by[0].startswith(fetched_on)  # the concurrent search
    assert fetched_by[1] == "searcher"  # the sequential one: always the caller


def test_the_opening_of_a_document_is_read(alpha, corpus):
    from kb.models import Chunk

    documents = Document.objects.filter(project__key__in=[PROJECT, FOREIGN])
    mine = [d for d in documents if d.project.key == PROJECT]
    foreign = next(d for d in documents if d.project.key == FOREIGN)
    found = opening_hits(
        user=corpus["reader"], query="cache", document_ids=[d.id for d in mine] + [foreign.id]
    )
    assert sorted((hit.slug, hit.chunk_order) for hit in found) == sorted(
        (d.slug, 0) for d in mine if Chunk.objects.filter(document=d).exists()
    )  # the first chunk of each, never a document the reader cannot see
    assert all(hit.cosine is not None for hit in found)
    assert opening_hits(user=corpus["reader"], query="cache", document_ids=[]) == ()
