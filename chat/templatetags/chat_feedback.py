"""Template helpers of the feedback form under each answer."""

from __future__ import annotations

from dataclasses import dataclass

from django import template

from chat.models import Feedback, FeedbackReason

register = template.Library()


@dataclass(frozen=True, kw_only=True)
class ReasonChoice:
    value: str
    label: str
    checked: bool


@register.simple_tag
def feedback_reason_choices(feedback: Feedback | None) -> list[ReasonChoice]:
    """Every reason a thumbs-down may give, ticked when the reader gave it."""
    given = set(feedback.reasons or []) if feedback else set()
    return [
        ReasonChoice(value=value, label=label, checked=value in given)
        for value, label in FeedbackReason.choices
    ]
