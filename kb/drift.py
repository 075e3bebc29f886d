"""The seam through which stored answers learn that a document they cite has changed.

kb owns documents and every write path that changes one; the answers that cite documents
live in a layer above (the chat app), which kb never imports. That layer registers one
`CitationWatcher` from its `AppConfig.ready()`:

- `changed(document_ids)` is called inside the writer's transaction whenever a document
  changed in a way an answer may care about: a new version was kept (a status change, a
  supersede, a re-ingest whose text changed, a restore: `kb.versions`) or the document was
  deleted (`kb.services.document_soft_delete`). The watcher queues its own work there, so
  the change and its queued job commit together or not at all.
- `count(document_ids)` answers how many stored answers (and how many distinct people)
  cite any of the documents: what a confirmation page says before an editor changes them.
- `kept(document_ids)` (optional) is called inside the writer's transaction for every
  document a new version was kept for, its first one too (an ingest, a re-ingest whose text
  changed, a status change): the layer's checks across documents (conflicts) queue there.

Without a watcher both are no-ops (nothing cites a document, nothing to tell).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass


@dataclass(frozen=True, kw_only=True)
class CitingCount:
    answers: int = 0
    people: int = 0


@dataclass(frozen=True, kw_only=True)
class CitationWatcher:
    changed: Callable[[Collection[int]], None]
    count: Callable[[Collection[int]], CitingCount]
    kept: Callable[[Collection[int]], None] | None = None


_watcher: CitationWatcher | None = None


def register_citation_watcher(watcher: CitationWatcher) -> None:
    """Install the layer that stores answers (once, from its AppConfig.ready)."""
    global _watcher
    if _watcher is not None and _watcher != watcher:
        raise RuntimeError("A citation watcher is already registered.")
    _watcher = watcher


def documents_changed(document_ids: Collection[int]) -> None:
    """Tell the watcher (inside the writer's transaction) that these documents changed."""
    ids = sorted({pk for pk in document_ids if pk is not None})
    if ids and _watcher is not None:
        _watcher.changed(ids)


def documents_kept(document_ids: Collection[int]) -> None:
    """Tell the watcher (inside the writer's transaction) that these documents have a new
    version, a first one included."""
    ids = sorted({pk for pk in document_ids if pk is not None})
    if ids and _watcher is not None and _watcher.kept is not None:
        _watcher.kept(ids)


def citing_count(document_ids: Collection[int]) -> CitingCount:
    """How many stored answers, and how many distinct askers, cite any of these documents."""
    ids = sorted(set(document_ids))
    if not ids or _watcher is None:
        return CitingCount()
    return _watcher.count(ids)
