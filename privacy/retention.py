"""Retention: rows older than their setting (settings.RETENTION, days; None keeps forever) go.

One entry per kind of row: a new kind is one entry.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from chat.models import ChatLog, ContentGap, Conversation
from kb.versions import versions_purge


@dataclass(frozen=True, kw_only=True)
class Retained:
    key: str  # in the report
    setting: str  # key of settings.RETENTION
    older_than: Callable[[dt.datetime], QuerySet] | None = None
    # a kind whose rows need more than a delete (rows to keep, rows left unused): its own
    # purge(cutoff, dry_run) -> count, instead of deleting `older_than`
    purge: Callable[[dt.datetime, bool], int] | None = None


RETAINED: tuple[Retained, ...] = (
    Retained(
        key="chat_log",
        setting="CHAT_LOG_DAYS",
        older_than=lambda cutoff: ChatLog.objects.filter(at__lt=cutoff),
    ),
    # a conversation's age is its last activity; its messages go with it
    Retained(
        key="conversations",
        setting="CONVERSATION_DAYS",
        older_than=lambda cutoff: Conversation.objects.filter(updated_at__lt=cutoff),
    ),
    Retained(
        key="content_gaps",
        setting="CONTENT_GAP_DAYS",
        older_than=lambda cutoff: ContentGap.objects.filter(last_seen__lt=cutoff),
    ),
    # old versions of documents; a document's current version is never purged
    Retained(
        key="document_versions",
        setting="VERSION_DAYS",
        purge=lambda cutoff, dry_run: versions_purge(older_than=cutoff, dry_run=dry_run),
    ),
)


def retention_periods() -> list[tuple[str, int]]:
    """(kind, days) for every kind with a retention period."""
    periods = []
    for entry in RETAINED:
        days = settings.RETENTION[entry.setting]
        if days is not None:
            periods.append((entry.key.replace("_", " "), days))
    return periods


def retention_cutoffs(*, now: dt.datetime | None = None) -> dict[str, dt.datetime]:
    """The cutoff per kind with a retention period (kinds kept forever are absent)."""
    now = now or timezone.now()
    cutoffs = {}
    for entry in RETAINED:
        days = settings.RETENTION[entry.setting]
        if days is not None:
            cutoffs[entry.key] = now - dt.timedelta(days=days)
    return cutoffs


@transaction.atomic
def retention_purge(*, dry_run: bool = False, now: dt.datetime | None = None) -> dict[str, int]:
    """Delete (or, dry run, count) the current tenant's rows older than their retention."""
    cutoffs = retention_cutoffs(now=now)
    report = {}
    for entry in RETAINED:
        if entry.key not in cutoffs:
            continue
        if entry.purge is not None:
            report[entry.key] = entry.purge(cutoffs[entry.key], dry_run)
            continue
        assert entry.older_than is not None
        expired = entry.older_than(cutoffs[entry.key])
        if dry_run:
            report[entry.key] = expired.count()
        else:
            # the rows themselves, not the cascade: a conversation counts once with its messages
            _, per_model = expired.delete()
            report[entry.key] = per_model.get(expired.model._meta.label, 0)
    return report
