"""Answer-quality harness: run gold questions through the real chat turn and score the answers.

The twin of kb_benchmark for answers. A gold set is JSONL, one question per line:
`{"q", "facts": [["phrasing", "alternative"], ...], "slugs": [...], "refuse": bool,
"conversation": "id"?, "kind": "..."?, "stale": ["an outdated value", ...]?}`. Follow-ups
sharing a `conversation` run in one conversation, in file order. Scores: fact recall (each
phrasing matched on word boundaries: "SES" is not found in "uses"), gold-citation rate,
citation precision, refusal accuracy, stale leaks and latency, overall and per `kind`, for
whichever answer provider is configured or named.

A stale leak is a sentence that states an outdated value as current: it cites a superseded,
deprecated or archived source without saying so, or it states one of the question's `stale`
values without marking it as history or as a disagreement with the record.
"""

from __future__ import annotations

import json
import re
import statistics
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model

from chat.models import Conversation
from chat.providers import AnswerProvider
from chat.services import TurnResult, message_send
from kb.models import STALE_STATUSES
from portal.access.models import AnyUser, Membership, Project, Role

# A sentence that names one of these says the fact is not current: not a leak.
_STATUS_WORDS = re.compile(
    r"\b(superseded|deprecated|archived|no longer|replaced|formerly|used to|historical)\b",
    re.IGNORECASE,
)
# ...and for a stale value, one of these says it is history or someone else's claim.
_HISTORY_OR_DISAGREEMENT = re.compile(
    r"\b(superseded|deprecated|archived|no longer|replaced|formerly|previously|used to|"
    r"historical|was|were|until|earlier|before|old|outdated|draft|proposed|planned|"
    r"disagree\w*|differ\w*|contradict\w*|but|however|whereas|instead|not)\b",
    re.IGNORECASE,
)
_CITATION = re.compile(r"\[(\d{1,3})\]")
_SENTENCE = re.compile(r"(?<=[.!?])\s+|(?<=\])\s+(?=[A-Z⚠])")


class GoldsetError(ValueError):
    """A gold-set file that cannot be read; the message names the line."""


@dataclass(frozen=True, kw_only=True)
class GoldQuestion:
    q: str
    facts: tuple[tuple[str, ...], ...] = ()
    slugs: tuple[str, ...] = ()
    refuse: bool = False
    conversation: str | None = None
    kind: str = ""
    stale: tuple[str, ...] = ()
    line: int = 0


@dataclass(frozen=True, kw_only=True)
class QuestionScore:
    question: GoldQuestion
    answer: str
    refusal_reason: str | None
    cited_slugs: tuple[str, ...]
    facts_found: int
    refusal_correct: bool
    gold_cited: bool
    stale_leak: bool
    latency_ms: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "q": self.question.q,
            "line": self.question.line,
            "answer": self.answer,
            "refusal_reason": self.refusal_reason,
            "cited": list(self.cited_slugs),
            "facts": f"{self.facts_found}/{len(self.question.facts)}",
            "refusal_correct": self.refusal_correct,
            "gold_cited": self.gold_cited,
            "stale_leak": self.stale_leak,
            "latency_ms": round(self.latency_ms, 1),
            "kind": self.question.kind,
        }


@dataclass(frozen=True, kw_only=True)
class BenchmarkReport:
    provider: str
    scores: tuple[QuestionScore, ...]
    metrics: dict[str, float] = field(default_factory=dict)

    def failures(self) -> list[QuestionScore]:
        """Questions that lost a point anywhere: a fact, the gold citation, refusal, a leak."""
        return [
            s
            for s in self.scores
            if not s.refusal_correct
            or s.stale_leak
            or (
                not s.question.refuse
                and (s.facts_found < len(s.question.facts) or not s.gold_cited)
            )
        ]

    def to_dict(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "metrics": self.metrics,
            "by_kind": summarise_by_kind(list(self.scores)),
            "questions": [s.to_dict() for s in self.scores],
        }


def load_answer_goldset(path: Path) -> list[GoldQuestion]:
    """Read a gold-set JSONL file; raises GoldsetError naming the first bad line."""
    questions = []
    with Path(path).open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                question = GoldQuestion(
                    q=str(record["q"]),
                    facts=tuple(_phrasings(fact) for fact in record.get("facts", [])),
                    slugs=tuple(str(slug) for slug in record.get("slugs", [])),
                    refuse=bool(record.get("refuse", False)),
                    conversation=record.get("conversation"),
                    kind=str(record.get("kind") or ""),
                    stale=tuple(str(value) for value in record.get("stale", [])),
                    line=number,
                )
            except (ValueError, KeyError, TypeError) as exc:
                raise GoldsetError(f"line {number}: {exc}") from exc
            if not question.refuse and not question.slugs:
                raise GoldsetError(f"line {number}: an answerable question needs gold slugs")
            questions.append(question)
    return questions


def _phrasings(fact: Any) -> tuple[str, ...]:
    if isinstance(fact, str):
        return (fact,)
    phrasings = tuple(str(p) for p in fact)
    if not phrasings:
        raise ValueError("a fact needs at least one phrasing")
    return phrasings


def normalise(text: str) -> str:
    """Compare answers and phrasings without case, markup, dash or spacing differences."""
    text = text.lower().replace("\u2011", "-").replace("\u2013", "-").replace("\u2014", "-")
    text = text.replace("\u00a0", " ").replace("`", "").replace("*", "")
    return " ".join(text.split())


def _phrase_pattern(phrasing: str) -> re.Pattern[str]:
    """The normalised phrasing as a whole word (or words): a word character at either end
    must not continue into the answer's next or previous character."""
    phrase = normalise(phrasing)
    start = r"(?<!\w)" if phrase[:1].isalnum() or phrase[:1] == "_" else ""
    end = r"(?!\w)" if phrase[-1:].isalnum() or phrase[-1:] == "_" else ""
    return re.compile(start + re.escape(phrase) + end)


def fact_found(answer: str, phrasings: Iterable[str]) -> bool:
    """Whether any acceptable phrasing of a fact appears in the answer, on word boundaries."""
    flat = normalise(answer)
    return any(_phrase_pattern(p).search(flat) for p in phrasings if normalise(p))


def stale_leak(
    answer: str, citations: list[dict[str, Any]], stale_values: Iterable[str] = ()
) -> bool:
    """A sentence citing a superseded/deprecated/archived source without saying so, or
    stating an outdated value without marking it as history or a disagreement."""
    stale = {c["n"] for c in citations if (c.get("canonical_status") or "") in STALE_STATUSES}
    values = [v for v in stale_values if normalise(v)]
    for sentence in _SENTENCE.split(answer):
        cited = {int(n) for n in _CITATION.findall(sentence)}
        if cited & stale and not _STATUS_WORDS.search(sentence):
            return True
        if any(fact_found(sentence, [v]) for v in values):
            if not _HISTORY_OR_DISAGREEMENT.search(sentence):
                return True
    return False


def score_turn(question: GoldQuestion, turn: TurnResult, latency_ms: float) -> QuestionScore:
    """Score one answered (or refused) turn against its gold question."""
    refused = turn.refusal_reason is not None
    cited = tuple(dict.fromkeys(c["slug"] for c in turn.citations))
    answer = "" if refused else turn.answer
    return QuestionScore(
        question=question,
        answer=turn.answer,
        refusal_reason=turn.refusal_reason,
        cited_slugs=cited,
        facts_found=sum(fact_found(answer, fact) for fact in question.facts),
        refusal_correct=refused == question.refuse,
        gold_cited=bool(set(cited) & set(question.slugs)),
        stale_leak=(not refused) and stale_leak(turn.answer, turn.citations, question.stale),
        latency_ms=latency_ms,
    )


def summarise(scores: list[QuestionScore]) -> dict[str, float]:
    """The headline numbers of a run."""
    answerable = [s for s in scores if not s.question.refuse]
    with_facts = [s for s in answerable if s.question.facts]
    answered = [s for s in scores if s.refusal_reason is None]
    cited = [slug for s in answered for slug in s.cited_slugs]
    cited_gold = sum(1 for s in answered for slug in s.cited_slugs if slug in set(s.question.slugs))
    latencies = sorted(s.latency_ms for s in scores)
    total_facts = sum(len(s.question.facts) for s in with_facts)

    def ratio(part: float, whole: float) -> float:
        return round(part / whole, 3) if whole else 0.0

    return {
        "questions": len(scores),
        "answerable": len(answerable),
        "refusals_expected": len(scores) - len(answerable),
        "fact_recall": ratio(sum(s.facts_found for s in with_facts), total_facts),
        "fact_recall_per_question": ratio(
            sum(s.facts_found / len(s.question.facts) for s in with_facts), len(with_facts)
        ),
        "gold_citation": ratio(sum(s.gold_cited for s in answerable), len(answerable)),
        "citation_precision": ratio(cited_gold, len(cited)),
        "refusal_accuracy": ratio(sum(s.refusal_correct for s in scores), len(scores)),
        # of the questions that should be refused, how many were; of the rest, how many were not
        "refusals_right": ratio(
            sum(s.refusal_correct for s in scores if s.question.refuse),
            len(scores) - len(answerable),
        ),
        "answered_right": ratio(sum(s.refusal_correct for s in answerable), len(answerable)),
        "stale_leaks": sum(s.stale_leak for s in scores),
        "p50_ms": round(statistics.median(latencies), 1) if latencies else 0.0,
        "p95_ms": round(latencies[max(0, round(0.95 * len(latencies)) - 1)], 1)
        if latencies
        else 0.0,
    }


def summarise_by_kind(scores: list[QuestionScore]) -> dict[str, dict[str, float]]:
    """The headline numbers per question kind (questions without a kind under "")."""
    kinds: dict[str, list[QuestionScore]] = {}
    for score in scores:
        kinds.setdefault(score.question.kind, []).append(score)
    return {kind: summarise(group) for kind, group in sorted(kinds.items())}


def run_goldset(
    *,
    user: AnyUser,
    questions: list[GoldQuestion],
    provider: AnswerProvider | None = None,
    on_score: Callable[[QuestionScore], None] | None = None,
) -> BenchmarkReport:
    """Every question through `message_send` (follow-ups in their conversation), scored."""
    conversations: dict[str, Conversation] = {}
    scores: list[QuestionScore] = []
    for question in questions:
        conversation = conversations.get(question.conversation or "")
        started = time.perf_counter()
        turn = message_send(
            user=user, question=question.q, conversation=conversation, provider=provider
        )
        latency_ms = (time.perf_counter() - started) * 1000
        if question.conversation:
            conversations[question.conversation] = turn.conversation
        score = score_turn(question, turn, latency_ms)
        scores.append(score)
        if on_score is not None:
            on_score(score)
    name = provider.name if provider is not None else _configured_provider_name()
    return BenchmarkReport(provider=name, scores=tuple(scores), metrics=summarise(scores))


def _configured_provider_name() -> str:
    from chat.providers import get_provider

    return get_provider().name


def reader_of_every_project(username: str) -> AnyUser:
    """A new saved user reading every project of the current tenant: who a benchmark asks
    as (a plain reader, as the people who ask; not a superuser). For a run that rolls back."""
    user = get_user_model().objects.create(username=username, is_active=True)
    Membership.objects.bulk_create(
        Membership(user=user, project=project, role=Role.READER)
        for project in Project.objects.all()
    )
    return user
