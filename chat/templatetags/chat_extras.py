"""Template helpers of the chat page."""

from __future__ import annotations

import re
from collections.abc import Hashable
from typing import Any

from django import template
from django.urls import reverse
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe

from chat.citations import place
from kb.models import STALE_STATUSES, CanonicalType

register = template.Library()

_MARKER = re.compile(r"\[(\d{1,3})\]")
_CODE = re.compile(r"`([^`\n]+)`")  # inline code spans of the answer (already escaped)


@register.filter
def cite_markers(answer: str, citations: list[dict[str, Any]]) -> SafeString:
    """Escape the answer, then render `code` spans and turn each known [n] into a link that
    opens its source in the preview modal."""
    by_n = {c["n"]: c for c in citations or []}
    escaped = str(conditional_escape(answer))

    def replace(match: re.Match[str]) -> str:
        citation = by_n.get(int(match.group(1)))
        if citation is None:
            return match.group(0)
        url = preview_href(citation)
        return format_html(
            '<a class="cite-ref" href="{}" data-preview-url="{}" '
            'aria-label="Open source {}: {}">[{}]</a>',
            url,
            url,
            citation["n"],
            citation["title"],
            citation["n"],
        )

    with_code = _CODE.sub(r"<code>\1</code>", escaped)
    return mark_safe(_MARKER.sub(replace, with_code))  # noqa: S308 - built from escaped parts


@register.filter
def preview_href(citation: dict[str, Any]) -> str:
    """The preview of a cited document, opened at the cited chunk in the version the answer
    read (citations stored before versions were kept name none: today's text)."""
    url = reverse("chat-preview", kwargs={"pk": citation["document_id"]})
    query = []
    if citation.get("chunk_id"):
        query.append(f"chunk={int(citation['chunk_id'])}")
    if citation.get("version"):
        query.append(f"version={int(citation['version'])}")
    return f"{url}?{'&'.join(query)}" if query else url


@register.filter
def status_badge(status: str | None) -> str:
    """The label a chip shows for a source that is not accepted ("" for accepted/uncurated)."""
    return "" if not status or status == "accepted" else status


@register.filter
def is_stale(status: str | None) -> bool:
    """Superseded, deprecated and archived sources get a warning label."""
    return status in STALE_STATUSES


@register.filter
def heading_tail(heading_path: str, title: str) -> str:
    """The heading path without the document title it usually starts with."""
    parts = [part.strip() for part in (heading_path or "").split(">")]
    if parts and parts[0] == (title or "").strip():
        parts = parts[1:]
    return " › ".join(part for part in parts if part)


def _is_rejected(citation: dict[str, Any]) -> bool:
    return (
        citation.get("origin") == "rejected_injection"
        or citation.get("canonical_type") == CanonicalType.REJECTED_APPROACH
    )


@register.filter
def source_chips(citations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The chips under an answer: one per document section a reader can tell apart (answers
    stored before citations were merged may cite two chunks of one section)."""
    seen: set[Hashable] = set()
    chips = []
    for citation in citations or []:
        key = place(
            citation.get("document_id"), citation.get("heading_path"), citation.get("chunk_id")
        )
        if not _is_rejected(citation) and key not in seen:
            seen.add(key)
            chips.append(citation)
    return chips


@register.filter
def rejected_sources(citations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One "considered and rejected" warning per rejected record, however often it is cited."""
    seen: set[Any] = set()
    warnings = []
    for citation in citations or []:
        if _is_rejected(citation) and citation.get("document_id") not in seen:
            seen.add(citation.get("document_id"))
            warnings.append(citation)
    return warnings
