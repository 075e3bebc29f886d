"""Writes of the chat app. `message_send` is the one chat turn used by the page and the API."""

from __future__ import annotations

import datetime as dt
import logging
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.urls import reverse
from django.utils import timezone

from chat.answers import history
from chat.answers.evidence import (
    DocumentRef,
    EvidenceBrief,
    SupersedeLink,
    build_brief,
    earlier_subject,
    says_more,
)
from chat.answers.question import (
    HOWTO,
    REASON,
    Question,
    own_names,
    read_follow_up,
    read_question,
    replaced_in,
    restated,
)
from chat.answers.scoring import holds_steps
from chat.answers.units import opens_inside_a_list
from chat.citations import (
    CitationCheck,
    check_citations,
    citation_payload,
    excerpt,
    places,
    renumber,
)
from chat.drift import cited_documents_record
from chat.models import ChatLog, ContentGap, Conversation, Message, MessageRole
from chat.prompt import (
    NO_GROUNDED_ANSWER,
    Prompt,
    PromptSource,
    add_sources,
    build_prompt,
    cite_one_per_duplicate_group,
    number_sources,
    prompt_now,
    wikilink_slugs,
)
from chat.providers import AnswerProvider, ProviderError, get_provider
from chat.providers.extractive import meaning_judge
from kb import words
from kb.markup import to_prose
from kb.models import CanonicalStatus, Document
from kb.retrieval.types import SearchFilters, SearchHit, SearchResult
from kb.selectors import (
    chunk_versions,
    document_openings,
    document_titles_by_slug,
    duplicate_stand_ins,
    supersede_pairs,
)
from portal.access.models import AnyUser, Project

logger = logging.getLogger(__name__)

REFUSAL_NO_CONTEXT = "no_relevant_context"
REFUSAL_SELF = "llm_self_refusal"
REFUSAL_UNGROUNDED = "ungrounded_answer"
REFUSAL_SEARCH_DEGRADED = "embedding_unavailable"
REFUSAL_MESSAGES = {
    REFUSAL_NO_CONTEXT: (
        "I couldn't find anything in the knowledge base that answers this, so I won't guess. "
        "Try rephrasing, widening the project filter, or ask an editor to document it."
    ),
    REFUSAL_SELF: (
        "The documents I found don't actually answer this question, so I won't guess. "
        "Try asking it differently or narrowing it to one project."
    ),
    REFUSAL_UNGROUNDED: (
        "I could not produce an answer backed by citations from the documents, so I won't "
        "show one. Try asking it differently."
    ),
    REFUSAL_SEARCH_DEGRADED: (
        "Semantic search is unavailable right now, so I can't look through the documents "
        "properly and won't answer from partial results. Please try again in a few minutes."
    ),
}
TITLE_CHARS = 80
# Below the cosine bar, a primary chunk must hold this share of the question's IDF-weighted
# words: a question about a deleted document is not answered from weak matches.
GROUNDING_MIN_SUPPORT = 0.20
NORMALISED_MAX = 1000


class ChatInputError(ValueError):
    """Bad input to a chat turn; `errors` maps field names to messages (a 400)."""

    def __init__(self, errors: dict[str, list[str]]) -> None:
        super().__init__(str(errors))
        self.errors = errors


@dataclass(frozen=True, kw_only=True)
class TurnResult:
    conversation: Conversation
    question_message: Message
    answer_message: Message
    answer: str
    citations: list[dict[str, Any]]
    refusal_reason: str | None
    meta: dict[str, Any] = field(default_factory=dict)


def question_length_error(question: str) -> str:
    """The refusal for a question over the limit ("" when it fits): never cut it silently."""
    limit = int(settings.CHAT["QUESTION_MAX_CHARS"])
    if len(question) <= limit:
        return ""
    return (
        f"Your question is {len(question):,} characters long; the limit is {limit:,}. "
        "Shorten it and ask again."
    )


def normalise_question(question: str) -> str:
    """Lowercase, punctuation stripped, whitespace collapsed: the content-gap key."""
    text = re.sub(r"[^\w\s]", " ", question.lower())
    return " ".join(text.split())[:NORMALISED_MAX]


def spelled_right(*, user: AnyUser, question: str) -> str:
    """The question with its slips of typing put right against the words the documents the
    user can see use ("whats the tolerence" where they say tolerance): a rare word none of
    them uses, one slip from one they do (kb.words.slips)."""
    from kb.retrieval import known_words

    found = words.slips(question)
    if not found:
        return question
    asked = {w for near in found.values() for w in near} | found.keys()
    return words.respelled_from(question, found, known_words(user=user, words=sorted(asked)))


def is_grounded(result: SearchResult) -> bool:
    """The grounding gate: some primary chunk clears the fused-score or cosine bar."""
    min_score = float(settings.CHAT["GROUNDING_MIN_SCORE"])
    min_cosine = float(settings.CHAT["GROUNDING_MIN_COSINE"])
    return any(
        hit.score >= min_score or (hit.cosine is not None and hit.cosine >= min_cosine)
        for hit in result.primary
    )


def is_supported(question: str, result: SearchResult) -> bool:
    """The evidence gate after `is_grounded`: a close match, or the question's specific words.

    Hybrid fused scores are relative to the batch, so a question about a deleted document
    still finds a "best" hit among the rest. A primary chunk must either be close in meaning
    (cosine bar) or hold enough of the question's IDF-weighted words.
    """
    from kb.retrieval.support import query_support

    min_cosine = float(settings.CHAT["GROUNDING_MIN_COSINE"])
    if any(hit.cosine is not None and hit.cosine >= min_cosine for hit in result.primary):
        return True
    support = query_support(
        query=question,
        chunk_ids=[hit.chunk_id for hit in result.primary],
        language=settings.KB["FTS_LANGUAGE"],
    )
    return support >= GROUNDING_MIN_SUPPORT


def content_gap_record(*, question: str, project_keys: list[str]) -> None:
    """Count an unanswered question once per project ("" when unscoped); best effort."""
    normalised = normalise_question(question)
    if not normalised:
        return
    for key in project_keys or [""]:
        try:
            with transaction.atomic():
                gap, created = ContentGap.objects.get_or_create(
                    project_key=key,
                    normalised_question=normalised,
                    defaults={"example_question": question[:2000]},
                )
                if not created:
                    ContentGap.objects.filter(pk=gap.pk).update(
                        count=F("count") + 1,
                        last_seen=timezone.now(),
                        example_question=question[:2000],
                        resolved=False,  # asked again: the gap is open again
                    )
        except Exception:
            logger.exception("content gap could not be recorded")


def chat_log_write(**fields: Any) -> None:
    """One ChatLog row; logging never breaks the user path."""
    try:
        with transaction.atomic():
            ChatLog.objects.create(**fields)
    except Exception:
        logger.exception("chat log could not be written")


def content_gaps_resolve(*, gap_ids: list[int]) -> int:
    """Mark gaps resolved (an editor wrote the missing document)."""
    return ContentGap.objects.filter(pk__in=gap_ids).update(resolved=True)


def _visible_keys(user: AnyUser, keys: tuple[str, ...]) -> list[str]:
    """Only keys of projects the user can see are recorded (no gap spam for foreign keys)."""
    if not keys:
        return []
    visible = set(
        Project.objects.visible_to(user).filter(key__in=keys).values_list("key", flat=True)
    )
    return [key for key in keys if key in visible]


@dataclass(frozen=True, kw_only=True)
class ConversationState:
    """What the conversation was about before this question: the last question answered and
    the documents its answer cited."""

    previous_question: str = ""
    cited_slugs: tuple[str, ...] = ()
    # the questions that turn's subject came from: its own, after those it followed up
    subject_questions: tuple[str, ...] = ()

    def carries_into(self, asked: Question) -> bool:
        """Whether a new question needs this subject: it is not a whole question ("and at
        Carn Dubh?"), or it names nothing of its own (no name or code) and says little
        (at most FOLLOW_UP_TERMS subject words) and either opens with a conjunction ("and what
        is proposed?") or has no word rarer than everyday English. A first question never
        does."""
        if not self.previous_question:
            return False
        if asked.elliptical:
            return True  # "and at Carn Dubh?": the question before it, about something else
        if asked.refers_back:
            return True  # "when did Hollin Bridge go live on it?": "it" was named before
        # a bare number numbers something named before ("version 4", "category 2"): a name
        # or a code is a subject of its own
        if any(not name.isdigit() for name in own_names(asked)) or asked.identifiers:
            return False
        # the words the reader typed (not those a question adds for its meaning: "made the
        # call" is asked as decided or approved)
        surface = dict(asked.surface)
        # (a span naming a kind of thing, "the 10 minute averages", qualifies a subject)
        typed = [term for term in asked.terms if term in surface and term not in asked.kind_spans]
        # (a number or a year qualifies what was asked before: "what did we get in 2025?")
        worded = [term for term in typed if not term[:1].isdigit()]
        if asked.continues and len(typed) <= FOLLOW_UP_TERMS:
            return True  # "and what is proposed?": it goes on from the turn before
        if len(typed) > FOLLOW_UP_TERMS:
            return False
        return all(words.english_weight(surface[term]) < SPECIFIC_WORD for term in worded)


# A question with this few subject words of its own, none specific, leans on the one before.
FOLLOW_UP_TERMS = 3
# A follow-up chain carries the subject of at most this many questions (its own included).
SUBJECT_TURNS = 3
# A word at least this rare in English (kb.words.english_weight; "laptop" 0.8, "kept" 0.67)
# names a subject of its own.
SPECIFIC_WORD = 0.75


def conversation_state(conversation: Conversation | None) -> ConversationState:
    """The subject of the conversation's last answered turn (empty for a new conversation)."""
    if conversation is None or conversation.pk is None:
        return ConversationState()
    answer = (
        Message.objects.filter(conversation=conversation, role=MessageRole.ASSISTANT)
        .exclude(refusal_reason__gt="")
        .order_by("-created_at", "-pk")
        .first()
    )
    if answer is None:
        return ConversationState()
    question = (
        Message.objects.filter(
            conversation=conversation, role=MessageRole.USER, created_at__lte=answer.created_at
        )
        .exclude(pk__gt=answer.pk)
        .order_by("-created_at", "-pk")
        .values_list("content", flat=True)
        .first()
    )
    slugs = tuple(
        dict.fromkeys(str(c.get("slug", "")) for c in answer.citations or [] if c.get("slug"))
    )
    subject = answer.meta.get("subject_questions") if isinstance(answer.meta, dict) else None
    if not (isinstance(subject, list) and subject and all(isinstance(q, str) for q in subject)):
        subject = [question or ""]
    return ConversationState(
        previous_question=" ".join(subject), cited_slugs=slugs, subject_questions=tuple(subject)
    )


def searched_project_keys(user: AnyUser, keys: tuple[str, ...]) -> list[str]:
    """The projects a question searched: the visible ones it named, or, unscoped ("All my
    projects"), every project the user can see, so a refusal reaches all of their editors."""
    if keys:
        return _visible_keys(user, keys)
    return sorted(Project.objects.visible_to(user).values_list("key", flat=True))


def _preview_url(document_id: int) -> str:
    return reverse("chat-api-document-preview", kwargs={"pk": document_id})


def _search(
    *,
    user: AnyUser,
    question: str,
    filters: SearchFilters,
    mentions: tuple[str, ...] = (),
    limit: int | None = None,
) -> SearchResult:
    from kb.retrieval import InvalidSearchRequest, search

    try:
        # Chat grounds answers on relevant context only: it asks for the relevance floor
        # (search itself never shortens the ranked list unless asked to).
        return search(
            user=user,
            query=question,
            filters=filters,
            limit=limit or int(settings.CHAT["SEARCH_LIMIT"]),
            min_similarity=float(settings.KB["MIN_SIMILARITY"]),
            mentions=mentions,
            word_matches_pass_floor=True,
        )
    except InvalidSearchRequest as exc:
        field_name = "question" if exc.field == "query" else f"filters.{exc.field}"
        raise ChatInputError({field_name: [exc.message]}) from exc


def widened_sources(
    *,
    user: AnyUser,
    query: str,
    sources: tuple[PromptSource, ...],
    runner_up: tuple[SearchHit, ...],
    asks_why: bool = False,
    how_to: bool = False,
) -> tuple[PromptSource, ...]:
    """A retrieval's sources with the passages an answer needs around them (the same for the
    first retrieval and the second): the documents' other retrieved chunks, the first
    document whole when short, the neighbours of the best chunks, a table's first rows; for
    a why-question, the first rejected approach found, whole; for a how-to whose first
    document holds no steps, the next one found that does, whole."""
    from kb.retrieval import (
        neighbour_hits,
        opening_hits,
        short_document_hits,
        worded_chunk_hits,
    )

    # the other retrieved chunks of the documents found (the per-document cap moved them
    # to the runner-ups: a question about one document is answered from all of it)
    found = {s.hit.document_id for s in sources if s.block == "context"}
    sources = add_sources(
        sources,
        tuple(hit for hit in runner_up if hit.document_id in found)[:RUNNER_UPS_KEPT],
        block="context",
    )
    # the documents found first, read whole when they are short (a postmortem's duration
    # table sits in a section of its own, away from the chunk that matched best)
    in_order = list(dict.fromkeys(s.hit.document_id for s in sources if s.block == "context"))
    first = in_order[:SHORT_DOCUMENTS_READ]

    def read_whole(document_ids: list[int]) -> tuple[SearchHit, ...]:
        return short_document_hits(
            user=user,
            query=query,
            document_ids=document_ids,
            max_chunks=SHORT_DOCUMENT_CHUNKS,
            max_chars=SHORT_DOCUMENT_CHARS,
        )

    sources = add_sources(sources, read_whole(first), block="context")
    if how_to and first and not _has_steps_in(sources, first[0]):
        # a how-to asked of a situation that a report narrates ("COMMS FAIL at Carn Hill,
        # what am I supposed to do?"): the next document found that is a procedure is read
        # whole too, so its steps can say what to do
        later = in_order[SHORT_DOCUMENTS_READ:][:PROCEDURES_LOOKED_AT]
        hits = read_whole(later)
        procedure = next(
            (d for d in later if any(holds_steps(h) for h in hits if h.document_id == d)),
            None,
        )
        sources = add_sources(
            sources, tuple(h for h in hits if h.document_id == procedure), block="context"
        )
    # ...and, when longer, its opening: what it is and its key facts (not fetched again when
    # the document was read whole or retrieval found its opening)
    opened = {s.hit.document_id for s in sources if s.hit.chunk_order == 0}
    sources = add_sources(
        sources,
        opening_hits(user=user, query=query, document_ids=[d for d in first if d not in opened]),
        block="context",
    )
    if asks_why:
        # ...and so is the first rejected approach found, up to a longer length: why it was
        # rejected is a section of its own after the proposal (its chunks stay warnings:
        # add_sources keeps a rejected record in its block, and only a question about it is
        # answered from it)
        rejected = [s.hit.document_id for s in sources if s.block == "rejected"]
        sources = add_sources(
            sources,
            short_document_hits(
                user=user,
                query=query,
                document_ids=rejected[:1],
                max_chunks=REJECTED_RECORD_CHUNKS,
            ),
            block="rejected",
        )
    # ...and, when longer, the sections its words point to (a table of targets embeds far
    # from "what is the P1 response time?")
    sources = add_sources(
        sources,
        worded_chunk_hits(
            user=user,
            query=query,
            document_ids=first,
            limit=WORDED_CHUNKS,
            min_share=WORDED_SHARE,
            exclude={s.hit.chunk_id for s in sources},
        ),
        block="context",
    )
    # the passages next to the best chunks (a table cut from its lead-in by the chunk window)
    best = [s.hit for s in sources if s.block == "context"][:NEIGHBOURS_OF]
    sources = add_sources(
        sources,
        neighbour_hits(
            user=user, hits=best, query=query, reach=NEIGHBOUR_REACH, limit=NEIGHBOURS_KEPT
        ),
        block="context",
    )
    # a table or list continued from an earlier chunk: its first rows and its lead-in
    # ("Conditionally required:") are in the chunks before it
    continued = [
        s.hit
        for s in sources
        if s.block == "context" and s.hit.chunk_order > 0 and opens_inside_a_list(s.hit.text)
    ]
    if continued:
        sources = add_sources(
            sources,
            neighbour_hits(user=user, hits=continued, query=query, reach=NEIGHBOUR_REACH),
            block="context",
        )
    return sources


def _has_steps_in(sources: tuple[PromptSource, ...], document_id: int) -> bool:
    return any(holds_steps(s.hit) for s in sources if s.hit.document_id == document_id)


def _evidence(
    *,
    user: AnyUser,
    question: str,
    asked: Question,
    previous: str,
    sources: tuple[PromptSource, ...],
    filters: SearchFilters,
    runner_up: tuple[SearchHit, ...] = (),
    earlier_lead: str = "",
) -> tuple[tuple[PromptSource, ...], EvidenceBrief, dict[str, str]]:
    """The evidence brief of a turn, with the sources it needed beyond the first retrieval:
    the other records of a supersede chain, and a second retrieval for the part of the
    question the first evidence leaves unstated (an incident, then its SLA target)."""
    from kb.retrieval import document_hits

    sources = widened_sources(
        user=user,
        query=question,
        sources=sources,
        runner_up=runner_up,
        asks_why=asked.kind == REASON,
        how_to=asked.kind == HOWTO,
    )
    # supersede edges join canonical records only
    canonical = {s.hit.document_id for s in sources if s.hit.canonical_type}
    pairs = supersede_pairs(user=user, document_ids=canonical) if canonical else []
    starts = record_starts({doc.pk for pair in pairs for doc in pair})
    links = [
        SupersedeLink(older=_reference(old, starts), newer=_reference(new, starts))
        for old, new in pairs
    ]
    in_chain = {ref.document_id for link in links for ref in (link.older, link.newer)}
    missing = sorted(in_chain - {s.hit.document_id for s in sources})
    if missing:
        sources = add_sources(
            sources, document_hits(user=user, query=question, document_ids=missing), block="related"
        )
    earlier = earlier_subject(previous)
    embed_units = int(settings.CHAT["EXTRACTIVE_EMBED_UNITS"])
    corpus = _term_idfs(f"{previous} {question}")

    def brief_of(
        numbered: tuple[PromptSource, ...],
    ) -> tuple[tuple[PromptSource, ...], EvidenceBrief, dict[str, str]]:
        # the one place an answer's sources are final: one document per near-duplicate group
        numbered = cite_one_per_duplicate_group(
            numbered,
            duplicate_stand_ins(
                user=user, document_ids={source.hit.document_id for source in numbered}
            ),
        )
        titles = document_titles_by_slug(user=user, slugs=wikilink_slugs(numbered))
        brief = build_brief(
            question=asked,
            sources=numbered,
            link_titles=titles,
            earlier_terms=earlier,
            links=links,
            meaning=meaning_judge(question, previous) if embed_units > 0 else None,
            meaning_units=embed_units,
            corpus_weights=corpus,
            earlier_lead=earlier_lead,
        )
        return numbered, brief, titles

    sources, brief, titles = brief_of(sources)
    asked_for: set[str] = set()
    # (a refused brief asks again only for a compare question's target); a second retrieval
    # may leave another part unstated: "did we make the SLA on the February outage?" finds
    # the outage's duration first, then the target it is held against
    while brief.unstated and brief.unstated not in asked_for and len(asked_for) < MAX_HOPS:
        asked_for.add(brief.unstated)
        hop = _search(user=user, question=brief.unstated, filters=filters, limit=SECOND_HOP_HITS)
        if not hop.primary:
            break
        found = widened_sources(
            user=user,
            query=brief.unstated,
            sources=add_sources((), hop.primary[:SECOND_HOP_HITS], block="context"),
            runner_up=hop.runner_up,
        )
        widened, second, second_titles = brief_of(
            add_sources(sources, tuple(s.hit for s in found), block="context")
        )
        if not says_more(brief, second):
            break
        sources, brief, titles = widened, second, second_titles
    return sources, brief, titles


def _term_idfs(text: str) -> dict[str, float]:
    """The IDF over the tenant's chunks of each term of `text` (by the one word model)."""
    from kb.retrieval.support import word_idfs

    tokens = re.findall(r"[\w'.-]+", text)
    by_word = word_idfs(words=tokens, language=settings.KB["FTS_LANGUAGE"])
    weights: dict[str, float] = {}
    for token, weight in by_word.items():
        for term in words.terms(token):
            weights[term] = max(weights.get(term, 0.0), weight)
    return weights


# The first document found is read whole when it has at most this many chunks.
SHORT_DOCUMENTS_READ = 1
SHORT_DOCUMENT_CHUNKS = 8
# ...or has at most this many characters, however many sections it is cut into (the longest
# document of at most 8 chunks in the gold corpora has 4,860)
SHORT_DOCUMENT_CHARS = 5000
PROCEDURES_LOOKED_AT = 2  # a how-to: documents found after the first checked for steps
REJECTED_RECORD_CHUNKS = 16  # a rejected approach: its proposal, then why it was rejected
WORDED_CHUNKS = 2  # chunks of a longer first document that hold most of the question's words
WORDED_SHARE = 0.5  # ...at least half of them (IDF-weighted)
# The best chunks whose neighbouring chunks (same document and section) join a turn's sources.
NEIGHBOURS_OF = 8
NEIGHBOURS_KEPT = 12
RUNNER_UPS_KEPT = 6  # runner-ups of the documents found that join a turn's sources
NEIGHBOUR_REACH = 2  # chunks before and after: a list longer than a chunk spans three
# Hits of the second retrieval that join a turn's sources.
SECOND_HOP_HITS = 4
# Retrievals after the first for what the evidence leaves unstated: a compare question may
# need both its measurement and its target.
MAX_HOPS = 2


def _reference(document: Document, starts: dict[int, dt.date]) -> DocumentRef:
    return DocumentRef(
        document_id=document.pk,
        title=document.title,
        slug=document.slug,
        status=document.canonical_status,
        changed=document.updated_at.date() if document.updated_at else None,
        since=starts.get(document.pk),
    )


# A record states when it came into force in its opening: its first few chunks.
OPENING_CHUNKS = 3


def record_starts(document_ids: set[int]) -> dict[int, dt.date]:
    """{record: the day it came into force}: the date its own opening states next to a label
    (chat.answers.history.stated_start), else the day its status history says it was
    accepted. Records with neither are left out."""
    from canonical.selectors import status_timeline

    if not document_ids:
        return {}
    openings = document_openings(document_ids=document_ids, chunks=OPENING_CHUNKS)
    starts: dict[int, dt.date] = {}
    for document_id in document_ids:
        stated = history.stated_start(openings.get(document_id, ""))
        if stated is not None:
            starts[document_id] = stated.day
            continue
        accepted = [
            step.at
            for step in status_timeline(document_id=document_id)
            if step.to_status == CanonicalStatus.ACCEPTED
        ]
        if accepted:
            starts[document_id] = accepted[-1].date()
    return starts


TURN_KEY_RE = re.compile(r"[A-Za-z0-9-]{8,64}")
CLOSEST_DOCUMENTS = 3
CLOSEST_EXCERPT_CHARS = 200


def closest_documents(result: SearchResult) -> list[dict[str, Any]]:
    """The first CLOSEST_DOCUMENTS documents of the ranked list, each at its best passage:
    what a refusal offers to open instead of a dead end (checked for visibility again when
    shown)."""
    closest: list[dict[str, Any]] = []
    for hit in result.primary:
        if any(c["document_id"] == hit.document_id for c in closest):
            continue
        closest.append(
            {
                "document_id": hit.document_id,
                "chunk_id": hit.chunk_id,
                "title": hit.title,
                "project_key": hit.project_key,
                "canonical_status": hit.canonical_status,
                "excerpt": excerpt(to_prose(hit.text), CLOSEST_EXCERPT_CHARS),
            }
        )
        if len(closest) == CLOSEST_DOCUMENTS:
            break
    return closest


def turn_stored(*, user: AnyUser, turn_key: str) -> TurnResult | None:
    """The user's turn stored under `turn_key`, None when there is none (yet)."""
    if not user.is_authenticated or not TURN_KEY_RE.fullmatch(turn_key or ""):
        return None
    answer = (
        Message.objects.filter(
            conversation__user_id=user.pk,
            role=MessageRole.ASSISTANT,
            meta__turn_key=turn_key,
        )
        .select_related("conversation")
        .first()
    )
    if answer is None:
        return None
    question = (
        Message.objects.filter(
            conversation_id=answer.conversation_id, role=MessageRole.USER, pk__lt=answer.pk
        )
        .order_by("-pk")
        .first()
    )
    if question is None:  # pragma: no cover - a stored turn always has its question
        return None
    return TurnResult(
        conversation=answer.conversation,
        question_message=question,
        answer_message=answer,
        answer=answer.content,
        citations=list(answer.citations or []),
        refusal_reason=answer.refusal_reason or None,
        meta=dict(answer.meta or {}),
    )


def message_send(
    *,
    user: AnyUser,
    question: str,
    filters: SearchFilters | None = None,
    conversation: Conversation | None = None,
    provider: AnswerProvider | None = None,
    turn_key: str = "",
) -> TurnResult:
    """Retrieve -> grounding gate -> prompt -> provider -> citation check -> store + log.

    Raises ChatInputError for bad input and ProviderError when the provider fails
    (nothing is stored then except the chat log row). `provider` overrides the configured
    one (the answer harness measures a named provider).
    """
    for item in message_stream(
        user=user,
        question=question,
        filters=filters,
        conversation=conversation,
        stream=False,
        provider=provider,
        turn_key=turn_key,
    ):
        if isinstance(item, TurnResult):
            return item
    raise RuntimeError("the chat turn ended without a result")  # pragma: no cover


def message_stream(
    *,
    user: AnyUser,
    question: str,
    filters: SearchFilters | None = None,
    conversation: Conversation | None = None,
    stream: bool = True,
    provider: AnswerProvider | None = None,
    turn_key: str = "",
) -> Iterator[str | TurnResult]:
    """The chat turn as a stream: answer text pieces as a streaming provider produces them,
    then the stored TurnResult (refusals yield only the result). Same errors as message_send.

    `turn_key` (the page's id for this ask, see TURN_KEY_RE) is stored with the answer, so a
    page reloaded mid-answer finds it; a turn already stored under the key is returned as it
    is instead of being answered twice.
    """
    if turn_key and not TURN_KEY_RE.fullmatch(turn_key):
        raise ChatInputError({"turn_key": ["Send 8 to 64 letters, digits or dashes."]})
    if turn_key:
        stored = turn_stored(user=user, turn_key=turn_key)
        if stored is not None:
            yield stored
            return
    question = (question or "").strip()
    if not question:
        raise ChatInputError({"question": ["Ask a question."]})
    too_long = question_length_error(question)
    if too_long:
        raise ChatInputError({"question": [too_long]})
    filters = filters or SearchFilters()
    started = time.monotonic()
    # read and searched as meant; stored, logged and shown as typed
    spelled = spelled_right(user=user, question=question)
    asked = read_question(spelled)
    state = conversation_state(conversation)
    follows = state.carries_into(asked)
    previous = state.previous_question if follows else ""
    # A follow-up ("and who made the call?") is searched with the subject of the turn before
    # it, and the documents that turn cited are boosted like @mentions.
    retrieval_question = f"{previous} {spelled}" if previous else spelled
    if follows and asked.elliptical:
        # "and at Carn Dubh?" asks the previous question again, of something else
        retrieval_question = restated(previous, spelled)
        asked = read_follow_up(previous, spelled)
        previous = replaced_in(previous, spelled)  # its subject, less what is replaced
    # A follow-up of a follow-up keeps the subject of the turns it leaned on ("which MES are we
    # on?" -> "when did it go live?" -> "and who made the call?"), at most SUBJECT_TURNS.
    subject_questions = [*state.subject_questions, spelled] if follows else [spelled]
    result = _search(
        user=user,
        question=retrieval_question,
        filters=filters,
        mentions=state.cited_slugs if follows else (),
    )
    sources = number_sources(result)
    gap_keys = searched_project_keys(user, filters.project_keys)
    # An answer is logged under the projects it drew on; a refusal under every project searched.
    log_keys = _visible_keys(user, filters.project_keys) or sorted(
        {s.hit.project_key for s in sources}
    )
    meta: dict[str, Any] = {
        "provider": None,
        "model": None,
        "latency_ms": 0,
        "chunks_used": 0,
        "primary_count": len(result.primary),
        "expanded_count": len(result.expanded),
        "rejected_count": len(result.rejected),
        "filters": filters.applied(),
        "citation_check": {"valid": [], "dropped": []},
        "retrieval_ms": result.meta.get("retrieval_ms"),
        "relevance_level": result.meta.get("relevance_level"),
        "subject_questions": subject_questions[-SUBJECT_TURNS:],
        "closest": closest_documents(result),
    }
    if turn_key:
        meta["turn_key"] = turn_key

    if not result.meta.get("embedding_available", True):
        # Keyword-only retrieval is fine for a search list, not for an answer: refuse with a
        # typed reason before any provider call. Not a content gap: the documents may exist.
        meta["latency_ms"] = _elapsed_ms(started)
        yield _refuse(
            REFUSAL_SEARCH_DEGRADED,
            user=user,
            conversation=conversation,
            question=question,
            meta=meta,
            chunk_ids=[],
            log_keys=gap_keys,
        )
        return

    if not is_grounded(result) or not is_supported(retrieval_question, result):
        # Refused before any provider is called: nothing to ground an answer on.
        meta["latency_ms"] = _elapsed_ms(started)
        yield _refuse_unanswered(
            user=user, conversation=conversation, question=question, meta=meta,
            chunk_ids=[], gap_keys=gap_keys,
        )  # fmt: skip
        return

    sources, brief, link_titles = _evidence(
        user=user, question=spelled, asked=asked, previous=previous, sources=sources,
        filters=filters, runner_up=result.runner_up,
        earlier_lead=state.cited_slugs[0] if follows and state.cited_slugs else "",
    )  # fmt: skip
    if not brief.answerable:
        # No unit states what the question asks about its subject (a near-miss): refused
        # before any provider is called, and counted as a content gap.
        meta["latency_ms"] = _elapsed_ms(started)
        meta["refusal_detail"] = brief.refusal
        yield _refuse_unanswered(
            user=user, conversation=conversation, question=question, meta=meta,
            chunk_ids=[s.hit.chunk_id for s in sources], gap_keys=gap_keys,
        )  # fmt: skip
        return

    tz_name = settings.CHAT["PROMPT_TIMEZONE"]
    prompt = build_prompt(
        question=question,
        sources=sources,
        now=prompt_now(tz_name),
        timezone_name=tz_name,
        previous_question=previous,
        link_titles=link_titles,
        brief=brief,
    )
    provider = provider or get_provider()
    meta.update(provider=provider.name, model=provider.model, chunks_used=len(sources))
    try:
        if stream and getattr(provider, "supports_streaming", False):
            pieces: list[str] = []
            for piece in provider.stream(prompt):
                pieces.append(piece)
                yield piece
            raw_answer, model = "".join(pieces).strip(), provider.model
        else:
            answered = provider.answer(prompt)
            raw_answer, model = answered.text.strip(), answered.model
    except ProviderError as exc:
        chat_log_write(
            user=user,
            question=question,
            answer="",
            provider=provider.name,
            model=provider.model,
            latency_ms=_elapsed_ms(started),
            chunk_ids=[s.hit.chunk_id for s in sources],
            refusal_reason=exc.code,
            project_keys=log_keys,
        )
        raise
    meta["model"] = model
    yield _finish_answer(
        user=user,
        conversation=conversation,
        question=question,
        raw_answer=raw_answer,
        prompt=prompt,
        meta=meta,
        started=started,
        gap_keys=gap_keys,
        log_keys=log_keys,
    )


def _finish_answer(
    *,
    user: AnyUser,
    conversation: Conversation | None,
    question: str,
    raw_answer: str,
    prompt: Prompt,
    meta: dict[str, Any],
    started: float,
    gap_keys: list[str],
    log_keys: list[str],
) -> TurnResult:
    chunk_ids = [s.hit.chunk_id for s in prompt.sources]
    if raw_answer == NO_GROUNDED_ANSWER or not raw_answer:
        meta["latency_ms"] = _elapsed_ms(started)
        return _refuse_unanswered(
            user=user, conversation=conversation, question=question, meta=meta,
            chunk_ids=chunk_ids, gap_keys=gap_keys, reason=REFUSAL_SELF,
        )  # fmt: skip
    check: CitationCheck = check_citations(raw_answer, prompt)
    meta["citation_check"] = check.to_dict()
    meta["latency_ms"] = _elapsed_ms(started)
    if not check.valid:
        # An answer with no citation to a real source is not grounded: do not show it.
        return _refuse_unanswered(
            user=user, conversation=conversation, question=question, meta=meta,
            chunk_ids=chunk_ids, gap_keys=gap_keys, reason=REFUSAL_UNGROUNDED,
        )  # fmt: skip
    answer, shown = renumber(check, places(prompt))
    # In the shown numbering (1..n, as in the answer and the citations).
    meta["citation_check"] = {
        "valid": list(dict.fromkeys(shown.values())),
        "dropped": list(check.dropped),
    }
    citations = []
    cited: set[int] = set()
    # the version each cited chunk was read in: an old answer opens the passage as it was
    versions = chunk_versions(
        (source.hit.document_id, source.hit.chunk_id)
        for source in (prompt.source(prompt_n) for prompt_n in shown)
        if source is not None
    )
    for prompt_n, n in shown.items():
        source = prompt.source(prompt_n)
        if source is not None and n not in cited:
            cited.add(n)
            citations.append(
                citation_payload(
                    source,
                    n=n,
                    preview_url=_preview_url(source.hit.document_id),
                    version=versions.get((source.hit.document_id, source.hit.chunk_id)),
                )
            )
    return _store_turn(
        user=user,
        conversation=conversation,
        question=question,
        answer=to_prose(answer, prompt.link_titles),
        citations=citations,
        refusal_reason=None,
        meta=meta,
        chunk_ids=chunk_ids,
        log_keys=log_keys,
    )


def _elapsed_ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)


def _refuse(
    reason: str,
    *,
    user: AnyUser,
    conversation: Conversation | None,
    question: str,
    meta: dict[str, Any],
    chunk_ids: list[int],
    log_keys: list[str],
) -> TurnResult:
    """Store a refusal turn: the human message for `reason`, no citations."""
    return _store_turn(
        user=user,
        conversation=conversation,
        question=question,
        answer=REFUSAL_MESSAGES[reason],
        citations=[],
        refusal_reason=reason,
        meta=meta,
        chunk_ids=chunk_ids,
        log_keys=log_keys,
    )


def _refuse_unanswered(
    *,
    user: AnyUser,
    conversation: Conversation | None,
    question: str,
    meta: dict[str, Any],
    chunk_ids: list[int],
    gap_keys: list[str],
    reason: str = REFUSAL_NO_CONTEXT,
) -> TurnResult:
    """A question the knowledge base does not answer (nothing grounds it, a near-miss, or
    the provider could not ground its answer): counted as a content gap of every project
    searched, and refused."""
    content_gap_record(question=question, project_keys=gap_keys)
    return _refuse(
        reason,
        user=user,
        conversation=conversation,
        question=question,
        meta=meta,
        chunk_ids=chunk_ids,
        log_keys=gap_keys,
    )


def _store_turn(
    *,
    user: AnyUser,
    conversation: Conversation | None,
    question: str,
    answer: str,
    citations: list[dict[str, Any]],
    refusal_reason: str | None,
    meta: dict[str, Any],
    chunk_ids: list[int],
    log_keys: list[str],
) -> TurnResult:
    if not user.is_authenticated:  # the views and the API sign in first; never a stray turn
        raise PermissionError("Only a signed-in user can hold a conversation.")
    with transaction.atomic():
        if conversation is None:
            conversation = Conversation(user=user)
        if conversation.pk is None:  # new; the API hands in an unsaved one marked source=api
            conversation.title = _title_from(question)
            conversation.save()
        question_message = Message.objects.create(
            conversation=conversation, role=MessageRole.USER, content=question
        )
        answer_message = Message.objects.create(
            conversation=conversation,
            role=MessageRole.ASSISTANT,
            content=answer,
            citations=citations,
            refusal_reason=refusal_reason or "",
            meta=meta,
        )
        cited_documents_record(message=answer_message, citations=citations)
        # Touch the conversation so it sorts first in the list.
        conversation.save(update_fields=["updated_at"])
    chat_log_write(
        user=user,
        question=question,
        answer=answer,
        provider=meta.get("provider") or "",
        model=meta.get("model") or "",
        latency_ms=meta.get("latency_ms") or 0,
        chunk_ids=chunk_ids,
        refusal_reason=refusal_reason or "",
        project_keys=log_keys,
    )
    return TurnResult(
        conversation=conversation,
        question_message=question_message,
        answer_message=answer_message,
        answer=answer,
        citations=citations,
        refusal_reason=refusal_reason,
        meta=meta,
    )


def _title_from(question: str) -> str:
    flat = " ".join(question.split())
    if len(flat) <= TITLE_CHARS:
        return flat
    return flat[:TITLE_CHARS].rsplit(" ", 1)[0] + " …"
