"""Citation check: every [n] in an answer must name a source that was in the prompt."""

from __future__ import annotations

import re
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from chat.prompt import Prompt, PromptSource
from kb.markup import to_prose

# [1], [1][2] and [1, 2] all count; numbers are short so "[2024]" stays text.
CITATION_RE = re.compile(r"\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]")
EXCERPT_CHARS = 280


@dataclass(frozen=True, kw_only=True)
class CitationCheck:
    text: str  # the answer with unknown citation numbers removed
    valid: tuple[int, ...]  # cited numbers that were in the prompt, in first-use order
    dropped: tuple[int, ...]  # cited numbers that were not, in first-use order

    def to_dict(self) -> dict[str, list[int]]:
        return {"valid": list(self.valid), "dropped": list(self.dropped)}


def check_citations(answer: str, prompt: Prompt) -> CitationCheck:
    """Keep the citations that point at prompt sources; drop the rest from the text."""
    known = {source.n for source in prompt.sources}
    valid: list[int] = []
    dropped: list[int] = []

    def rewrite(match: re.Match[str]) -> str:
        numbers = [int(part) for part in match.group(1).split(",")]
        kept = []
        for n in numbers:
            bucket = valid if n in known else dropped
            if n not in bucket:
                bucket.append(n)
            if n in known:
                kept.append(n)
        return "".join(f"[{n}]" for n in kept)

    text = CITATION_RE.sub(rewrite, answer)
    text = re.sub(r"[ \t]+([.,;:!?])", r"\1", text)
    text = re.sub(r"[ \t]{2,}", " ", text).strip()
    return CitationCheck(text=text, valid=tuple(valid), dropped=tuple(dropped))


_SINGLE = re.compile(r"\[(\d{1,3})\]")
_REPEATED = re.compile(r"(\[\d{1,3}\])(?:\1)+")  # "[1][1]" after two sources merged


def place(document_id: Any, heading_path: str | None, chunk_id: Any) -> Hashable:
    """What a citation's chip shows: the document and the section (the chunk when it has no
    heading). Two chunks of one section look the same to a reader: one source to cite."""
    return (document_id, heading_path or chunk_id)


def places(prompt: Prompt) -> dict[int, Hashable]:
    """{prompt number: its `place`}."""
    return {
        s.n: place(s.hit.document_id, s.hit.heading_path, s.hit.chunk_id) for s in prompt.sources
    }


def renumber(
    check: CitationCheck, place: dict[int, Hashable] | None = None
) -> tuple[str, dict[int, int]]:
    """Number the cited sources 1..n in order of first appearance in the answer; sources at
    the same `place` share the number of the first one cited.

    Returns the rewritten text and {prompt number: shown number}; chips, [n] links and the
    API's citations all use the shown numbers.
    """
    at = place or {}
    shown: dict[int, int] = {}
    first_at: dict[Hashable, int] = {}
    for n in check.valid:
        key = at.get(n, ("prompt", n))
        if key not in first_at:
            first_at[key] = len(first_at) + 1
        shown[n] = first_at[key]
    text = _SINGLE.sub(lambda m: f"[{shown.get(int(m.group(1)), int(m.group(1)))}]", check.text)
    return _REPEATED.sub(r"\1", text), shown


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """A one-line excerpt of a chunk for a citation chip."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    return flat[:limit].rsplit(" ", 1)[0] + " …"


def citation_payload(
    source: PromptSource, *, n: int, preview_url: str, version: int | None = None
) -> dict[str, Any]:
    """The public shape of one citation (API and page); `n` is its number in the answer,
    `version` the document version whose text held the cited chunk (None: not known)."""
    hit = source.hit
    return {
        "n": n,
        "document_id": hit.document_id,
        "chunk_id": hit.chunk_id,
        "version": version,
        "title": hit.title,
        "slug": hit.slug,
        "project_key": hit.project_key,
        "heading_path": hit.heading_path,
        "excerpt": excerpt(to_prose(hit.text)),
        "origin": hit.origin,
        "preview_url": preview_url,
        "canonical_status": hit.canonical_status,
        "canonical_type": hit.canonical_type,
    }
