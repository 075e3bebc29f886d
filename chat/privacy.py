"""The personal data chat holds about a user: conversations with their messages, chat-log rows."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chat.models import ChatLog, Conversation, Feedback, Message
from chat.notifications import notification_list
from chat.selectors import (
    ACCESS_ENDED,
    LOST_ACCESS_NOTE,
    answers_lost_to,
    chat_log_answers_lost_to,
)

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def conversations_export(user: User) -> list[dict[str, Any]]:
    """The user's conversations, oldest first, each with its messages in order; an answer
    citing a document the user can no longer see is withheld, as on the chat page."""
    conversations = list(Conversation.objects.filter(user=user).order_by("created_at", "id"))
    messages: dict[int, list[dict[str, Any]]] = {c.pk: [] for c in conversations}
    rows = list(Message.objects.filter(conversation__user=user).order_by("created_at", "id"))
    lost = answers_lost_to(user=user, messages=rows)
    for message in rows:
        withheld = message.pk in lost
        messages[message.conversation_id].append(
            {
                "id": message.pk,
                "role": message.role,
                "content": LOST_ACCESS_NOTE if withheld else message.content,
                "citations": [] if withheld else message.citations,
                "withheld": ACCESS_ENDED if withheld else None,
                "refusal_reason": message.refusal_reason,
                "created_at": message.created_at.isoformat(),
            }
        )
    return [
        {
            "id": c.pk,
            "title": c.title,
            "source": c.source,
            "created_at": c.created_at.isoformat(),
            "updated_at": c.updated_at.isoformat(),
            "messages": messages[c.pk],
        }
        for c in conversations
    ]


def conversations_erase(user: User) -> int:
    """Delete the user's conversations (their messages cascade); returns how many."""
    _, per_model = Conversation.objects.filter(user=user).delete()
    return per_model.get(Conversation._meta.label, 0)


def chat_log_export(user: User) -> list[dict[str, Any]]:
    """The operators' log rows of the user's chat turns; an answer drawn from a document the
    user can no longer see is withheld (the question is theirs and stays)."""
    rows = list(ChatLog.objects.filter(user=user).order_by("at", "id"))
    lost = chat_log_answers_lost_to(user=user, rows=rows)
    return [
        {
            "id": row.pk,
            "at": row.at.isoformat(),
            "question": row.question,
            "answer": LOST_ACCESS_NOTE if row.pk in lost else row.answer,
            "answer_withheld": ACCESS_ENDED if row.pk in lost else None,
            "refusal_reason": row.refusal_reason,
            "project_keys": row.project_keys,
            "provider": row.provider,
            "model": row.model,
            "latency_ms": row.latency_ms,
        }
        for row in rows
    ]


def chat_log_erase(user: User) -> int:
    """Delete the user's chat-log rows (their questions are theirs); returns how many."""
    count, _ = ChatLog.objects.filter(user=user).delete()
    return count


def feedback_export(user: User) -> list[dict[str, Any]]:
    """The user's ratings of answers, with their reasons and comments (the rows go with the
    account)."""
    return [
        {
            "id": row.pk,
            "message_id": row.message_id,
            "rating": row.rating,
            "reasons": row.reasons,
            "comment": row.comment,
            "created_at": row.created_at.isoformat(),
            "updated_at": row.updated_at.isoformat(),
            "resolved_at": row.resolved_at.isoformat() if row.resolved_at else None,
        }
        for row in Feedback.objects.filter(user=user).order_by("created_at", "id")
    ]


def notifications_export(user: User) -> list[dict[str, Any]]:
    """The user's notifications of answer drift, newest first, as their list shows them."""
    return [
        {
            "id": row.id,
            "kind": row.kind,
            "text": row.text,
            "message_id": row.message_id,
            "conversation_id": row.conversation_id,
            "document_id": row.document_id,
            "successor_id": row.successor_id,
            "created_at": row.created_at.isoformat(),
            "read_at": row.read_at.isoformat() if row.read_at else None,
        }
        for row in notification_list(user=user, unread_first=False, limit=None)
    ]
