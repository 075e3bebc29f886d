"""Writes on whole conversations: rename and delete (the owner's own only)."""

from __future__ import annotations

from chat.models import Conversation
from chat.services import ChatInputError

TITLE_MAX_CHARS = Conversation._meta.get_field("title").max_length or 200


def conversation_rename(*, conversation: Conversation, title: str) -> Conversation:
    """Give a conversation a new title; a blank or over-long title is a ChatInputError."""
    title = " ".join((title or "").split())
    if not title:
        raise ChatInputError({"title": ["Give the conversation a name."]})
    if len(title) > TITLE_MAX_CHARS:
        raise ChatInputError(
            {"title": [f"Keep the name under {TITLE_MAX_CHARS + 1} characters ({len(title)} now)."]}
        )
    conversation.title = title
    # update_fields leaves updated_at alone: renaming does not move a conversation up the list.
    Conversation.objects.filter(pk=conversation.pk).update(title=title)
    return conversation


def conversation_delete(*, conversation: Conversation) -> None:
    """Delete a conversation with its messages and their feedback (the chat log keeps its rows)."""
    conversation.delete()
