"""Writes on sources: add, edit, pause, run now, delete; queue the due ones."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from kb.curation import AuditContext, ChangeSource
from kb.services import document_soft_delete
from portal.access.models import Project
from portal.secrets import encrypt
from portal.tenants.selectors import current_schema
from sources.connectors import KINDS
from sources.models import Source, SyncState
from sources.sync import cache_key

UNSET: Any = object()


class SourceError(ValueError):
    """Bad input for a source: `errors` maps a field (or "settings.<field>") to messages."""

    def __init__(self, errors: dict[str, list[str]]) -> None:
        super().__init__("; ".join(f"{key}: {' '.join(value)}" for key, value in errors.items()))
        self.errors = errors


def source_settings_clean(
    *, kind: str, given: dict[str, Any], current: Source | None = None
) -> tuple[dict[str, Any], dict[str, str]]:
    """(plain settings, encrypted secrets) from a kind's settings as given: the kind's
    serializer checks them; a secret left blank on an edit keeps the stored one."""
    connector_kind = KINDS.get(kind)
    if connector_kind is None:
        raise SourceError({"kind": [f"Unknown kind; one of: {', '.join(KINDS)}."]})
    serializer = connector_kind.settings_serializer(data=given)
    if not serializer.is_valid():
        raise SourceError(
            {
                f"settings.{key}": [str(m) for m in messages]
                for key, messages in serializer.errors.items()
            }
        )
    data = dict(serializer.validated_data)
    secrets = dict(current.secrets) if current is not None and current.kind == kind else {}
    for name in connector_kind.secret_fields:
        value = data.pop(name, "") or ""
        if value:
            secrets[name] = encrypt(value)
    return data, secrets


def _enqueue(source: Source, *, manual: bool) -> None:
    from sources.tasks import source_sync_job

    source_sync_job.enqueue(schema_name=current_schema(), source_id=source.pk, manual=manual)


@transaction.atomic
def source_create(
    *,
    project: Project,
    name: str,
    kind: str,
    settings: dict[str, Any],
    interval_minutes: int = 60,
    paused: bool = False,
) -> Source:
    """Add a source to the project and queue its first sync (unless paused)."""
    plain, secrets = source_settings_clean(kind=kind, given=settings)
    source = Source(
        project=project,
        name=name.strip(),
        kind=kind,
        settings=plain,
        secrets=secrets,
        interval_minutes=interval_minutes,
        paused=paused,
        next_run_at=None if paused else timezone.now() + timedelta(minutes=interval_minutes),
    )
    _save(source)
    if not paused:
        source_run_now(source=source)
    return source


def _save(source: Source, update_fields: list[str] | None = None) -> None:
    try:
        with transaction.atomic():
            source.save(update_fields=update_fields)
    except IntegrityError as exc:
        raise SourceError({"name": ["The project has a source of this name."]}) from exc


@transaction.atomic
def source_update(
    *,
    source: Source,
    name: str = UNSET,
    settings: dict[str, Any] = UNSET,
    interval_minutes: int = UNSET,
    paused: bool = UNSET,
) -> Source:
    """Change what is given. New settings (a secret left out keeps its stored value) mean a
    new cursor: the next sync lists everything again (unchanged files are no-ops)."""
    fields: list[str] = ["updated_at"]
    if name is not UNSET:
        source.name = name.strip()
        fields.append("name")
    if settings is not UNSET:
        plain, secrets = source_settings_clean(kind=source.kind, given=settings, current=source)
        if plain != source.settings or secrets != source.secrets:
            source.settings, source.secrets, source.cursor = plain, secrets, ""
            fields += ["settings", "secrets", "cursor"]
    if interval_minutes is not UNSET and interval_minutes != source.interval_minutes:
        source.interval_minutes = interval_minutes
        source.next_run_at = timezone.now() + source.interval
        fields += ["interval_minutes", "next_run_at"]
    if paused is not UNSET and paused != source.paused:
        source.paused = paused
        # resuming: due at the next check; pausing: no next run
        source.next_run_at = None if paused else timezone.now()
        fields += ["paused", "next_run_at"]
    _save(source, update_fields=fields)
    return source


def source_run_now(*, source: Source) -> Source:
    """Queue a sync of the source now (also when paused). While one runs, the queued one
    finds it busy and does nothing: the running sync reads the source as of its start."""
    with transaction.atomic():
        _enqueue(source, manual=True)
        Source.objects.filter(pk=source.pk).exclude(state=SyncState.RUNNING).update(
            state=SyncState.QUEUED
        )
    source.refresh_from_db(fields=["state"])
    return source


@transaction.atomic
def source_delete(*, source: Source) -> int:
    """Delete the source; its documents are soft-deleted (audited as a sync): nothing keeps
    them current any more. Returns how many."""
    origin = AuditContext(
        actor=None, source=ChangeSource.SYNC, actor_name=f"source {source.name}"[:150]
    )
    count = 0
    for item in source.items.select_related("document").filter(document__deleted_at__isnull=True):
        assert item.document is not None
        document_soft_delete(document=item.document, origin=origin)
        count += 1
    kind = KINDS.get(source.kind)
    if kind is not None and kind.forget is not None:
        forget, key = kind.forget, cache_key(source)
        transaction.on_commit(lambda: forget(key))
    source.delete()
    return count


def sources_enqueue_due(*, now: datetime | None = None) -> int:
    """Queue a sync of every source of the current tenant whose next run has come; their
    next run moves one interval on, so a later check does not queue them twice."""
    now = now or timezone.now()
    queued = 0
    with transaction.atomic():
        due = (
            Source.objects.select_for_update(skip_locked=True)
            .filter(paused=False)
            .filter(Q(next_run_at__isnull=True) | Q(next_run_at__lte=now))
        )
        for source in due:
            # its state says "running" once the job starts ("queued" is for Run now)
            Source.objects.filter(pk=source.pk).update(next_run_at=now + source.interval)
            _enqueue(source, manual=False)
            queued += 1
    return queued
