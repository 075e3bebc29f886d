"""Feedback on answers: readers rate, editors review thumbs-down and turn them into gold questions."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from chat.models import Feedback, FeedbackRating, FeedbackReason, Message
from chat.selectors import message_question
from chat.services import ChatInputError
from kb.models import Document
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


def feedback_reasons_clean(*, rating: str, reasons: Iterable[str]) -> list[str]:
    """The reasons as stored: known values only, each once, in FeedbackReason's order; reasons
    explain a thumbs-down, so a thumbs-up takes none. The one rule, for every door."""
    given = list(reasons)
    unknown = [value for value in given if value not in FeedbackReason.values]
    if unknown:
        raise ChatInputError(
            {
                "reasons": [
                    f"Unknown reason “{value}”: choose from {', '.join(FeedbackReason.values)}."
                    for value in unknown
                ]
            }
        )
    if given and rating != FeedbackRating.DOWN:
        raise ChatInputError(
            {"reasons": ["Reasons explain a thumbs-down; a helpful answer needs none."]}
        )
    return [value for value in FeedbackReason.values if value in given]


def suggested_document(*, user: AnyUser, name: str) -> Document | None:
    """The document a reader names (its slug or its title, as shown in a citation) among the
    live documents they can read; None for an empty name, ChatInputError for an unknown one."""
    name = " ".join((name or "").split())
    if not name:
        return None
    readable = Document.objects.visible_to(user).alive()
    found = (
        readable.filter(slug=name).order_by("pk").first()
        or readable.filter(title__iexact=name).order_by("pk").first()
    )
    if found is None:
        raise ChatInputError({"suggested": [f"No document you can read is called “{name[:200]}”."]})
    return found


def _text_clean(text: str | None, *, field: str) -> str:
    text = (text or "").strip()
    if len(text) > COMMENT_MAX_CHARS:
        raise ChatInputError(
            {field: [f"Keep the {field} under {COMMENT_MAX_CHARS + 1} characters."]}
        )
    return text


@transaction.atomic
def feedback_give(
    *,
    user: AnyUser,
    message: Message,
    rating: str,
    reasons: Iterable[str] | None = None,
    comment: str | None = None,
    suggested: str | None = None,
) -> Feedback:
    """Rate an answer (again): one row per user and answer; rating it again reopens it.

    `reasons`, `comment` and `suggested` (the slug or title of the document it should have
    cited) left out (None) keep what was said before when the rating stays the same (the
    thumbs are pressed again) and start empty when it changes. Naming a document says it
    should have been cited; that reason needs one. The thumbs-down's proposals for the
    editors follow what it says now (chat.proposals)."""
    from chat.proposals.services import proposals_from_feedback

    if isinstance(user, AnonymousUser):
        raise PermissionDenied  # views require a login; a service never rates anonymously
    if rating not in FeedbackRating.values:
        raise ChatInputError({"rating": ["Choose thumbs up or thumbs down."]})
    previous = Feedback.objects.select_for_update().filter(message=message, user=user).first()
    same_rating = previous is not None and previous.rating == rating
    if reasons is None:
        reasons = previous.reasons if same_rating and previous else []
    if comment is None:
        comment = previous.comment if same_rating and previous else ""
    if suggested is None:
        document = previous.suggested if same_rating and previous else None
    else:
        document = suggested_document(user=user, name=suggested)
    reasons = list(reasons)
    if document is not None and rating == FeedbackRating.DOWN:
        reasons.append(FeedbackReason.SHOULD_HAVE_CITED)
    if FeedbackReason.SHOULD_HAVE_CITED in reasons and document is None:
        raise ChatInputError(
            {"suggested": ["Name the document it should have cited (its title or slug)."]}
        )
    feedback, _ = Feedback.objects.update_or_create(
        message=message,
        user=user,
        defaults={
            "rating": rating,
            "reasons": feedback_reasons_clean(rating=rating, reasons=reasons),
            "suggested": document if rating == FeedbackRating.DOWN else None,
            "comment": _text_clean(comment, field="comment"),
            "project_keys": _feedback_project_keys(message, user),
            "document_ids": sorted({c["document_id"] for c in message.citations or []}),
            "resolved_at": None,
            "resolved_by": None,
            "resolution_note": "",
        },
    )
    proposals_from_feedback(feedback=feedback)
    return feedback


def feedback_resolve(*, feedback: QuerySet[Feedback], by: AnyUser, note: str = "") -> int:
    """Mark feedback handled by an editor, with an optional note; returns how many rows were
    still open (resolved ones keep who resolved them, when and why)."""
    return feedback.filter(resolved_at__isnull=True).update(
        resolved_at=timezone.now(),
        resolved_by_id=by.pk,
        resolution_note=_text_clean(note, field="note"),
    )


def feedback_resolve_one(*, feedback: Feedback, by: AnyUser, note: str = "") -> Feedback:
    """Resolve one item from its page; an item resolved already is refused, naming who did."""
    if not feedback_resolve(feedback=Feedback.objects.filter(pk=feedback.pk), by=by, note=note):
        feedback.refresh_from_db()
        who = feedback.resolved_by.get_username() if feedback.resolved_by else "someone"
        when = f" on {feedback.resolved_at:%d %b %Y}" if feedback.resolved_at else ""
        raise ChatInputError({"note": [f"This feedback was already resolved by {who}{when}."]})
    feedback.refresh_from_db()
    return feedback


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
