"""Chat pages: the HTMX chat, its answer partials and the citation preview modal."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from chat.models import Conversation
from chat.providers import ProviderError
from chat.selectors import (
    conversation_get_for_user,
    conversation_list,
    document_preview,
    message_list,
)
from chat.services import ChatInputError, message_send
from kb.retrieval.types import SearchFilters
from portal.access.selectors import project_list_visible

PAGE = "chat/page.html"


def _page_context(
    request: HttpRequest,
    *,
    conversation: Conversation | None,
    project_key: str = "",
    error: dict[str, Any] | None = None,
) -> dict[str, Any]:
    return {
        "conversation": conversation,
        "conversations": conversation_list(user=request.user),
        "messages_": message_list(conversation=conversation) if conversation else [],
        "projects": project_list_visible(user=request.user),
        "project_key": project_key,
        "error": error,
    }


@login_required
@require_GET
def chat_page(request: HttpRequest, conversation_id: int | None = None) -> HttpResponse:
    """The chat: conversation list, the selected conversation, the question box."""
    conversation = None
    if conversation_id is not None:
        conversation = conversation_get_for_user(user=request.user, conversation_id=conversation_id)
    context = _page_context(
        request, conversation=conversation, project_key=request.GET.get("project", "")
    )
    template = PAGE
    if request.htmx and request.htmx.target in {"chat-main", "message-list"}:
        template = f"{PAGE}#{request.htmx.target}"
    return TemplateResponse(request, template, context)


@login_required
@require_POST
def chat_send(request: HttpRequest) -> HttpResponse:
    """Ask: one chat turn. htmx gets the message list fragment; plain forms a redirect."""
    question = request.POST.get("question", "")
    project_key = request.POST.get("project", "").strip()
    conversation = None
    raw_id = request.POST.get("conversation_id", "").strip()
    if raw_id:
        if not raw_id.isdigit():
            conversation_get_for_user(user=request.user, conversation_id=0)  # 404
        conversation = conversation_get_for_user(user=request.user, conversation_id=int(raw_id))
    filters = SearchFilters(project_keys=(project_key,) if project_key else ())
    error: dict[str, Any] | None = None
    try:
        turn = message_send(
            user=request.user, question=question, filters=filters, conversation=conversation
        )
        conversation = turn.conversation
    except ChatInputError as exc:
        messages_ = exc.errors.get("question", ["Invalid question."])
        error = {"message": " ".join(messages_), "keep": question[:10_000]}
    except ProviderError as exc:
        error = {"message": exc.message, "code": exc.code, "question": question.strip()}

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


@login_required
@require_GET
def chat_preview(request: HttpRequest, pk: int) -> HttpResponse:
    """The citation modal's body: the sanitised document (same 404 rule as the API)."""
    preview = document_preview(user=request.user, document_id=pk)
    template = f"{PAGE}#preview-body" if request.htmx else "chat/document.html"
    return TemplateResponse(request, template, {"preview": preview})
