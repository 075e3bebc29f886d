"""Reads of chat data, always through the owner / visibility rule."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.db.models import QuerySet
from django.http import Http404

from chat.models import ChatLog, ContentGap, Conversation, Message
from kb.models import Chunk, Document
from kb.rendering import rebuild_content, render_markdown
from kb.selectors import document_get_visible
from portal.access.models import AnyUser, Project


def conversation_list(*, user: AnyUser, limit: int = 50) -> list[Conversation]:
    """The user's own conversations, most recently active first."""
    if isinstance(user, AnonymousUser):
        return []
    return list(Conversation.objects.filter(user_id=user.pk).order_by("-updated_at", "-id")[:limit])


def conversation_get_for_user(*, user: AnyUser, conversation_id: int) -> Conversation:
    """The user's conversation `conversation_id`; Http404 for anyone else's or a missing one."""
    if isinstance(user, AnonymousUser):
        raise Http404
    conversation = Conversation.objects.filter(pk=conversation_id, user_id=user.pk).first()
    if conversation is None:
        raise Http404
    return conversation


LOST_ACCESS_NOTE = (
    "This answer relied on documents you can no longer access, so it is no longer shown."
)


def message_list(*, conversation: Conversation, user: AnyUser) -> list[Message]:
    """Messages of a conversation in the order they were written, as `user` may see them now.

    An answer citing a document the user can no longer see (membership removed, document
    deleted) is shown as a note: its citations' titles and excerpts, and its text, which
    quotes them, came from that document. Nothing is changed in the database.
    """
    messages = list(conversation.messages.order_by("created_at", "id"))
    cited = {
        int(citation["document_id"])
        for message in messages
        for citation in (message.citations or [])
        if isinstance(citation, dict) and citation.get("document_id") is not None
    }
    visible = set(
        Document.objects.visible_to(user).filter(pk__in=cited).values_list("pk", flat=True)
    )
    for message in messages:
        citations = [c for c in (message.citations or []) if isinstance(c, dict)]
        if any(citation.get("document_id") not in visible for citation in citations):
            message.content = LOST_ACCESS_NOTE
            message.citations = []
    return messages


@dataclass(frozen=True, kw_only=True)
class DocumentPreview:
    document_id: int
    slug: str
    title: str
    project_key: str
    source_type: str
    canonical_type: str | None
    canonical_status: str | None
    retrieval_priority: int
    content: str
    content_html: str
    highlighted_chunk_id: int | None = None  # the cited chunk, wrapped in #cited-chunk

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def document_preview(
    *, user: AnyUser, document_id: int, chunk_id: int | None = None
) -> DocumentPreview:
    """A visible document rebuilt from its chunks; Http404 (one body) for anything not visible.

    With `chunk_id` (a chunk of this document), that chunk's text is rendered inside
    `<section id="cited-chunk">` so the modal can scroll to and highlight the cited passage.
    """
    document = document_get_visible(user, document_id)
    rows = list(
        Chunk.objects.filter(document=document)
        .order_by("chunk_order")
        .values_list("id", "text", "overlap_chars")
    )
    content = rebuild_content((text, overlap) for _, text, overlap in rows)
    cited = next((i for i, row in enumerate(rows) if row[0] == chunk_id), None)
    if cited is None:
        content_html = render_markdown(content)
    else:
        # Chunks follow headings, so each part renders as whole blocks.
        parts = [rebuild_content((t, o) for _, t, o in part) for part in
                 (rows[:cited], rows[cited : cited + 1], rows[cited + 1 :])]  # fmt: skip
        content_html = (
            render_markdown(parts[0])
            + f'<section id="cited-chunk" class="cited-chunk" tabindex="-1" '
            f'data-chunk-id="{int(rows[cited][0])}" aria-label="Cited passage">'
            + render_markdown(parts[1])
            + "</section>"
            + render_markdown(parts[2])
        )
    return DocumentPreview(
        document_id=document.pk,
        slug=document.slug,
        title=document.title,
        project_key=document.project.key,
        source_type=document.source_type,
        canonical_type=document.canonical_type,
        canonical_status=document.canonical_status,
        retrieval_priority=document.retrieval_priority,
        content=content,
        content_html=content_html,
        highlighted_chunk_id=None if cited is None else rows[cited][0],
    )


def content_gaps_for(*, user: AnyUser) -> QuerySet[ContentGap]:
    """Gaps of projects the user edits ("" = unscoped questions only for superusers)."""
    if getattr(user, "is_superuser", False):
        return ContentGap.objects.all()
    keys = list(Project.objects.editable_by(user).values_list("key", flat=True))
    return ContentGap.objects.filter(project_key__in=keys)


def chat_logs_for(*, user: AnyUser) -> QuerySet[ChatLog]:
    """Chat log rows touching only projects the user edits; superusers see all."""
    if getattr(user, "is_superuser", False):
        return ChatLog.objects.all()
    keys = list(Project.objects.editable_by(user).values_list("key", flat=True))
    if not keys:
        return ChatLog.objects.none()
    # project_keys is a JSON list; a row is visible when all of its keys are editable.
    return ChatLog.objects.exclude(project_keys=[]).filter(project_keys__contained_by=keys)


def document_titles_by_slug(*, user: AnyUser, slugs: list[str]) -> dict[str, str]:
    """Titles of the visible documents with these slugs (to render [[wikilinks]] as titles)."""
    if not slugs:
        return {}
    from kb.models import Document

    rows = (
        Document.objects.visible_to(user)
        .filter(slug__in=slugs)
        .order_by("slug", "-updated_at")
        .values_list("slug", "title")
    )
    titles: dict[str, str] = {}
    for slug, title in rows:
        titles.setdefault(slug, title)
    return titles
