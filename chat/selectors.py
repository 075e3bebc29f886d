"""Reads of chat data, always through the owner / visibility rule."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.db.models import Q, QuerySet
from django.http import Http404
from django.urls import reverse

from canonical.selectors import (
    StatusStep,
    change_reasons,
    record_history,
    status_timeline,
)
from chat.models import (
    ChatLog,
    ContentGap,
    Conversation,
    ConversationSource,
    Feedback,
    FeedbackRating,
    Message,
    MessageRole,
)
from kb.markup import render_wikilinks, wikilink_slugs
from kb.models import STALE_STATUSES, Chunk, Document, DocumentVersion
from kb.rendering import rebuild_content, render_markdown, render_markdown_marking
from kb.selectors import (
    document_get_visible,
    document_supersede_chain,
    document_version_list,
    document_version_of,
    documents_by_slug,
    supersede_pairs,
)
from portal.access.models import AnyUser, Project, sees_every_project
from portal.access.selectors import project_curators


def conversation_list(
    *,
    user: AnyUser,
    query: str = "",
    source: str = ConversationSource.BROWSER,
    limit: int = 50,
) -> list[Conversation]:
    """The user's own conversations started from `source`, most recently active first;
    `query` keeps those whose title or any message contains it."""
    if isinstance(user, AnonymousUser):
        return []
    conversations = Conversation.objects.filter(user_id=user.pk, source=source)
    query = query.strip()
    if query:
        conversations = conversations.filter(
            Q(title__icontains=query) | Q(messages__content__icontains=query)
        ).distinct()
    return list(conversations.order_by("-updated_at", "-id")[:limit])


def conversation_get_for_user(*, user: AnyUser, conversation_id: int) -> Conversation:
    """The user's conversation `conversation_id`; Http404 for anyone else's or a missing one."""
    if isinstance(user, AnonymousUser):
        raise Http404
    conversation = Conversation.objects.filter(pk=conversation_id, user_id=user.pk).first()
    if conversation is None:
        raise Http404
    return conversation


VERSIONS_SHOWN = 50  # on the document page; the versions page lists them all

LOST_ACCESS_NOTE = (
    "This answer relied on documents you can no longer access, so it is no longer shown."
)
# why an answer is withheld (the personal data export names it)
ACCESS_ENDED = "access_ended"


def answers_lost_to(*, user: AnyUser, messages: list[Message]) -> set[int]:
    """Ids of the answers among `messages` that cite a document `user` can no longer see
    (membership removed, document deleted). Their text quotes those documents and their
    citations carry titles and excerpts: the chat page shows a note instead and the personal
    data export withholds them. Nothing is changed in the database."""
    cited = {
        int(citation["document_id"])
        for message in messages
        for citation in (message.citations or [])
        if isinstance(citation, dict) and citation.get("document_id") is not None
    }
    visible = set(
        Document.objects.visible_to(user).filter(pk__in=cited).values_list("pk", flat=True)
    )
    return {
        message.pk
        for message in messages
        if any(
            citation.get("document_id") not in visible
            for citation in (message.citations or [])
            if isinstance(citation, dict)
        )
    }


def chat_log_answers_lost_to(*, user: AnyUser, rows: list[ChatLog]) -> set[int]:
    """Ids of the chat-log rows whose answer drew on a document `user` can no longer see, by
    the rows' source chunks (the same rule as `answers_lost_to`). A chunk that no longer
    exists (its document changed or went) counts as lost when a project the row searched is
    no longer visible to the user."""
    chunk_ids = {int(pk) for row in rows for pk in (row.chunk_ids or [])}
    chunk_documents = dict(Chunk.objects.filter(pk__in=chunk_ids).values_list("pk", "document_id"))
    visible_documents = set(
        Document.objects.visible_to(user)
        .filter(pk__in=set(chunk_documents.values()))
        .values_list("pk", flat=True)
    )
    visible_projects = set(Project.objects.visible_to(user).values_list("key", flat=True))
    lost: set[int] = set()
    for row in rows:
        for chunk_id in row.chunk_ids or []:
            document_id = chunk_documents.get(int(chunk_id))
            if document_id is None:
                gone = not set(row.project_keys or []) <= visible_projects
            else:
                gone = document_id not in visible_documents
            if gone:
                lost.add(row.pk)
                break
    return lost


def message_list(*, conversation: Conversation, user: AnyUser) -> list[Message]:
    """Messages of a conversation in the order they were written, as `user` may see them now:
    an answer citing a document the user can no longer see is shown as a note
    (`answers_lost_to`)."""
    messages = list(conversation.messages.order_by("created_at", "id"))
    lost = answers_lost_to(user=user, messages=messages)
    for message in messages:
        if message.pk in lost:
            message.content = LOST_ACCESS_NOTE
            message.citations = []
    return messages


def refusal_help(*, user: AnyUser, messages: list[Message]) -> None:
    """Give each refusal what the reader can do next: `closest`, the documents nearest the
    question that the user can still open, and `curators`, who curates their projects."""
    refusals = [m for m in messages if m.role == MessageRole.ASSISTANT and m.refusal_reason]
    offered = [c for m in refusals for c in (m.meta or {}).get("closest") or []]
    if not refusals:
        return
    visible = set(
        Document.objects.visible_to(user)
        .filter(pk__in={int(c["document_id"]) for c in offered})
        .values_list("pk", flat=True)
    )
    keys = sorted({str(c["project_key"]) for c in offered if c["document_id"] in visible})
    curators = project_curators(project_keys=keys)
    for message in refusals:
        closest = [
            c for c in (message.meta or {}).get("closest") or [] if c["document_id"] in visible
        ]
        message.closest = closest  # type: ignore[attr-defined]
        message.curators = [  # type: ignore[attr-defined]
            (key, curators[key])
            for key in dict.fromkeys(str(c["project_key"]) for c in closest)
            if curators.get(key)
        ]


def citation_status_notes(*, user: AnyUser, messages: list[Message]) -> None:
    """Give each cited superseded, deprecated or archived source what a reader needs to move
    on: the reason of its status change (`status_reason`) and the visible records that
    replaced it (`successors`: title and preview URL). In memory only; nothing is saved."""
    stale = [
        citation
        for message in messages
        for citation in (message.citations or [])
        if isinstance(citation, dict) and citation.get("canonical_status") in STALE_STATUSES
    ]
    if not stale:
        return
    ids = sorted({int(c["document_id"]) for c in stale})
    reasons = change_reasons(document_ids=ids)
    successors: dict[int, list[Document]] = {}
    for older, newer in supersede_pairs(user=user, document_ids=ids, hops=1):
        if older.pk in ids and newer.canonical_status not in STALE_STATUSES:
            successors.setdefault(older.pk, []).append(newer)
    for citation in stale:
        document_id = int(citation["document_id"])
        citation["status_reason"] = reasons.get(document_id, "")
        citation["successors"] = [
            {"title": doc.title, "preview_url": reverse("chat-preview", args=[doc.pk])}
            for doc in successors.get(document_id, [])
        ]


@dataclass(frozen=True, kw_only=True)
class LinkedDocument:
    """Another visible document named next to this one (a supersede chain's neighbour)."""

    document_id: int
    title: str
    status: str
    url: str  # the document page
    preview_url: str  # the same document in the citation modal


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
    updated_at: Any = None
    replaces: tuple[LinkedDocument, ...] = ()  # older records this one supersedes
    replaced_by: tuple[LinkedDocument, ...] = ()  # newer records superseding this one
    version: int = 0  # the version whose text is shown
    current_version: int = 0
    pinned: bool = False  # an older version than the current one is shown, as cited
    version_gone: int | None = None  # the cited version, no longer kept (the current shown)
    timeline: tuple[StatusStep, ...] = ()  # its status changes, oldest first
    # where the document lives upstream (a synced source's file at the revision read), or ""
    source_url: str = ""
    source_revision: str = ""

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def version_readable(*, user: AnyUser, document: Document, number: int) -> bool:
    """May `user` read version `number` of a document they can see? Its editors may read
    every version; anyone else only the versions their own answers cite (an old answer opens
    its passage as it was). The one rule for the preview, the document page and MCP."""
    if isinstance(user, AnonymousUser):
        return False
    if Document.objects.editable_by(user).filter(pk=document.pk).exists():
        return True
    return Message.objects.filter(
        conversation__user_id=user.pk,
        role=MessageRole.ASSISTANT,
        citations__contains=[{"document_id": document.pk, "version": number}],
    ).exists()


def _pinned_version(
    *, user: AnyUser, document: Document, number: int | None
) -> tuple[DocumentVersion | None, int | None]:
    """(the older version to show, the number of a readable version no longer kept)."""
    if number is None or number == document.current_version:
        return None, None
    if not version_readable(user=user, document=document, number=number):
        return None, None  # like an unknown chunk: the current text, nothing said
    version = document_version_of(document=document, number=number)
    if version is None:
        return None, number if 0 < number < document.current_version else None
    return version, None


def document_preview(
    *,
    user: AnyUser,
    document_id: int,
    chunk_id: int | None = None,
    version: int | None = None,
    version_required: bool = False,
) -> DocumentPreview:
    """A visible document rebuilt from its chunks; Http404 (one body) for anything not visible.

    With `chunk_id` (a chunk of this document), that chunk's text is rendered inside
    `<section id="cited-chunk">` so the modal can scroll to and highlight the cited passage.
    With `version` (an older version the user may read, see `version_readable`), the text
    and the cited chunk are that version's, as an answer citing it read them. The pages show
    the current text for a version the user may not read; with `version_required` (the API,
    MCP) such a version is Http404, like a missing one.
    """
    document = document_get_visible(user, document_id)
    pinned, version_gone = _pinned_version(user=user, document=document, number=version)
    if version_required and version is not None and pinned is None:
        if version != document.current_version:
            raise Http404
    rows: list[tuple[int | None, str, int]]
    if pinned is not None:
        ids = pinned.chunk_ids
        rows = [
            (ids[i] if i < len(ids) else None, entry["text"], entry["overlap_chars"])
            for i, entry in enumerate(pinned.text.chunks)
        ]
    else:
        rows = list(
            Chunk.objects.filter(document=document)
            .order_by("chunk_order")
            .values_list("id", "text", "overlap_chars")
        )
    content = rebuild_content((text, overlap) for _, text, overlap in rows)
    links = documents_by_slug(user=user, slugs=wikilink_slugs(content))
    titles = {slug: title for slug, (_, title) in links.items()}
    urls = {slug: reverse("chat-preview", args=[pk]) for slug, (pk, _) in links.items()}

    def linked(text: str) -> str:
        return render_wikilinks(text, titles, urls)

    cited = next(
        (i for i, row in enumerate(rows) if chunk_id is not None and row[0] == chunk_id), None
    )
    highlighted: int | None = None
    content_html = ""
    if cited is not None:
        start = sum(len(text) - overlap for _, text, overlap in rows[:cited])
        end = start + len(rows[cited][1]) - rows[cited][2]
        before, marked, after = render_markdown_marking(content, start, end, linked)
        if marked:
            highlighted = chunk_id
            content_html = (
                f'{before}<section id="cited-chunk" class="cited-chunk" tabindex="-1" '
                f'data-chunk-id="{highlighted}" aria-label="Cited passage">{marked}</section>'
                f"{after}"
            )
    if highlighted is None:
        content_html = render_markdown(content, linked)
    older, newer = document_supersede_chain(user=user, document=document)
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
        highlighted_chunk_id=highlighted,
        updated_at=document.updated_at,
        replaces=tuple(_linked(doc) for doc in older),
        replaced_by=tuple(_linked(doc) for doc in newer),
        version=pinned.number if pinned is not None else document.current_version,
        current_version=document.current_version,
        pinned=pinned is not None,
        version_gone=version_gone,
        timeline=tuple(status_timeline(document_id=document.pk)),
        **_upstream(document),
    )


def _upstream(document: Document) -> dict[str, str]:
    """The link a source's sync stored with the document (sources.connectors: the file at
    the revision it was read from); only web links."""
    origin = document.metadata.get("source") if isinstance(document.metadata, dict) else None
    url = str(origin.get("url") or "") if isinstance(origin, dict) else ""
    if not url.startswith(("https://", "http://")):
        return {}
    assert isinstance(origin, dict)
    return {"source_url": url, "source_revision": str(origin.get("revision") or "")[:12]}


def document_page_extras(*, user: AnyUser, document_id: int) -> dict[str, Any]:
    """What the document page adds to the preview: who curates the project, and for the
    document's editors its curation history, its versions and where to edit it (Http404 as
    the preview)."""
    document = document_get_visible(user, document_id)
    editable = Document.objects.editable_by(user).filter(pk=document.pk).exists()
    key = document.project.key
    return {
        "curators": project_curators(project_keys=[key]).get(key, []),
        "history": list(record_history(user=user, document=document)[:50]) if editable else None,
        "versions": (
            document_version_list(user=user, document_id=document.pk)[:VERSIONS_SHOWN]
            if editable
            else None
        ),
        "edit_url": (
            reverse("admin:canonical_canonicalrecord_change", args=[document.pk])
            if editable
            else ""
        ),
    }


def _linked(document: Document) -> LinkedDocument:
    return LinkedDocument(
        document_id=document.pk,
        title=document.title,
        status=document.canonical_status or "",
        url=reverse("chat-document", args=[document.pk]),
        preview_url=reverse("chat-preview", args=[document.pk]),
    )


def content_gaps_for(*, user: AnyUser) -> QuerySet[ContentGap]:
    """Gaps of projects the user edits ("" = unscoped questions only for superusers)."""
    if sees_every_project(user):
        return ContentGap.objects.all()
    keys = list(Project.objects.editable_by(user).values_list("key", flat=True))
    return ContentGap.objects.filter(project_key__in=keys)


def _editor_rows(
    queryset: QuerySet, *, user: AnyUser, refusal_field: str = "refusal_reason"
) -> QuerySet:
    """Rows (with `project_keys` and `refusal_reason`) an editor may read: every key of the row
    is a project they edit, or the row is a refusal (no document text in it) and some key is.
    Refusals asked over "All my projects" thus reach the editors of each project searched."""
    if sees_every_project(user):
        return queryset
    keys = list(Project.objects.editable_by(user).values_list("key", flat=True))
    if not keys:
        return queryset.none()
    # project_keys is a JSON list of strings: `?|` (has_any_keys) matches its elements.
    return queryset.exclude(project_keys=[]).filter(
        Q(project_keys__contained_by=keys)
        | (~Q(**{refusal_field: ""}) & Q(project_keys__has_any_keys=keys))
    )


def chat_logs_for(*, user: AnyUser) -> QuerySet[ChatLog]:
    """Chat log rows an editor may read (see _editor_rows); superusers see all."""
    return _editor_rows(ChatLog.objects.all(), user=user)


def message_get_for_user(*, user: AnyUser, message_id: int) -> Message:
    """An answer in one of the user's own conversations; Http404 for anything else."""
    if isinstance(user, AnonymousUser):
        raise Http404
    message = (
        Message.objects.select_related("conversation")
        .filter(pk=message_id, role=MessageRole.ASSISTANT, conversation__user_id=user.pk)
        .first()
    )
    if message is None:
        raise Http404
    return message


def message_question(message: Message) -> str:
    """The question an answer replies to: the user message just before it."""
    return (
        Message.objects.filter(
            conversation_id=message.conversation_id, role=MessageRole.USER, pk__lt=message.pk
        )
        .order_by("-pk")
        .values_list("content", flat=True)
        .first()
    ) or ""


def feedback_by_message(*, user: AnyUser, messages: list[Message]) -> dict[int, Feedback]:
    """The user's own feedback on each of `messages`, keyed by message id."""
    if isinstance(user, AnonymousUser) or not messages:
        return {}
    rows = Feedback.objects.filter(user_id=user.pk, message__in=[m.pk for m in messages])
    return {row.message_id: row for row in rows}


def feedback_for_editor(*, user: AnyUser) -> QuerySet[Feedback]:
    """Feedback an editor may review: the chat log's rule, applied to the rated answers."""
    return _editor_rows(Feedback.objects.all(), user=user, refusal_field="message__refusal_reason")


@dataclass(frozen=True, kw_only=True)
class ConversationEntry:
    """One message of a rated conversation as an editor reads it."""

    role: str
    content: str
    citations: list[dict[str, Any]]
    refusal_reason: str = ""
    rated: bool = False  # the answer the feedback is about
    withheld: bool = False  # a whole turn about documents or projects the editor cannot see


def feedback_conversation(*, feedback: Feedback, user: AnyUser) -> list[ConversationEntry]:
    """The rated answer's conversation in order, up to and including that answer, as the
    editor `user` may read it. The rated turn shows because the queue's rule let the editor
    see the feedback (its citations naming only visible documents); an earlier turn whose
    answer cites a document the editor cannot see, or searched only projects they cannot see,
    is withheld, question and answer."""
    rated = feedback.message
    messages = list(
        Message.objects.filter(conversation_id=rated.conversation_id, pk__lte=rated.pk).order_by(
            "created_at", "id"
        )
    )
    earlier_answers = [m for m in messages if m.role == MessageRole.ASSISTANT and m != rated]
    withheld = answers_lost_to(user=user, messages=earlier_answers)
    visible_projects = set(Project.objects.visible_to(user).values_list("key", flat=True))
    visible_documents = set(
        Document.objects.visible_to(user)
        .filter(pk__in=feedback.document_ids or [])
        .values_list("pk", flat=True)
    )
    for message in earlier_answers:
        scope = set((message.meta or {}).get("filters", {}).get("project_keys") or [])
        if scope and not scope & visible_projects:
            withheld.add(message.pk)
    entries: list[ConversationEntry] = []
    question_at: int | None = None  # the entry of the question the next answer replies to
    for message in messages:
        if message.role == MessageRole.USER:
            question_at = len(entries)
            entries.append(
                ConversationEntry(role=message.role, content=message.content, citations=[])
            )
            continue
        if message.pk in withheld:
            if question_at is not None:
                del entries[question_at]
            entries.append(
                ConversationEntry(role=message.role, content="", citations=[], withheld=True)
            )
        else:
            is_rated = message.pk == rated.pk
            citations = [
                c
                for c in message.citations or []
                if isinstance(c, dict)
                and (not is_rated or c.get("document_id") in visible_documents)
            ]
            entries.append(
                ConversationEntry(
                    role=message.role,
                    content=message.content,
                    citations=citations,
                    refusal_reason=message.refusal_reason,
                    rated=is_rated,
                )
            )
        question_at = None
    return entries


def feedback_open_count(*, user: AnyUser) -> int:
    """Thumbs-down feedback waiting for an editor of the user's projects."""
    return (
        feedback_for_editor(user=user)
        .filter(rating=FeedbackRating.DOWN, resolved_at__isnull=True)
        .count()
    )


@dataclass(frozen=True, kw_only=True)
class DocumentFeedback:
    document_id: int
    title: str
    slug: str
    project_key: str
    down: int
    up: int


def document_feedback_counts(*, user: AnyUser, limit: int = 50) -> list[DocumentFeedback]:
    """Visible documents cited by rated answers, most thumbs-down first (documents that mislead)."""
    down: Counter[int] = Counter()
    up: Counter[int] = Counter()
    for rating, document_ids in feedback_for_editor(user=user).values_list(
        "rating", "document_ids"
    ):
        (down if rating == FeedbackRating.DOWN else up).update(set(document_ids or []))
    documents = Document.objects.visible_to(user).filter(pk__in=set(down) | set(up))
    rows = [
        DocumentFeedback(
            document_id=d.pk,
            title=d.title,
            slug=d.slug,
            project_key=d.project.key,
            down=down[d.pk],
            up=up[d.pk],
        )
        for d in documents.select_related("project")
    ]
    rows.sort(key=lambda row: (-row.down, row.up, row.title))
    return rows[:limit]
