"""The request filters on documents: one value used by the document list, search and chat."""

from __future__ import annotations

import datetime as dt
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True, kw_only=True)
class SearchFilters:
    """Filters that narrow the visible documents (never widen them); empty means no filter.

    Applied as `Document.objects.visible_to(user).filtered(filters)` (`visible_filtered`, with
    one project lookup), inside the SQL of every retrieval arm and in the document list alike.
    """

    project_keys: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()  # any of them; case-insensitive (tags are stored lower-case)
    source_types: tuple[str, ...] = ()
    canonical_types: tuple[str, ...] = ()
    canonical_statuses: tuple[str, ...] = ()
    doc_ids: tuple[int, ...] = ()
    date_from: dt.date | None = None
    date_to: dt.date | None = None
    title_contains: str = ""

    def applied(self) -> dict[str, Any]:
        """The non-empty filters, JSON-ready (echoed in meta)."""
        out: dict[str, Any] = {}
        for key, value in asdict(self).items():
            if value in ((), None, ""):
                continue
            if isinstance(value, dt.date):
                out[key] = value.isoformat()
            else:
                out[key] = value if isinstance(value, str) else list(value)
        return out
