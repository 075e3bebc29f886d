"""Chat pages: the HTMX chat, its answer partials and the citation preview modal."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import (
    HttpRequest,
    HttpResponse,
    HttpResponseRedirect,
    JsonResponse,
    StreamingHttpResponse,
)
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST
from django_htmx.middleware import HtmxDetails

from chat.models import Conversation
from chat.notifications import drift_notes_by_message
from chat.providers import ProviderError, get_provider
from chat.selectors import (
    citation_status_notes,
    conversation_get_for_user,
    conversation_list,
    document_page_extras,
    document_preview,
    message_list,
    refusal_help,
)
from chat.services import ChatInputError, TurnResult, message_send, message_stream, turn_stored
from chat.views_conversations import attach_answer_actions
from kb.filters import (
    SearchFilters,
    SearchFiltersSerializer,
    canonical_names,
    filter_data_from_query,
    filters_from,
)
from portal.access.selectors import project_list_visible
from portal.ratelimit import throttled


class HtmxHttpRequest(HttpRequest):
    """A request as django-htmx's middleware leaves it (`request.htmx`)."""

    htmx: HtmxDetails


PAGE = "chat/page.html"


def _page_context(
    request: HttpRequest,
    *,
    conversation: Conversation | None,
    project_key: str = "",
    error: dict[str, Any] | None = None,
) -> dict[str, Any]:
    messages_ = message_list(conversation=conversation, user=request.user) if conversation else []
    attach_answer_actions(request.user, messages_)
    citation_status_notes(user=request.user, messages=messages_)
    refusal_help(user=request.user, messages=messages_)
    notes = drift_notes_by_message(user=request.user, messages=messages_)
    for message in messages_:
        message.drift_notes = notes.get(message.pk, [])  # type: ignore[attr-defined]
    return {
        "conversation": conversation,
        "conversations": conversation_list(user=request.user, query=request.GET.get("q", "")),
        "conversation_query": request.GET.get("q", "").strip(),
        "question_max": settings.CHAT["QUESTION_MAX_CHARS"],
        "today": timezone.now(),
        "messages_": messages_,
        "projects": project_list_visible(user=request.user),
        "project_key": project_key,
        "error": error,
        "streaming": _streaming_enabled(),
    }


def _streaming_enabled() -> bool:
    """Stream answers only when configured and the provider can (the extractive one cannot)."""
    if not settings.CHAT["STREAMING"]:
        return False
    try:
        return bool(get_provider().supports_streaming)
    except ProviderError:
        return False


@login_required
@require_GET
def chat_page(request: HtmxHttpRequest, conversation_id: int | None = None) -> HttpResponse:
    """The chat: conversation list, the selected conversation, the question box."""
    conversation = None
    if conversation_id is not None:
        conversation = conversation_get_for_user(user=request.user, conversation_id=conversation_id)
    project_key = _first_project_key(filter_data_from_query(request.GET))
    context = _page_context(request, conversation=conversation, project_key=project_key)
    if not project_key and context["messages_"]:
        # keep asking where the conversation last asked
        last_keys = context["messages_"][-1].meta.get("filters", {}).get("project_keys") or [""]
        context["project_key"] = last_keys[0]
    template = PAGE
    if request.htmx and request.htmx.target in {"chat-main", "message-list", "conversation-list"}:
        template = f"{PAGE}#{request.htmx.target}"
    return TemplateResponse(request, template, context)


def _first_project_key(filter_data: dict[str, Any]) -> str:
    """The project the page's selector shows: the first one the filters name ("" for all)."""
    keys = canonical_names(filter_data)[0].get("project_keys") or [""]
    return str(keys[0])


def _send_input(
    request: HtmxHttpRequest,
) -> tuple[str, str, Conversation | None, SearchFilters | ChatInputError]:
    """Question, project key, the user's conversation (Http404 if not theirs) and the filters
    (or the ChatInputError that refuses them)."""
    question = request.POST.get("question", "")
    data = filter_data_from_query(request.POST)
    project_key = _first_project_key(data)
    conversation = None
    raw_id = request.POST.get("conversation_id", "").strip()
    if raw_id:
        conversation = conversation_get_for_user(
            user=request.user, conversation_id=int(raw_id) if raw_id.isdigit() else 0
        )
    serializer = SearchFiltersSerializer(data=data)
    if not serializer.is_valid():
        errors = {f"filters.{name}": [str(e) for e in v] for name, v in serializer.errors.items()}
        return question, project_key, conversation, ChatInputError(errors)
    return question, project_key, conversation, filters_from(serializer.validated_data)


def _error_for(exc: Exception, question: str) -> dict[str, Any]:
    if isinstance(exc, ChatInputError):
        messages_ = exc.errors.get("question") or [
            " ".join(str(m) for m in errors) for errors in exc.errors.values()
        ]
        # Keep all of it, even over the limit: the user shortens it rather than retyping.
        return {"message": " ".join(messages_), "keep": question}
    assert isinstance(exc, ProviderError)
    return {"message": exc.message, "code": exc.code, "question": question.strip()}


@login_required
@require_POST
@throttled("chat")
def chat_send(request: HtmxHttpRequest) -> HttpResponse:
    """Ask: one chat turn. htmx gets the chat-main fragment; plain forms a redirect."""
    question, project_key, conversation, filters = _send_input(request)
    error: dict[str, Any] | None = None
    try:
        if isinstance(filters, ChatInputError):
            raise filters
        turn = message_send(
            user=request.user,
            question=question,
            filters=filters,
            conversation=conversation,
            turn_key=request.POST.get("turn_key", ""),
        )
        conversation = turn.conversation
    except (ChatInputError, ProviderError) as exc:
        error = _error_for(exc, question)

    if not request.htmx:
        if error is None and conversation is not None:
            return HttpResponseRedirect(reverse("chat-conversation", args=[conversation.pk]))
        context = _page_context(
            request, conversation=conversation, project_key=project_key, error=error
        )
        return TemplateResponse(request, PAGE, context, status=200)

    context = _page_context(
        request, conversation=conversation, project_key=project_key, error=error
    )
    context["oob"] = True
    response = TemplateResponse(request, f"{PAGE}#chat-main", context)
    if error is None and conversation is not None:
        response["HX-Push-Url"] = reverse("chat-conversation", args=[conversation.pk])
    return response


def _sse(event: str, data: dict[str, Any]) -> str:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n"


@login_required
@require_POST
@throttled("chat")
def chat_stream(request: HtmxHttpRequest) -> StreamingHttpResponse:
    """Ask, streamed as server-sent events: `token` pieces, then `done` with the chat-main
    fragment (the same HTML chat_send returns), errors included as an error bubble."""
    question, project_key, conversation, filters = _send_input(request)

    def events() -> Iterator[str]:
        nonlocal conversation
        error: dict[str, Any] | None = None
        try:
            if isinstance(filters, ChatInputError):
                raise filters
            turn = message_stream(
                user=request.user,
                question=question,
                filters=filters,
                conversation=conversation,
                turn_key=request.POST.get("turn_key", ""),
            )
            try:
                for item in turn:
                    if isinstance(item, TurnResult):
                        conversation = item.conversation
                    else:
                        yield _sse("token", {"text": item})
            except GeneratorExit:
                # The reader left (reload, closed tab): finish and store the turn anyway, so
                # the conversation's page shows it.
                for _ in turn:
                    pass
                raise
        except (ChatInputError, ProviderError) as exc:
            error = _error_for(exc, question)
        context = _page_context(
            request, conversation=conversation, project_key=project_key, error=error
        )
        context["oob"] = True
        url = reverse("chat-conversation", args=[conversation.pk]) if conversation else ""
        html = render_to_string(f"{PAGE}#chat-main", context, request=request)
        yield _sse("done", {"html": html, "url": url if error is None else ""})

    response = StreamingHttpResponse(events(), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # let proxies pass tokens through as they come
    return response


@login_required
@require_GET
def chat_turn(request: HttpRequest, turn_key: str) -> JsonResponse:
    """Where the user's turn sent under `turn_key` is stored: {"url": its conversation} once
    it is, 404 {"pending": true} until then (a page reloaded mid-answer polls this)."""
    turn = turn_stored(user=request.user, turn_key=turn_key)
    if turn is None:
        return JsonResponse({"pending": True}, status=404)
    return JsonResponse({"url": reverse("chat-conversation", args=[turn.conversation.pk])})


def _query_id(request: HttpRequest, name: str) -> int | None:
    raw = request.GET.get(name, "")
    return int(raw) if raw.isdigit() and len(raw) < 19 else None


def _cited_chunk(request: HttpRequest) -> int | None:
    return _query_id(request, "chunk")


def _cited_version(request: HttpRequest) -> int | None:
    return _query_id(request, "version")


@login_required
@require_GET
def chat_preview(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The citation modal's body: the sanitised document (same 404 rule as the API), with
    the cited chunk (`?chunk=<id>`) highlighted; an unknown or foreign chunk is ignored. With
    `?version=<n>` (an old answer's citation), the text as that version had it, with a
    banner; a version the user may not read is ignored like an unknown chunk.
    Opened outside the modal, it is the document page."""
    if not request.htmx:
        return document_page(request, pk)
    preview = document_preview(
        user=request.user,
        document_id=pk,
        chunk_id=_cited_chunk(request),
        version=_cited_version(request),
    )
    return TemplateResponse(request, f"{PAGE}#preview-body", {"preview": preview})


@login_required
@require_GET
def document_page(request: HttpRequest, pk: int) -> HttpResponse:
    """All of a visible document: its status, supersede chain and, for its editors, the
    history of its curated fields and its versions (same 404 rule as the preview)."""
    preview = document_preview(
        user=request.user,
        document_id=pk,
        chunk_id=_cited_chunk(request),
        version=_cited_version(request),
    )
    context = {
        "preview": preview,
        "page": True,
        **document_page_extras(user=request.user, document_id=pk),
    }
    return TemplateResponse(request, "chat/document.html", context)
