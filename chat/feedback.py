"""Feedback on answers: readers rate, editors review thumbs-down and turn them into gold questions."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from chat.models import Feedback, FeedbackRating, Message
from chat.selectors import message_question
from chat.services import ChatInputError
from portal.access.models import AnyUser, Project

COMMENT_MAX_CHARS = 2000


def _feedback_project_keys(message: Message, user: AnyUser) -> list[str]:
    """Whose editors see it: the projects the question was scoped to, else those the answer
    cited, else (an unscoped refusal) every project the asker could see."""
    visible = set(Project.objects.visible_to(user).values_list("key", flat=True))
    # a scope naming someone else's project must not queue feedback for its editors
    scoped = set(message.meta.get("filters", {}).get("project_keys") or []) & visible
    if scoped:
        return sorted(scoped)
    cited = {c.get("project_key") for c in message.citations or [] if c.get("project_key")}
    if cited:
        return sorted(cited)
    return sorted(visible)


@transaction.atomic
def feedback_give(*, user: AnyUser, message: Message, rating: str, comment: str = "") -> Feedback:
    """Rate an answer (again): one row per user and answer; changing it reopens it."""
    if isinstance(user, AnonymousUser):
        raise PermissionDenied  # views require a login; a service never rates anonymously
    if rating not in FeedbackRating.values:
        raise ChatInputError({"rating": ["Choose thumbs up or thumbs down."]})
    comment = (comment or "").strip()
    if len(comment) > COMMENT_MAX_CHARS:
        raise ChatInputError(
            {"comment": [f"Keep the comment under {COMMENT_MAX_CHARS + 1} characters."]}
        )
    feedback, _ = Feedback.objects.update_or_create(
        message=message,
        user=user,
        defaults={
            "rating": rating,
            "comment": comment,
            "project_keys": _feedback_project_keys(message, user),
            "document_ids": sorted({c["document_id"] for c in message.citations or []}),
            "resolved_at": None,
            "resolved_by": None,
        },
    )
    return feedback


def feedback_resolve(*, feedback: QuerySet[Feedback], by: AnyUser) -> int:
    """Mark feedback handled by an editor; returns how many rows were still open."""
    return feedback.filter(resolved_at__isnull=True).update(
        resolved_at=timezone.now(), resolved_by_id=by.pk
    )


def gold_line(feedback: Feedback) -> dict[str, Any]:
    """One line of the answer harness's gold set (the answer harness, chat/evaluation.py): the question asked,
    the editor's facts (alternatives split on |), gold slugs (default: the cited ones)."""
    question = message_question(feedback.message)
    facts = [
        [alt.strip() for alt in line.split("|") if alt.strip()]
        for line in feedback.gold_facts.splitlines()
        if line.strip()
    ]
    slugs = [line.strip() for line in feedback.gold_slugs.splitlines() if line.strip()]
    if not slugs and not feedback.gold_refuse:
        slugs = list(dict.fromkeys(c["slug"] for c in feedback.message.citations or []))
    return {"q": question, "facts": facts, "slugs": slugs, "refuse": feedback.gold_refuse}
