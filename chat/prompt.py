"""The typed prompt of a chat turn: numbered sources in ⚠ rejected, 📎 related and ## Context blocks."""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal
from zoneinfo import ZoneInfo

from kb import markup
from kb.models import CanonicalType
from kb.retrieval.types import SearchHit, SearchResult

if TYPE_CHECKING:
    from chat.answers.evidence import EvidenceBrief

Block = Literal["context", "related", "rejected"]

NO_GROUNDED_ANSWER = "__NO_GROUNDED_ANSWER__"
REJECTED_HEADER = "⚠ REJECTED APPROACHES"
RELATED_HEADER = "📎 RELATED CONTEXT"
CONTEXT_HEADER = "## Context"

SYSTEM_INSTRUCTIONS = f"""You are Groundwork, the company's knowledge assistant.
Answer ONLY from the numbered sources in the prompt. Rules:
1. Cite first: every sentence that states a fact ends with the number of its source, e.g. [2].
   Use only numbers that appear in the prompt; never invent a source.
2. Prefer sources with status "accepted". If you use a superseded or deprecated source,
   say so in the sentence.
3. Sources under "{REJECTED_HEADER}" were considered and rejected: never recommend them;
   mention them only to warn that they were rejected, with their citation.
4. Sources under "{RELATED_HEADER}" are neighbours of the main context; use them only to
   complete an answer grounded in "{CONTEXT_HEADER}".
5. The current date and time line is authoritative and may be used for time-relative
   questions even though it is not a source.
6. If the sources do not answer the question, reply with exactly {NO_GROUNDED_ANSWER}
   and nothing else.
7. Write plain sentences: no markdown, no [[wikilinks]] (name a document by its title), and
   copy identifiers (error codes, settings, ADR numbers) exactly as the source writes them.
8. Lead with the fact the question asks for (the number, the name, the decision, yes or no).
9. Follow the "## Evidence brief": state the trusted source's value first; name each
   disagreement it lists in one sentence with both citations; never state a superseded,
   deprecated or archived value as current (say what replaced it).
Be brief: a few sentences or a short list."""


@dataclass(frozen=True, kw_only=True)
class PromptSource:
    n: int
    hit: SearchHit
    block: Block
    # the names the document's opening paragraph lists, when a source of the answer holds
    # it: what the document covers ("This standard applies at Kestle Moor, Ambrook and
    # Fenwick Springs WTW.")
    covers: str = ""

    @property
    def about(self) -> str:
        """What the document says it is about: its summary and tags."""
        return " ".join([self.hit.summary, *self.hit.tags]).strip()

    @property
    def origin(self) -> str:
        return self.hit.origin

    @property
    def status_label(self) -> str:
        return self.hit.canonical_status or "uncurated"


@dataclass(frozen=True, kw_only=True)
class Prompt:
    question: str
    system: str
    user: str
    sources: tuple[PromptSource, ...]
    now: dt.datetime
    previous_question: str = ""  # set when the question reads as a follow-up to it
    link_titles: dict[str, str] = field(default_factory=dict)  # [[slug]] -> visible title
    brief: EvidenceBrief | None = None  # what the sources say, weighed by the trust rules

    def source(self, n: int) -> PromptSource | None:
        """The source numbered `n`, or None when the prompt has no such number."""
        for source in self.sources:
            if source.n == n:
                return source
        return None


def wikilink_slugs(sources: tuple[PromptSource, ...]) -> list[str]:
    """The slugs the sources' text links to with [[wikilinks]], in first-seen order."""
    seen: dict[str, None] = {}
    for source in sources:
        for slug in markup.wikilink_slugs(source.hit.text):
            seen.setdefault(slug, None)
    return list(seen)


def number_sources(result: SearchResult) -> tuple[PromptSource, ...]:
    """Number the hits once: context first (the answer's backbone), then related, then rejected."""
    sources: list[PromptSource] = []
    seen: set[int] = set()
    groups: tuple[tuple[Block, tuple[SearchHit, ...]], ...] = (
        ("context", result.primary),
        ("related", result.expanded),
        ("rejected", result.rejected),
    )
    for block, hits in groups:
        for hit in hits:
            if hit.chunk_id in seen:
                continue
            seen.add(hit.chunk_id)
            # A rejected approach is a warning wherever retrieval found it, never a backbone.
            source_block: Block = (
                "rejected" if hit.canonical_type == CanonicalType.REJECTED_APPROACH else block
            )
            sources.append(PromptSource(n=len(sources) + 1, hit=hit, block=source_block))
    return tuple(sources)


def add_sources(
    sources: tuple[PromptSource, ...], hits: tuple[SearchHit, ...], *, block: Block
) -> tuple[PromptSource, ...]:
    """The sources with further hits numbered after them (chunks already there are skipped)."""
    seen = {source.hit.chunk_id for source in sources}
    added = list(sources)
    for hit in hits:
        if hit.chunk_id in seen:
            continue
        seen.add(hit.chunk_id)
        source_block: Block = (
            "rejected" if hit.canonical_type == CanonicalType.REJECTED_APPROACH else block
        )
        added.append(PromptSource(n=len(added) + 1, hit=hit, block=source_block))
    return tuple(added)


def cite_one_per_duplicate_group(
    sources: tuple[PromptSource, ...], stand_ins: Mapping[int, int]
) -> tuple[PromptSource, ...]:
    """The sources without the documents another near-duplicate stands for (`stand_ins`:
    document id -> the document of its group an answer cites, kb.duplicates), renumbered:
    one answer cites the same policy once, not once per copy."""
    kept = [
        source
        for source in sources
        if stand_ins.get(source.hit.document_id, source.hit.document_id) == source.hit.document_id
    ]
    return tuple(dataclasses.replace(source, n=n) for n, source in enumerate(kept, start=1))


def prompt_now(timezone_name: str) -> dt.datetime:
    """The current time in the timezone the assistant presents (seconds precision)."""
    return dt.datetime.now(ZoneInfo(timezone_name)).replace(microsecond=0)


def _fence_for(text: str) -> str:
    """A backtick fence longer than any run inside `text`, so a chunk cannot close its block."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def _source_block(source: PromptSource) -> str:
    hit = source.hit
    label = f"[{source.n}] {hit.title}"
    if hit.heading_path:
        label += f" — {hit.heading_path}"
    details = [f"status: {source.status_label}", f"project: {hit.project_key}"]
    if hit.canonical_type:
        details.insert(0, f"type: {hit.canonical_type}")
    fence = _fence_for(hit.text)
    return f"{label} ({', '.join(details)})\n{fence}text\n{hit.text.strip()}\n{fence}"


def build_prompt(
    *,
    question: str,
    sources: tuple[PromptSource, ...],
    now: dt.datetime,
    timezone_name: str,
    previous_question: str = "",
    link_titles: dict[str, str] | None = None,
    brief: EvidenceBrief | None = None,
) -> Prompt:
    """Compose the system and user messages of a turn from numbered sources."""
    parts = [
        f"Current date and time: {now.isoformat()} ({timezone_name}). "
        "This is authoritative and usable for time-relative questions, "
        "although it is not one of the sources."
    ]
    by_block = {
        block: [s for s in sources if s.block == block]
        for block in ("rejected", "related", "context")
    }
    if by_block["rejected"]:
        parts.append(
            f"{REJECTED_HEADER}\n"
            "These approaches were considered and rejected. Do not propose them.\n\n"
            + "\n\n".join(_source_block(s) for s in by_block["rejected"])
        )
    if by_block["related"]:
        parts.append(
            f"{RELATED_HEADER}\n"
            "Documents linked to the main context (one hop in the knowledge graph).\n\n"
            + "\n\n".join(_source_block(s) for s in by_block["related"])
        )
    parts.append(
        f"{CONTEXT_HEADER}\n\n" + "\n\n".join(_source_block(s) for s in by_block["context"])
    )
    if brief is not None and brief.answerable:
        parts.append(brief.as_text())
    if previous_question:
        parts.append(f"## Earlier question in this conversation\n{previous_question.strip()}")
    parts.append(
        "## Question\n"
        f"{question.strip()}\n\n"
        "Answer with citations [n] after each claim, or reply exactly "
        f"{NO_GROUNDED_ANSWER} if the sources do not answer it."
    )
    return Prompt(
        question=question,
        system=SYSTEM_INSTRUCTIONS,
        user="\n\n".join(parts),
        sources=sources,
        now=now,
        previous_question=previous_question,
        link_titles=dict(link_titles or {}),
        brief=brief,
    )
