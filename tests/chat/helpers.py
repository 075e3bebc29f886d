"""Builders shared by the chat tests."""

from __future__ import annotations

import datetime as dt
from typing import Any

from chat.prompt import Prompt, build_prompt, number_sources
from kb.models import Chunk, Document
from kb.retrieval.types import SearchHit, SearchResult
from portal.access.models import Project

NOW = dt.datetime(2026, 3, 14, 9, 26, 53, tzinfo=dt.UTC)


def hit(chunk_id: int, text: str, **fields: Any) -> SearchHit:
    values: dict[str, Any] = {
        "chunk_id": chunk_id,
        "document_id": fields.pop("document_id", chunk_id * 10),
        "slug": f"doc-{chunk_id}",
        "title": f"Document {chunk_id}",
        "project_key": "handbook",
        "heading_path": "",
        "text": text,
        "chunk_order": 0,
        "source_type": "markdown",
        "canonical_type": None,
        "canonical_status": None,
        "retrieval_priority": 50,
        "score": 0.6,
        "score_label": "hybrid",
        "quality_score": 1.0,
        "cosine": 0.6,
    }
    values.update(fields)
    return SearchHit(**values)


def result(
    primary: list[SearchHit],
    expanded: list[SearchHit] | None = None,
    rejected: list[SearchHit] | None = None,
) -> SearchResult:
    return SearchResult(
        primary=tuple(primary),
        expanded=tuple(expanded or ()),
        rejected=tuple(rejected or ()),
        runner_up=(),
        meta={},
    )


def prompt_for(question: str, search_result: SearchResult) -> Prompt:
    return build_prompt(
        question=question,
        sources=number_sources(search_result),
        now=NOW,
        timezone_name="UTC",
    )


def make_document(key: str, slug: str, chunks: list[tuple[str, int]], **fields) -> Document:
    """A document of project `key` (made if missing) with these (text, overlap) chunks."""
    project, _ = Project.objects.get_or_create(key=key, defaults={"name": key})
    document = Document.objects.create(
        project=project,
        title=fields.pop("title", slug.replace("-", " ").title()),
        slug=slug,
        source_path=f"{slug}.md",
        source_type="markdown",
        content_hash="0" * 64,
        **fields,
    )
    for order, (text, overlap) in enumerate(chunks):
        Chunk.objects.create(document=document, chunk_order=order, text=text, overlap_chars=overlap)
    return document


def supersede_link(
    older: tuple[int, str, dt.date | None], newer: tuple[int, str, dt.date | None]
) -> Any:
    """A supersede edge between two records: (document id, title, start) of each, the older
    superseded and the newer accepted."""
    from chat.answers.evidence import DocumentRef, SupersedeLink

    def ref(side: tuple[int, str, dt.date | None], status: str) -> DocumentRef:
        document_id, title, since = side
        return DocumentRef(
            document_id=document_id, title=title, slug=f"doc-{document_id}", status=status,
            since=since,
        )  # fmt: skip

    return SupersedeLink(older=ref(older, "superseded"), newer=ref(newer, "accepted"))
