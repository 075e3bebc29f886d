"""Notifications of answer drift: the asker's own list (reads and the mark-read writes).

A notification is an `AnswerDrift` row (see chat.drift). Each is its asker's alone: another
user's id answers exactly like a missing one (Http404). A notification about a document in
a project the user no longer sees is not shown (nor counted), as the chat page withholds
such answers.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.db.models import F, OuterRef, QuerySet, Subquery
from django.http import Http404
from django.utils import timezone

from chat.models import AnswerDrift, DriftKind, Message, MessageRole
from portal.access.models import AnyUser, Project

NOTIFICATIONS_SHOWN = 200  # the page and the API list the newest this many


def _mine(user: AnyUser) -> QuerySet[AnswerDrift]:
    """The user's notifications about documents of projects they still see (the one rule)."""
    if isinstance(user, AnonymousUser) or not user.is_authenticated:
        return AnswerDrift.objects.none()
    return AnswerDrift.objects.filter(
        user_id=user.pk, document__project__in=Project.objects.visible_to(user)
    )


def notification_unread_count(*, user: AnyUser) -> int:
    """How many of the user's notifications are unread (the bell; one indexed count)."""
    return _mine(user).filter(read_at__isnull=True).count()


def drift_change(kind: str, successor_title: str = "") -> str:
    """What happened to a cited document, as a notification's sentence says it."""
    if kind == DriftKind.SUPERSEDED:
        return f"now superseded by {successor_title}" if successor_title else "now superseded"
    if kind == DriftKind.DELETED:
        return "since deleted"
    if kind == DriftKind.CHANGED:
        return "and the cited passage has changed since"
    if kind == DriftKind.REJECTED:
        return "now marked as a rejected approach"
    return f"now {kind}"


@dataclass(frozen=True, kw_only=True)
class Notification:
    id: int
    kind: str
    created_at: dt.datetime
    read_at: dt.datetime | None
    answered_at: dt.datetime
    message_id: int
    conversation_id: int
    question: str
    document_id: int
    document_title: str
    successor_id: int | None
    successor_title: str
    detail: str
    project_keys: tuple[str, ...]  # where the question was asked (the re-ask asks there)

    @property
    def unread(self) -> bool:
        return self.read_at is None

    @property
    def change(self) -> str:
        return drift_change(self.kind, self.successor_title)

    @property
    def text(self) -> str:
        """The notification in one sentence."""
        return (
            f"Your answer of {self.answered_at:%-d %b} about “{self.question}” cites "
            f"{self.document_title}, {self.change}."
        )

    def to_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "unread": self.unread, "text": self.text}


def notification_list(
    *, user: AnyUser, unread_first: bool = True, limit: int | None = NOTIFICATIONS_SHOWN
) -> list[Notification]:
    """The user's notifications (unread first, newest first), with each answer's question."""
    question = (
        Message.objects.filter(
            conversation_id=OuterRef("message__conversation_id"),
            role=MessageRole.USER,
            pk__lt=OuterRef("message_id"),
        )
        .order_by("-pk")
        .values("content")[:1]
    )
    rows = (
        _mine(user)
        .select_related("message", "document", "successor")
        .annotate(question=Subquery(question))
        .order_by(
            F("read_at").desc(nulls_first=True) if unread_first else "-created_at",
            "-created_at",
            "-id",
        )
    )
    return [_notification(row) for row in (rows[:limit] if limit is not None else rows)]


def _notification(row: Any) -> Notification:
    successor = row.successor
    visible_successor = successor is not None and successor.deleted_at is None
    filters = (row.message.meta or {}).get("filters") or {}
    return Notification(
        id=row.pk,
        kind=row.kind,
        created_at=row.created_at,
        read_at=row.read_at,
        answered_at=timezone.localtime(row.message.created_at),
        message_id=row.message_id,
        conversation_id=row.message.conversation_id,
        question=row.question or "",
        document_id=row.document_id,
        document_title=row.document.title,
        successor_id=successor.pk if visible_successor else None,
        successor_title=successor.title if visible_successor else "",
        detail=row.detail,
        project_keys=tuple(filters.get("project_keys") or ()),
    )


def notification_get_for_user(*, user: AnyUser, notification_id: int) -> AnswerDrift:
    """One of the user's notifications; Http404 for anyone else's or a missing one."""
    row = _mine(user).filter(pk=notification_id).first()
    if row is None:
        raise Http404
    return row


def notification_mark_read(*, user: AnyUser, notification_id: int) -> AnswerDrift:
    """Mark one of the user's notifications read (already read: kept as it was)."""
    row = notification_get_for_user(user=user, notification_id=notification_id)
    if row.read_at is None:
        row.read_at = timezone.now()
        row.save(update_fields=["read_at"])
    return row


def notifications_mark_all_read(*, user: AnyUser) -> int:
    """Mark every unread notification of the user read; returns how many."""
    return _mine(user).filter(read_at__isnull=True).update(read_at=timezone.now())


def drift_notes_by_message(*, user: AnyUser, messages: list[Message]) -> dict[int, list[str]]:
    """{answer id: what changed in its sources since} for the user's answers on a page."""
    ids = [m.pk for m in messages if m.role == MessageRole.ASSISTANT]
    notes: dict[int, list[str]] = {}
    if not ids:
        return notes
    rows = _mine(user).filter(message_id__in=ids).select_related("document", "successor")
    for row in rows.order_by("created_at", "id"):
        successor = row.successor.title if row.successor else ""
        notes.setdefault(row.message_id, []).append(
            f"{row.document.title}: {drift_change(row.kind, successor)}"
        )
    return notes
