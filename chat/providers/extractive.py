"""The offline answer provider: the evidence brief composed as plain, cited sentences.

The engine behind it is `chat.answers` (units, question, scoring, evidence, compose); this
provider only renders the brief the chat turn built, or builds one itself from the prompt's
sources when it is called with a bare prompt (the answer harness, tests).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence

from chat.answers.compose import compose
from chat.answers.evidence import EvidenceBrief, build_brief, earlier_subject
from chat.answers.question import read_question
from chat.prompt import NO_GROUNDED_ANSWER, Prompt
from chat.providers.base import ProviderAnswer

logger = logging.getLogger(__name__)


def meaning_judge(
    question: str, previous: str = ""
) -> Callable[[Sequence[str]], Sequence[float] | None]:
    """Cosines of texts to the question by the knowledge base's embedder (None when it is
    unavailable: words alone still answer)."""

    def judge(texts: Sequence[str]) -> Sequence[float] | None:
        try:
            from kb.embeddings import get_embedder
            from kb.embeddings.cache import embed_query_cached, embed_texts_cached

            embedder = get_embedder()
            query = embed_query_cached(embedder, f"{previous} {question}".strip())
            vectors = embed_texts_cached(embedder, list(texts))
        except Exception:  # noqa: BLE001 - meaning is a bonus; words alone still answer
            logger.warning("answer engine: embedder unavailable, words only", exc_info=True)
            return None
        return [sum(a * b for a, b in zip(query, v, strict=False)) for v in vectors]

    return judge


class ExtractiveProvider:
    """Quotes the units the evidence brief says answer the question, each with its source."""

    name = "extractive"
    model = "extractive-v3"
    supports_streaming = False

    def __init__(self, *, use_embedder: bool = True, embed_units: int = 12) -> None:
        self.use_embedder = use_embedder and embed_units > 0
        self.embed_units = embed_units

    def brief_for(self, prompt: Prompt) -> EvidenceBrief:
        """The prompt's brief, or one built from its sources alone (no supersede chain, no
        corpus: the best evidence answers)."""
        if prompt.brief is not None:
            return prompt.brief
        return build_brief(
            question=read_question(prompt.question),
            sources=prompt.sources,
            link_titles=prompt.link_titles,
            earlier_terms=earlier_subject(prompt.previous_question),
            meaning=meaning_judge(prompt.question, prompt.previous_question)
            if self.use_embedder
            else None,
            meaning_units=self.embed_units,
            refuse_near_misses=False,  # the chat turn refuses near-misses before a provider
        )

    def answer(self, prompt: Prompt) -> ProviderAnswer:
        brief = self.brief_for(prompt)
        text = compose(brief)
        if not text:
            return ProviderAnswer(text=NO_GROUNDED_ANSWER, model=self.model)
        return ProviderAnswer(text=text, model=self.model, usage={"units": 1 + len(brief.support)})

    def stream(self, prompt: Prompt) -> Iterator[str]:
        yield self.answer(prompt).text
