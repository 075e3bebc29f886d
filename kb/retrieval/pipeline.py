"""The retrieval pipeline: embed -> arms -> fuse -> floor/cap -> expand -> inject -> normalise."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import Future
from typing import Any

from django.conf import settings
from django.db import DataError
from django.utils import timezone

from kb.embeddings.exceptions import EmbeddingSpaceChanged
from kb.embeddings.spaces import forget_active_spaces
from kb.models import Document
from kb.retrieval import parallel, sql
from kb.retrieval import query as query_text
from kb.retrieval import weights as tuning
from kb.retrieval.arms import keyword_arm, semantic_arm
from kb.retrieval.diversify import passes_floor, select
from kb.retrieval.exceptions import InvalidSearchRequest, KeywordArmError
from kb.retrieval.expand import expand
from kb.retrieval.fusion import FUSION_METHODS, KEYWORD_ONLY, fuse, merge_arms
from kb.retrieval.identifiers import identifier_candidates
from kb.retrieval.inject import inject, pick_rejected
from kb.retrieval.normalize import quality_score, relevance_level, score_label_for
from kb.retrieval.sql import Scope, best_chunk_per_document, chunks_by_position, space_changed
from kb.retrieval.types import (
    DEGRADED_EMBEDDING,
    DEGRADED_KEYWORD,
    MODES,
    Candidate,
    Origin,
    Scored,
    SearchFilters,
    SearchHit,
    SearchResult,
)
from portal.tenants.selectors import current_schema

logger = logging.getLogger(__name__)


def _hit(
    candidate: Candidate,
    *,
    score: float,
    label: str,
    quality: float,
    signals: dict[str, float],
    origin: Origin,
) -> SearchHit:
    return SearchHit(
        chunk_id=candidate.chunk_id,
        document_id=candidate.document_id,
        slug=candidate.slug,
        title=candidate.title,
        project_key=candidate.project_key,
        heading_path=candidate.heading_path,
        text=candidate.text,
        chunk_order=candidate.chunk_order,
        source_type=candidate.source_type,
        canonical_type=candidate.canonical_type,
        canonical_status=candidate.canonical_status,
        retrieval_priority=candidate.retrieval_priority,
        score=round(score, 6),
        score_label=label,  # type: ignore[arg-type]
        quality_score=quality,
        cosine=None if candidate.cosine is None else round(candidate.cosine, 6),
        signals={name: round(value, 6) for name, value in signals.items()},
        origin=origin,
        summary=candidate.summary,
        tags=candidate.tags,
        owners=candidate.owners,
    )


def _side_hit(candidate: Candidate, origin: Origin) -> SearchHit:
    """Expanded and rejected hits are not part of the fused ranking: scored by their cosine."""
    cosine = candidate.cosine
    return _hit(
        candidate,
        score=cosine or 0.0,
        label="dense",
        quality=quality_score(label="dense", cosine=cosine, rank=1, batch_size=1),
        signals={"vector": cosine or 0.0},
        origin=origin,
    )


def _lexically_matched(
    query: str, ordered: Sequence[Scored], floor: float, language: str
) -> frozenset[int]:
    """Chunks under the cosine floor that hold nearly all of the query's weighted words; or,
    when nothing would pass the floor, those just under it that hold most of them (a short
    "who is in charge of X" embeds far from the list of team leads that names X)."""
    from kb.retrieval.support import query_shares

    under = [item for item in ordered if not passes_floor(item, floor)][
        : tuning.LEXICAL_FLOOR_CANDIDATES
    ]
    shares = query_shares(
        query=query, chunk_ids=[item.candidate.chunk_id for item in under], language=language
    )
    matched = frozenset(c for c, share in shares.items() if share >= tuning.LEXICAL_FLOOR_SHARE)
    if matched or any(passes_floor(item, floor) for item in ordered):
        return matched
    near = floor - tuning.NEAR_FLOOR_MARGIN
    return frozenset(
        item.candidate.chunk_id
        for item in under
        if item.cosine is not None
        and item.cosine >= near
        and shares.get(item.candidate.chunk_id, 0.0) >= tuning.NEAR_FLOOR_SHARE
    )


def _validate(
    *, query: str, limit: int | None, mode: str, min_similarity: float | None, kb: dict
) -> tuple[str, int, float | None]:
    if not isinstance(query, str) or not query.strip():
        raise InvalidSearchRequest("query", "This field may not be blank.")
    if len(query) > kb["QUERY_MAX_CHARS"]:
        raise InvalidSearchRequest(
            "query", f"Ensure this field has no more than {kb['QUERY_MAX_CHARS']} characters."
        )
    if mode not in MODES:
        raise InvalidSearchRequest("mode", f"Unknown mode {mode!r}; use one of {list(MODES)}.")
    limit = kb["DEFAULT_LIMIT"] if limit is None else limit
    if not 1 <= limit <= kb["MAX_LIMIT"]:
        raise InvalidSearchRequest("top", f"Must be between 1 and {kb['MAX_LIMIT']}.")
    if min_similarity is None:
        return query, limit, None
    if not -1.0 <= min_similarity <= 1.0:
        raise InvalidSearchRequest("min_similarity", "Must be between -1 and 1 (cosine).")
    return query, limit, float(min_similarity)


def search(
    *,
    user: Any,
    query: str,
    limit: int | None = None,
    filters: SearchFilters | None = None,
    min_similarity: float | None = None,
    mode: str = "hybrid",
    mentions: Iterable[str] = (),
    query_vector: Sequence[float] | None = None,
    word_matches_pass_floor: bool = False,
) -> SearchResult:
    """Hybrid retrieval with the canonical trust gradient, as `user` may see it (`_search`).

    A query embedded just before kb_reembed switched the tenant to another embedding space
    is embedded again in the new space and searched once more, never an error.
    """
    request: dict[str, Any] = {
        "user": user,
        "query": query,
        "limit": limit,
        "filters": filters,
        "min_similarity": min_similarity,
        "mode": mode,
        "mentions": tuple(mentions),
        "query_vector": query_vector,
        "word_matches_pass_floor": word_matches_pass_floor,
    }
    try:
        return _search(**request)
    except (EmbeddingSpaceChanged, DataError) as exc:
        if not space_changed(exc) or query_vector is not None:
            raise  # another error, or the caller's own vector: only the caller can redo it
        forget_active_spaces(current_schema())
        return _search(**request)


def _search(
    *,
    user: Any,
    query: str,
    limit: int | None = None,
    filters: SearchFilters | None = None,
    min_similarity: float | None = None,
    mode: str = "hybrid",
    mentions: Iterable[str] = (),
    query_vector: Sequence[float] | None = None,
    word_matches_pass_floor: bool = False,
) -> SearchResult:
    """The pipeline behind `search`.

    `mentions` adds slugs to those @mentioned in the query. `query_vector` skips embedding
    the query (benchmarks that embed all queries up front). Numbers come from settings.KB,
    read now. `word_matches_pass_floor`: a chunk under the floor that holds nearly all of the
    query's weighted words is kept (chat: a table row embeds far from a question it answers).

    `min_similarity` is an opt-in cosine floor on the ranked list (hits under it move to the
    runner-ups). Without it the primary list is the best `limit` hits by fused score, never
    shortened by a floor: KB MIN_SIMILARITY only says which hits count as relevant
    (meta.retrieval_stats.relevant_count, meta.relevance_level); callers that refuse on
    weak evidence (chat) pass it as their floor. meta.retrieval_stats.min_score_used is the
    floor applied to the list (None without one), max_score_used the best fused score.
    """
    started = time.perf_counter()
    kb = settings.KB
    query, limit, floor = _validate(
        query=query, limit=limit, mode=mode, min_similarity=min_similarity, kb=kb
    )
    fusion_method = kb["FUSION_METHOD"]
    if fusion_method not in FUSION_METHODS:
        fusion_method = "rerank_weighted_sum"
        logger.warning("Unknown KB FUSION_METHOD; using rerank_weighted_sum")
    all_mentions = (*query_text.mentions(query), *(m.lower() for m in mentions))
    arm_query = query_text.strip_mentions(query)
    scope = Scope.for_documents(Document.objects.visible_filtered(user, filters))
    k = tuning.CANDIDATE_MULTIPLIER * limit
    degraded: list[str] = []

    vector = list(query_vector) if query_vector is not None else None
    embedding_available = True
    if vector is None:
        from kb.embeddings import EmbeddingError, embed_query

        try:
            vector = embed_query(arm_query)  # in the tenant's active embedding space
        except EmbeddingError as exc:
            embedding_available = False
            logger.warning("query embedding failed, keyword-only search: %s", exc)
            degraded.append(DEGRADED_EMBEDDING)  # typed: the provider detail is for the log only

    want_semantic = mode in ("hybrid", "dense") and vector is not None
    want_keyword = (mode == "keyword") or (mode == "hybrid" and fusion_method != "semantic_only")
    if vector is None:
        want_keyword = True  # the only arm left

    semantic: list[Candidate] = []
    keyword: list[Candidate] = []

    def run_semantic() -> list[Candidate]:
        assert vector is not None  # only run when want_semantic
        return semantic_arm(vector=vector, scope=scope, k=k, ef_search=kb["HNSW_EF_SEARCH"])

    def fetch_rejected() -> list[Candidate]:
        # Rejected approaches do not depend on the arms; enough of them that the primary
        # documents (at most `limit`) can be excluded later.
        if not kb["REJECTED_INJECTION_ENABLED"]:
            return []
        return inject(
            scope=scope,
            vector=vector,
            min_similarity=tuning.REJECTED_MIN_SIMILARITY,
            max_docs=kb["REJECTED_INJECTION_MAX_DOCS"] + limit,
            exclude=(),
        )

    # Fetched by whichever arm's thread is free first, while the other arm still runs.
    rejected_task = parallel.SharedTask("rejected-approach lookup", fetch_rejected)

    def run_semantic_then_rejected() -> list[Candidate]:
        found = run_semantic()
        rejected_task.run_on_worker()
        return found

    pending: Future[list[Candidate]] | None = None
    if want_semantic:
        if want_keyword and kb["PARALLEL_ARMS"] and parallel.can_run_concurrently():
            # on a second connection, meanwhile
            pending = parallel.submit(run_semantic_then_rejected)
        if pending is None:
            semantic = run_semantic()
    keyword_ok = False
    if want_keyword:
        try:
            keyword = keyword_arm(
                query=arm_query,
                scope=scope,
                k=k,
                language=kb["FTS_LANGUAGE"],
                vector=vector,
                prune=kb["KEYWORD_PRUNING"],
            )
            keyword_ok = True
        except KeywordArmError as exc:
            logger.warning("keyword arm failed, semantic-only search: %s", exc)
            degraded.append(DEGRADED_KEYWORD)
            if mode == "keyword" and vector is not None:
                semantic = semantic_arm(
                    vector=vector, scope=scope, k=k, ef_search=kb["HNSW_EF_SEARCH"]
                )

    rejected_task.run_here()  # unless the worker, done first, has taken it

    if pending is not None:
        semantic = parallel.result(pending, "semantic arm", run_semantic)
    rejected_pool = rejected_task.result()

    if not keyword_ok:
        method = "semantic_only"
    elif not semantic:
        method = KEYWORD_ONLY
    elif mode == "dense":
        method = "semantic_only"
    else:
        method = fusion_method
    candidates = merge_arms(semantic, keyword)
    exempt: frozenset[int] = frozenset()
    if kb["IDENTIFIER_BOOST_ENABLED"]:
        # Identifiers the query names (ADR-0005, GW-4021, a slug) mean exactly those documents.
        named = identifier_candidates(
            query=arm_query,
            scope=scope,
            vector=vector,
            max_docs=kb["IDENTIFIER_MAX_DOCS"],
            max_chunks=kb["IDENTIFIER_MAX_CHUNKS"],
            language=kb["FTS_LANGUAGE"],
        )
        candidates = merge_arms(candidates, named.candidates)
        all_mentions = (*all_mentions, *named.slugs)
        exempt = named.naming_chunk_ids
    ordered = fuse(
        candidates,
        method=method,
        query=arm_query,
        weights=tuning.WEIGHTS,
        now=timezone.now(),
        rrf_k=tuning.RRF_K,
        semantic_weight=tuning.RRF_SEMANTIC_WEIGHT,
        keyword_weight=tuning.RRF_KEYWORD_WEIGHT,
        mentions=all_mentions,
    )
    if floor is not None and word_matches_pass_floor:
        exempt = exempt | _lexically_matched(arm_query, ordered, floor, kb["FTS_LANGUAGE"])
    selection = select(
        ordered,
        limit=limit,
        min_similarity=floor,
        max_per_doc=kb["MAX_CHUNKS_PER_DOC"],
        runner_up_max=kb["RUNNER_UP_MAX"],
        runner_up_floor=None if floor is None else min(floor, tuning.RUNNER_UP_MIN_SIMILARITY),
        exempt_from_floor=exempt,
    )

    primary_docs: list[int] = []
    for item in selection.primary:
        if item.document_id not in primary_docs:
            primary_docs.append(item.document_id)
    expanded: list[Candidate] = []
    if kb["GRAPH_EXPANSION_ENABLED"]:
        seeds = []
        for item in selection.primary:
            c = item.candidate
            if c.canonical_type and c.canonical_status and c.document_id not in seeds:
                seeds.append(c.document_id)
        expanded = expand(
            seeds=seeds,
            scope=scope,
            vector=vector,
            allowed_types=kb["GRAPH_EXPANSION_EDGE_TYPES"],
            max_nodes=kb["GRAPH_EXPANSION_MAX_NODES"],
            exclude=primary_docs,
        )
    rejected = pick_rejected(
        rejected_pool,
        min_similarity=tuning.REJECTED_MIN_SIMILARITY,
        max_docs=kb["REJECTED_INJECTION_MAX_DOCS"],
        exclude=primary_docs,
    )

    # Cosine-ordered results are dense; anything fused or keyword-ranked is a hybrid rank.
    label = score_label_for("dense" if method == "semantic_only" else "hybrid")
    ranked: list[Scored] = [*selection.primary, *selection.runner_up]
    hits = [
        _hit(
            item.candidate,
            score=item.score,
            label=label,
            quality=quality_score(
                label=label, cosine=item.cosine, rank=rank, batch_size=len(ranked)
            ),
            signals=item.signals,
            origin="primary" if rank <= len(selection.primary) else "runner_up",
        )
        for rank, item in enumerate(ranked, start=1)
    ]
    primary_hits = tuple(hits[: len(selection.primary)])
    runner_hits = tuple(hits[len(selection.primary) :])
    expanded_hits = tuple(_side_hit(c, "graph_expansion") for c in expanded)
    rejected_hits = tuple(_side_hit(c, "rejected_injection") for c in rejected)
    # Relevance is judged on the hits that clear the relevance floor, so an unfloored list
    # of weak matches reads "low", not "high" because something is ranked first.
    relevance_floor = float(kb["MIN_SIMILARITY"])
    relevant = [hit for hit in primary_hits if passes_floor(hit, relevance_floor)]
    if relevant:
        top_quality = relevant[0].quality_score
    elif primary_hits:
        top_quality = 0.0
    else:
        top_quality = None
    meta = {
        "primary_count": len(primary_hits),
        "expanded_count": len(expanded_hits),
        "rejected_count": len(rejected_hits),
        "runner_up_count": len(runner_hits),
        "retrieval_ms": round((time.perf_counter() - started) * 1000, 2),
        # False when the query could not be embedded (results are keyword-only).
        "embedding_available": embedding_available,
        "search_strategy": {
            "semantic_enabled": bool(semantic),
            "fts_enabled": keyword_ok,
            "fusion_method": method,
            "graph_expansion_enabled": bool(kb["GRAPH_EXPANSION_ENABLED"]),
            "rejected_injection_enabled": bool(kb["REJECTED_INJECTION_ENABLED"]),
            "filters_applied": filters.applied() if filters else {},
        },
        "retrieval_stats": {
            "candidates_pre_threshold": len(candidates),
            "candidates_post_threshold": selection.candidates_post_threshold,
            "min_score_used": floor,
            "relevance_floor": relevance_floor,
            "relevant_count": len(relevant),
            "max_score_used": primary_hits[0].score if primary_hits else None,
        },
        "relevance_level": relevance_level(
            top_quality, high=tuning.RELEVANCE_HIGH, medium=tuning.RELEVANCE_MEDIUM
        ),
        "mode": mode,
        "degraded": degraded,
    }
    return SearchResult(
        primary=primary_hits,
        expanded=expanded_hits,
        rejected=rejected_hits,
        runner_up=runner_hits,
        meta=meta,
    )


def _side_vector(query: str) -> list[float] | None:
    """The query's vector for a fetch beside the ranked list (None when it cannot be
    embedded: the chunks come without a cosine)."""
    from kb.embeddings import EmbeddingError, embed_query

    try:
        return embed_query(query_text.strip_mentions(query))
    except EmbeddingError:
        return None


def known_words(*, user: Any, words: Sequence[str]) -> dict[str, str]:
    """Each word of `words` that a document the user can see uses, by text-search lexeme,
    with that lexeme: the vocabulary a slip of typing in a question is put right against."""
    scope = Scope.for_documents(Document.objects.visible_to(user))
    return sql.known_words(scope=scope, words=words, language=settings.KB["FTS_LANGUAGE"])


def document_hits(
    *, user: Any, query: str, document_ids: Sequence[int], origin: Origin = "graph_expansion"
) -> tuple[SearchHit, ...]:
    """Each visible document among `document_ids` with its chunk nearest the query (its first
    chunk when the query cannot be embedded), scored by cosine: for callers that know which
    documents they need (the records of a supersede chain), outside the ranked list."""
    if not document_ids:
        return ()
    scope = Scope.for_documents(Document.objects.visible_to(user).filter(id__in=document_ids))
    candidates = best_chunk_per_document(scope=scope, vector=_side_vector(query))
    return tuple(_side_hit(candidate, origin) for candidate in candidates)


def short_document_hits(
    *, user: Any, query: str, document_ids: Sequence[int], max_chunks: int, max_chars: int = 0
) -> tuple[SearchHit, ...]:
    """Every chunk of each visible document among `document_ids` that has at most
    `max_chunks` chunks, or (with `max_chars`) at most that many characters in at most
    SHORT_BY_LENGTH_CHUNKS chunks (a postmortem, a one-page standard of many short sections:
    short enough to read whole), in document order, scored by cosine to the query; longer
    documents give nothing."""
    if not document_ids or max_chunks <= 0:
        return ()
    reach = max(max_chunks, SHORT_BY_LENGTH_CHUNKS) if max_chars > 0 else max_chunks
    scope = Scope.for_documents(Document.objects.visible_to(user).filter(id__in=document_ids))
    pairs = [f"({int(d)}, {o})" for d in document_ids for o in range(reach + 1)]
    candidates = chunks_by_position(
        scope=scope, positions=", ".join(pairs), vector=_side_vector(query)
    )
    count: dict[int, int] = {}
    length: dict[int, int] = {}
    for c in candidates:
        count[c.document_id] = count.get(c.document_id, 0) + 1
        length[c.document_id] = length.get(c.document_id, 0) + len(c.text)

    def short(document_id: int) -> bool:
        if count[document_id] <= max_chunks:
            return True
        return count[document_id] <= reach and length[document_id] <= max_chars

    return tuple(_side_hit(c, "primary") for c in candidates if short(c.document_id))


# A document read whole by its length has at most this many chunks (a bound on the fetch).
SHORT_BY_LENGTH_CHUNKS = 24


def opening_hits(*, user: Any, query: str, document_ids: Sequence[int]) -> tuple[SearchHit, ...]:
    """The first chunk of each visible document among `document_ids`, scored by cosine to the
    query: a document's opening says what it is and its key facts (a postmortem's severity
    and duration, a standard's revision and owner), and embeds far from most questions."""
    if not document_ids:
        return ()
    scope = Scope.for_documents(Document.objects.visible_to(user).filter(id__in=document_ids))
    positions = ", ".join(f"({int(d)}, 0)" for d in document_ids)
    candidates = chunks_by_position(scope=scope, positions=positions, vector=_side_vector(query))
    return tuple(_side_hit(c, "primary") for c in candidates)


def worded_chunk_hits(
    *,
    user: Any,
    query: str,
    document_ids: Sequence[int],
    limit: int,
    min_share: float,
    exclude: Iterable[int] = (),
) -> tuple[SearchHit, ...]:
    """The `limit` chunks of each visible document among `document_ids` (not those in
    `exclude`) that hold the most of the query's IDF-weighted words (at least `min_share` of
    them, the earlier first when as many), in document order, scored
    by cosine: the section of a long document the question's words point to, read even when
    it embeds far from the question (a table of targets)."""
    from kb.models import Chunk
    from kb.retrieval.support import query_shares

    if not document_ids or limit <= 0:
        return ()
    documents = Document.objects.visible_to(user).filter(id__in=document_ids)
    chunks = list(
        Chunk.objects.filter(document__in=documents).values_list("id", "document_id", "chunk_order")
    )
    shares = query_shares(
        query=query, chunk_ids=[c for c, _, _ in chunks], language=settings.KB["FTS_LANGUAGE"]
    )
    skipped = set(exclude)
    best: dict[int, list[tuple[float, int]]] = {}
    for chunk_id, document_id, order in chunks:
        share = shares.get(chunk_id, 0.0)
        if share >= min_share and chunk_id not in skipped:
            best.setdefault(document_id, []).append((-share, order))
    positions = [
        f"({int(document_id)}, {int(order)})"
        for document_id, ranked in best.items()
        for _, order in sorted(ranked)[:limit]
    ]
    if not positions:
        return ()
    candidates = chunks_by_position(
        scope=Scope.for_documents(documents),
        positions=", ".join(positions),
        vector=_side_vector(query),
    )
    return tuple(_side_hit(c, "primary") for c in candidates)


def neighbour_hits(
    *, user: Any, hits: Sequence[SearchHit], query: str, reach: int = 1, limit: int = 8
) -> tuple[SearchHit, ...]:
    """The chunks next to `hits` in their documents (up to `reach` before and after, in the
    same section), not among `hits`: a table or a list split from its lead-in by the chunk
    window, fetched back for a reader who needs the whole passage."""
    present = {hit.chunk_id for hit in hits}
    wanted: dict[tuple[int, int], str] = {}
    for hit in hits:
        for step in range(1, reach + 1):
            for order in (hit.chunk_order - step, hit.chunk_order + step):
                if order >= 0:
                    wanted.setdefault((hit.document_id, order), hit.heading_path)
    if not wanted:
        return ()
    documents = Document.objects.visible_to(user).filter(
        id__in={document_id for document_id, _ in wanted}
    )
    scope = Scope.for_documents(documents)
    pairs = [f"({int(d)}, {int(o)})" for d, o in wanted]
    candidates = chunks_by_position(
        scope=scope, positions=", ".join(pairs), vector=_side_vector(query)
    )
    found = [
        c
        for c in candidates
        if c.chunk_id not in present
        and wanted.get((c.document_id, c.chunk_order)) == c.heading_path
    ]
    return tuple(_side_hit(c, "primary") for c in found[:limit])
