"""The search page: documents rather than answers, through the one search entry point."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django import forms
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.http import require_GET

from kb.filters import SearchFiltersForm
from kb.markup import to_plain_text
from kb.retrieval import InvalidSearchRequest, search
from kb.retrieval.types import SearchHit
from portal.access.models import AnyUser
from portal.access.selectors import project_list_visible

PAGE = "kb/search.html"
SNIPPET_CHARS = 280


class SearchForm(SearchFiltersForm):
    """The search page's query and the one filter grammar's fields (kb.filters)."""

    q = forms.CharField(label="Search for", max_length=1000, required=False)
    field_order = ["q"]

    def __init__(self, *args: Any, user: AnyUser, **kwargs: Any) -> None:
        super().__init__(*args, projects=list(project_list_visible(user=user)), **kwargs)


@dataclass(frozen=True, kw_only=True)
class ResultRow:
    hit: SearchHit
    snippet: SafeString


def snippet(text: str, query: str, limit: int = SNIPPET_CHARS) -> SafeString:
    """An escaped excerpt of `text` around the first query word found, words marked."""
    words = [w for w in re.findall(r"\w{3,}", query.lower())]
    flat = " ".join(to_plain_text(text).split())
    start = 0
    lowered = flat.lower()
    positions = [lowered.find(w) for w in words if lowered.find(w) >= 0]
    if positions:
        start = max(0, min(positions) - limit // 4)
    piece = flat[start : start + limit]
    prefix = "…" if start > 0 else ""
    suffix = "…" if start + limit < len(flat) else ""
    html = str(escape(piece))
    if words:
        pattern = re.compile("(" + "|".join(re.escape(w) for w in words) + ")", re.IGNORECASE)
        html = pattern.sub(r"<mark>\1</mark>", html)
    return mark_safe(prefix + html + suffix)  # escaped above; only <mark> added


@login_required
@require_GET
def search_page(request: HttpRequest) -> HttpResponse:
    """Search documents with filters; htmx gets the results fragment."""
    form = SearchForm(request.GET or None, user=request.user)
    results: list[ResultRow] = []
    meta: dict[str, Any] = {}
    error = ""
    searched = False
    if form.is_bound and form.is_valid() and form.cleaned_data["q"].strip():
        query = form.cleaned_data["q"]
        searched = True
        try:
            result = search(user=request.user, query=query, filters=form.filters())
        except InvalidSearchRequest as exc:
            error = exc.message
        else:
            meta = result.meta
            seen: set[int] = set()
            for hit in result.primary:
                if hit.document_id in seen:
                    continue  # one row per document: the page lists documents, not chunks
                seen.add(hit.document_id)
                results.append(ResultRow(hit=hit, snippet=snippet(hit.text, query)))
    context = {
        "form": form,
        "filters_set": sum(1 for field in form if field.name != "q" and field.value()),
        "results": results,
        "meta": meta,
        "error": error,
        "searched": searched,
    }
    template = PAGE
    if request.htmx and request.htmx.target == "search-results":  # type: ignore[attr-defined]
        template = f"{PAGE}#search-results"
    return TemplateResponse(request, template, context)
