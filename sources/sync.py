"""One sync of one source: the connector's changes since the cursor, applied through kb's
write path.

- Adds and changes are ingested by `kb.services.documents_ingest_many` (the path uploads and
  the API use) with `keep_curated`: the status and priority editors set here stay unless the
  file's frontmatter names them. Each document's path is `<kind>-<source id>/<path>`, and a
  `SourceItem` row maps the item's stable external id to it: a retried sync finds the same
  document (an unchanged file is a no-op), it never adds a second one.
- Renames move the document to its new path (`kb.services.document_move`) before the ingest:
  the same document, its curated fields and citations, a new version.
- Deletions upstream soft-delete here (`kb.services.document_soft_delete`), audited with the
  source "sync".
- The cursor moves only when every item was applied (or refused for good, e.g. over the size
  limit): a sync killed or failed midway starts again from the old cursor, and what it had
  already written is skipped as unchanged.
- One sync per source at a time, per tenant: a session advisory lock, which the database
  drops when a killed worker's session dies.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from django.db import connection
from django.utils import timezone

from kb.curation import AuditContext, ChangeSource
from kb.ingestion.extract import detect_source_type
from kb.services import (
    IngestItem,
    IngestOutcome,
    document_move,
    document_soft_delete,
    documents_ingest_many,
)
from portal.secrets import SecretUnreadable, decrypt
from portal.tenants.selectors import current_schema
from sources.connectors import KINDS
from sources.connectors.base import (
    Change,
    ChangeKind,
    ChangeSet,
    Connector,
    ConnectorError,
    FetchError,
)
from sources.models import Source, SourceItem, SyncState

logger = logging.getLogger(__name__)

# the lock of one source's sync in one tenant: (tenant, source id)
SYNC_LOCK = "pg_try_advisory_lock(hashtext('sources:' || current_schema()), %s)"
SYNC_UNLOCK = "pg_advisory_unlock(hashtext('sources:' || current_schema()), %s)"
INTERNAL_ERROR = "internal error: the sync stopped; the operators' log has the details"
ERRORS_SHOWN = 5


@dataclass(kw_only=True)
class SyncReport:
    """What one sync did."""

    source_id: int
    state: str
    added: int = 0
    changed: int = 0
    removed: int = 0
    failed: int = 0
    error: str = ""

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(kw_only=True)
class _Run:
    source: Source
    changeset: ChangeSet
    origin: AuditContext
    items: dict[str, SourceItem]
    report: SyncReport
    by_path: dict[str, Change] = field(default_factory=dict)
    renamed: set[str] = field(default_factory=set)
    errors: list[str] = field(default_factory=list)
    retry: bool = False  # a failure the next sync may get past: keep the cursor


def connector_for(source: Source) -> Connector:
    """The source's connector, its secrets decrypted (ConnectorError when they cannot be)."""
    kind = KINDS.get(source.kind)
    if kind is None:
        raise ConnectorError(f"This server has no connector of kind {source.kind!r}.")
    config = dict(source.settings)
    try:
        config |= {name: decrypt(token) for name, token in source.secrets.items()}
    except SecretUnreadable as exc:
        raise ConnectorError(str(exc)) from exc
    return kind.build(config, cache_key(source))


def cache_key(source: Source) -> str:
    """What names a source's files on disk (a Git clone): its tenant and id."""
    return f"{current_schema()}-{source.pk}"


def source_sync(
    *, source_id: int, manual: bool = True, connector: Connector | None = None
) -> SyncReport:
    """Sync one source of the current tenant now; a paused source syncs only when `manual`.
    Returns state "busy" when another sync of it runs (nothing done)."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {SYNC_LOCK}", [source_id])
        if not cursor.fetchone()[0]:
            return SyncReport(source_id=source_id, state="busy")
    try:
        return _sync(source_id=source_id, manual=manual, connector=connector)
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT {SYNC_UNLOCK}", [source_id])


def _sync(*, source_id: int, manual: bool, connector: Connector | None) -> SyncReport:
    source = Source.objects.select_related("project").filter(pk=source_id).first()
    if source is None:
        return SyncReport(source_id=source_id, state="missing")
    if source.paused and not manual:
        return SyncReport(source_id=source_id, state="paused")  # paused after it was queued
    Source.objects.filter(pk=source.pk).update(
        state=SyncState.RUNNING, last_started_at=timezone.now()
    )
    try:
        connector = connector or connector_for(source)
    except ConnectorError as exc:
        return _finish(
            source, SyncReport(source_id=source.pk, state=SyncState.FAILED, error=str(exc))
        )
    try:
        changeset = connector.changes(source.cursor)
        report = _apply(source, connector, changeset)
    except ConnectorError as exc:
        report = SyncReport(source_id=source.pk, state=SyncState.FAILED, error=str(exc))
    except Exception:
        logger.exception("sync of source %s failed", source.pk)
        report = SyncReport(source_id=source.pk, state=SyncState.FAILED, error=INTERNAL_ERROR)
    finally:
        connector.close()
    return _finish(source, report)


def _apply(source: Source, connector: Connector, changeset: ChangeSet) -> SyncReport:
    run = _Run(
        source=source,
        changeset=changeset,
        origin=AuditContext(
            actor=None, source=ChangeSource.SYNC, actor_name=f"source {source.name}"[:150]
        ),
        items={item.external_id: item for item in source.items.select_related("document")},
        report=SyncReport(source_id=source.pk, state=SyncState.OK),
    )
    report = run.report
    upserts: list[Change] = []
    deletes: list[Change] = []
    for change in changeset.changes:
        if change.kind == ChangeKind.RENAME:
            _rename(run, change)
            upserts.append(change)
        elif change.kind == ChangeKind.UPSERT:
            _follow_path(run, change)
            upserts.append(change)
        else:
            deletes.append(change)
    if upserts:
        documents_ingest_many(
            project=source.project,
            items=_ingest_items(run, connector, upserts),
            on_outcome=lambda outcome: _record(run, outcome),
            origin=run.origin,
        )
    for change in deletes:
        _remove(run, run.items.pop(change.external_id, None))
    if changeset.full:
        listed = {change.external_id for change in changeset.changes}
        for external_id in [key for key in run.items if key not in listed]:
            _remove(run, run.items.pop(external_id))
    if report.failed:
        report.state = SyncState.PARTIAL
        shown = "; ".join(run.errors[:ERRORS_SHOWN])
        more = (
            f" (and {len(run.errors) - ERRORS_SHOWN} more)"
            if len(run.errors) > ERRORS_SHOWN
            else ""
        )
        again = " The next sync tries them again." if run.retry else ""
        report.error = f"{report.failed} failed: {shown}{more}.{again}"
    if not run.retry:
        Source.objects.filter(pk=source.pk).update(cursor=changeset.cursor)
    return report


def _path(source: Source, change: Change) -> str:
    return f"{source.path_prefix}{change.path}"


def _rename(run: _Run, change: Change) -> None:
    """A renamed item keeps its document: the row moves to the new path and external id."""
    item = run.items.pop(change.previous_id or "", None)
    run.renamed.add(change.external_id)
    if item is None:
        return  # never synced (or a retry that already moved it)
    if item.document is not None:
        document_move(document=item.document, source_path=_path(run.source, change))
    if change.external_id in run.items:
        item.delete()  # a retry: the new id is mapped already
        return
    item.external_id = change.external_id
    item.save(update_fields=["external_id", "updated_at"])
    run.items[change.external_id] = item


def _follow_path(run: _Run, change: Change) -> None:
    """An item whose id is stable but whose path changed (a wiki page retitled) keeps its
    document, moved to the new path."""
    item = run.items.get(change.external_id)
    path = _path(run.source, change)
    if item is not None and item.document is not None and item.document.source_path != path:
        document_move(document=item.document, source_path=path)
        run.renamed.add(change.external_id)


def _ingest_items(run: _Run, connector: Connector, changes: list[Change]) -> Iterator[IngestItem]:
    for change in changes:
        path = _path(run.source, change)
        try:
            fetched = connector.fetch(change, run.changeset.cursor)
        except FetchError as exc:
            _failed(run, change.path, str(exc), retry=True)
            continue
        run.by_path[path] = change
        yield IngestItem(
            source_path=path,
            content=fetched.content,
            source_type=detect_source_type(fetched.name),
            keep_curated=True,
            metadata=fetched.metadata,
        )


def _failed(run: _Run, path: str, error: str, *, retry: bool) -> None:
    run.report.failed += 1
    run.errors.append(f"{path}: {error}" if not error.startswith(path) else error)
    run.retry = run.retry or retry


def _record(run: _Run, outcome: IngestOutcome) -> None:
    """Count an ingest outcome and map the item to its document."""
    change = run.by_path.get(outcome.source_path)
    if change is None:
        return
    if outcome.status == "failed":
        _failed(run, change.path, outcome.error or "failed", retry=not outcome.rejected)
        return
    if outcome.document is None:
        return  # a type kb does not read (skipped with a warning)
    if outcome.status == "created":
        run.report.added += 1
    elif outcome.status == "updated" or change.external_id in run.renamed:
        run.report.changed += 1
    item = run.items.get(change.external_id)
    if item is None:
        item, _ = SourceItem.objects.update_or_create(
            source=run.source,
            external_id=change.external_id,
            defaults={"document": outcome.document},
        )
        run.items[change.external_id] = item
    elif item.document_id != outcome.document.pk:
        item.document = outcome.document
        item.save(update_fields=["document", "updated_at"])


def _remove(run: _Run, item: SourceItem | None) -> None:
    """Deleted upstream: soft-deleted here (audited as a sync), the item forgotten."""
    if item is None:
        return
    document = item.document
    if document is not None and document.deleted_at is None:
        document_soft_delete(document=document, origin=run.origin)
        run.report.removed += 1
    item.delete()


def _finish(source: Source, report: SyncReport) -> SyncReport:
    now = timezone.now()
    fields: dict[str, Any] = {
        "state": report.state,
        "last_run_at": now,
        "last_added": report.added,
        "last_changed": report.changed,
        "last_removed": report.removed,
        "last_failed": report.failed,
        "last_error": report.error,
    }
    if not source.paused:
        fields["next_run_at"] = now + source.interval
    Source.objects.filter(pk=source.pk).update(**fields)
    return report
