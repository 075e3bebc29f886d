"""Offline, deterministic answers composed from the best supporting sentences of the sources."""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass

from chat.prompt import NO_GROUNDED_ANSWER, Prompt, PromptSource
from chat.providers.base import ProviderAnswer

MAX_SENTENCES = 4
MIN_SENTENCES = 2
MAX_PER_SOURCE = 2
MAX_SOURCES = 3
MAX_SENTENCE_CHARS = 400
MAX_EMBEDDED_SENTENCES = 40
MAX_REJECTED_WARNINGS = 2
logger = logging.getLogger(__name__)
STALE_STATUSES = frozenset({"superseded", "deprecated", "archived"})

STOPWORDS = frozenset(
    """a an and are as at be by can did do does for from how i if in into is it its me my of on
    or our should so than that the their them then there these they this to was we were what
    when where which who why will with you your about after before use used using don t not
    any all also have has had get got need want would could""".split()
)
_WORD = re.compile(r"[a-z0-9][a-z0-9_\-]*")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[`*])")
_LIST_MARKER = re.compile(r"^\s*(?:[-*+]|\d+[.)]|>)\s+")
_INLINE_MARKUP = re.compile(r"\*\*|__|\[\[|\]\]")


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s", "ly"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word.rstrip("e") or word


def terms(text: str) -> set[str]:
    """Content-word stems of `text` (lowercased, stopwords dropped)."""
    return {
        _stem(word)
        for word in _WORD.findall(text.lower())
        if word not in STOPWORDS and len(word) > 1
    }


def split_sentences(text: str) -> list[str]:
    """Readable sentences of a markdown chunk: no headings, fences, tables or list markers."""
    sentences: list[str] = []
    in_fence = False
    paragraph: list[str] = []

    def flush() -> None:
        if paragraph:
            joined = " ".join(paragraph)
            sentences.extend(s.strip() for s in _SENTENCE_END.split(joined) if s.strip())
            paragraph.clear()

    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith(("```", "~~~")):
            in_fence = not in_fence
            flush()
            continue
        if in_fence or not line or line.startswith(("#", "|", "---")):
            flush()
            continue
        if _LIST_MARKER.match(line):
            flush()
            line = _LIST_MARKER.sub("", line)
        paragraph.append(_INLINE_MARKUP.sub("", line))
    flush()
    out = []
    for sentence in sentences:
        # fragments, and lead-ins to a code block or list that was dropped
        if len(sentence.split()) < 4 or sentence.endswith(":"):
            continue
        if len(sentence) > MAX_SENTENCE_CHARS:
            sentence = sentence[:MAX_SENTENCE_CHARS].rsplit(" ", 1)[0] + " …"
        out.append(sentence)
    return out


@dataclass(frozen=True)
class _Candidate:
    score: float
    overlap: int
    source: PromptSource
    position: int
    sentence: str


def _source_prior(source: PromptSource) -> float:
    """Retrieval rank and curation status: the answer should lean on the best, current source."""
    hit = source.hit
    prior = 0.4 * max(0.0, min(hit.quality_score, 1.0)) + 0.3 / (1 + source.n)
    if source.block == "related":
        prior -= 0.3  # neighbours complete an answer; they rarely carry it
    if hit.canonical_type == "project-index":
        prior -= 0.6  # index pages are lists of links, not answers
    status = hit.canonical_status
    if status == "accepted":
        prior += 0.2
    elif status in STALE_STATUSES:
        prior -= 0.5
    return prior


_DANGLING = re.compile(r"^(it|this|that|these|they|those|he|she)\b", re.IGNORECASE)


def _cite(sentence: str, n: int) -> str:
    body = sentence.rstrip()
    end = "."
    if body and body[-1] in ".!?":
        end = body[-1]
        body = body[:-1].rstrip()
    return f"{body} [{n}]{end}"


class ExtractiveProvider:
    """Picks 2-4 sentences that best support the question, each with its source number.

    Sentences are scored by meaning (the knowledge base's embedder: question vs sentence
    cosine) plus shared words, the source's retrieval rank and its curation status. Without
    an embedder it falls back to shared words alone.
    """

    name = "extractive"
    model = "extractive-v1"
    supports_streaming = False

    def __init__(self, *, use_embedder: bool = True) -> None:
        self.use_embedder = use_embedder

    def answer(self, prompt: Prompt) -> ProviderAnswer:
        question_terms = terms(prompt.question)
        candidates: list[_Candidate] = []
        usable = [s for s in prompt.sources if s.block != "rejected"]
        # index pages list links to answers; quote them only when nothing else was found
        substantive = [s for s in usable if s.hit.canonical_type != "project-index"]
        for source in substantive or usable:
            heading_terms = terms(f"{source.hit.title} {source.hit.heading_path}")
            heading_bonus = 0.1 * len(question_terms & heading_terms)
            for position, sentence in enumerate(split_sentences(source.hit.text)):
                overlap = len(question_terms & terms(sentence))
                score = (
                    0.5 * overlap / math.sqrt(max(len(question_terms), 1))
                    + heading_bonus
                    + _source_prior(source)
                    - 0.01 * position
                    # a sentence opening with a pronoun reads badly out of its paragraph
                    - (0.15 if _DANGLING.match(sentence) else 0.0)
                )
                candidates.append(_Candidate(score, overlap, source, position, sentence))
        candidates = self._add_meaning(prompt.question, candidates)
        picked = self._pick(candidates)
        if not picked:
            return ProviderAnswer(text=NO_GROUNDED_ANSWER, model=self.model)
        lines = [self._render(candidate) for candidate in picked]
        lines.extend(self._rejected_warnings(prompt))
        return ProviderAnswer(
            text=" ".join(lines), model=self.model, usage={"sentences": len(picked)}
        )

    def _add_meaning(self, question: str, candidates: list[_Candidate]) -> list[_Candidate]:
        """Add 1.5 x cosine(question, sentence) for the best lexical candidates."""
        if not self.use_embedder or not candidates:
            return candidates
        shortlist = sorted(candidates, key=lambda c: -c.score)[:MAX_EMBEDDED_SENTENCES]
        try:
            from kb.embeddings import get_embedder
            from kb.embeddings.cache import embed_query_cached, embed_texts_cached

            embedder = get_embedder()
            query = embed_query_cached(embedder, question)
            vectors = embed_texts_cached(embedder, [c.sentence for c in shortlist])
        except Exception:  # noqa: BLE001 - meaning is a bonus; words alone still answer
            logger.warning("extractive provider: embedder unavailable, words only", exc_info=True)
            return candidates
        rescored = [
            _Candidate(
                c.score + 1.5 * sum(a * b for a, b in zip(query, vector, strict=False)),
                c.overlap,
                c.source,
                c.position,
                c.sentence,
            )
            for c, vector in zip(shortlist, vectors, strict=True)
        ]
        return rescored

    def stream(self, prompt: Prompt) -> Iterator[str]:
        yield self.answer(prompt).text

    def _pick(self, candidates: list[_Candidate]) -> list[_Candidate]:
        ranked = sorted(candidates, key=lambda c: (-c.score, c.source.n, c.position))
        picked: list[_Candidate] = []
        per_source: dict[int, int] = {}
        for candidate in ranked:
            if len(picked) >= MAX_SENTENCES:
                break
            n = candidate.source.n
            if n not in per_source and len(per_source) >= MAX_SOURCES:
                continue
            if per_source.get(n, 0) >= MAX_PER_SOURCE:
                continue
            # Beyond the minimum, only sentences that share a word with the question help.
            if len(picked) >= MIN_SENTENCES and candidate.overlap == 0:
                continue
            picked.append(candidate)
            per_source[n] = per_source.get(n, 0) + 1
        # Best source first (stale ones last), each source's sentences in document order.
        best: dict[int, float] = {}
        for candidate in picked:
            best.setdefault(candidate.source.n, candidate.score)
        return sorted(
            picked,
            key=lambda c: (
                c.source.hit.canonical_status in STALE_STATUSES,
                -best[c.source.n],
                c.source.n,
                c.position,
            ),
        )

    def _render(self, candidate: _Candidate) -> str:
        source = candidate.source
        status = source.hit.canonical_status
        if status in STALE_STATUSES:
            return _cite(f"{source.hit.title} ({status}) said: {candidate.sentence}", source.n)
        return _cite(candidate.sentence, source.n)

    def _rejected_warnings(self, prompt: Prompt) -> list[str]:
        warnings: list[str] = []
        seen_documents: set[int] = set()
        for source in prompt.sources:
            if source.block != "rejected" or source.hit.document_id in seen_documents:
                continue
            seen_documents.add(source.hit.document_id)
            warnings.append(f"⚠ Note: {source.hit.title} was considered and rejected [{source.n}].")
            if len(warnings) >= MAX_REJECTED_WARNINGS:
                break
        return warnings
