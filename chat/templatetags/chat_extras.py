"""Template helpers of the chat page."""

from __future__ import annotations

import re
from typing import Any

from django import template
from django.urls import reverse
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe

register = template.Library()

_MARKER = re.compile(r"\[(\d{1,3})\]")
STALE_STATUSES = {"superseded", "deprecated", "archived"}


@register.filter
def cite_markers(answer: str, citations: list[dict[str, Any]]) -> SafeString:
    """Escape the answer, then turn each known [n] into a button that opens its source."""
    by_n = {c["n"]: c for c in citations or []}
    escaped = str(conditional_escape(answer))

    def replace(match: re.Match[str]) -> str:
        citation = by_n.get(int(match.group(1)))
        if citation is None:
            return match.group(0)
        url = reverse("chat-preview", kwargs={"pk": citation["document_id"]})
        return format_html(
            '<a class="cite-ref" href="{}" data-preview-url="{}" '
            'aria-label="Open source {}: {}">[{}]</a>',
            url,
            url,
            citation["n"],
            citation["title"],
            citation["n"],
        )

    return mark_safe(_MARKER.sub(replace, escaped))  # noqa: S308 - built from escaped parts


@register.filter
def is_stale(status: str | None) -> bool:
    """Superseded, deprecated and archived sources get a warning label."""
    return status in STALE_STATUSES
