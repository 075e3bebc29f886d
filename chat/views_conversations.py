"""Chat page actions around the turn: rename and delete a conversation, rate an answer."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST
from django_htmx.middleware import HtmxDetails

from chat.conversations import conversation_delete, conversation_rename
from chat.feedback import feedback_give
from chat.models import Message, MessageRole
from chat.selectors import (
    conversation_get_for_user,
    conversation_list,
    feedback_by_message,
    message_get_for_user,
)
from chat.services import ChatInputError
from portal.access.models import AnyUser

ACTIONS = "chat/actions.html"


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails  # set by django-htmx's middleware


def attach_answer_actions(user: AnyUser, messages: list[Message]) -> None:
    """Give each answer the user's feedback on it, and the last answer the question that
    regenerating it asks again (what the answer-actions fragment renders)."""
    feedback = feedback_by_message(user=user, messages=messages)
    previous = ""
    last_answer = None
    for message in messages:
        if message.role == MessageRole.USER:
            previous = message.content
            continue
        message.my_feedback = feedback.get(message.pk)  # type: ignore[attr-defined]
        message.regenerate_question = ""  # type: ignore[attr-defined]
        last_answer = (message, previous)
    if last_answer is not None:
        last_answer[0].regenerate_question = last_answer[1]  # type: ignore[attr-defined]


@login_required
@require_POST
def conversation_rename_view(request: HtmxHttpRequest, conversation_id: int) -> HttpResponse:
    """Rename the user's conversation; htmx gets the title bar back, forms a redirect."""
    conversation = conversation_get_for_user(user=request.user, conversation_id=conversation_id)
    error = ""
    try:
        conversation_rename(conversation=conversation, title=request.POST.get("title", ""))
    except ChatInputError as exc:
        error = " ".join(exc.errors["title"])
    if request.htmx:
        # 200 with the error inside: htmx swaps only successful responses by default.
        return TemplateResponse(
            request,
            f"{ACTIONS}#conversation-header",
            {
                "conversation": conversation,
                "rename_error": error,
                # the sidebar shows the new name too (swapped out of band)
                "conversations": conversation_list(user=request.user),
                "today": timezone.now(),
                "oob": True,
                "rename_oob": True,
            },
        )
    if error:
        return HttpResponse(error, status=400, content_type="text/plain; charset=utf-8")
    return HttpResponseRedirect(reverse("chat-conversation", args=[conversation.pk]))


@login_required
@require_POST
def conversation_delete_view(request: HtmxHttpRequest, conversation_id: int) -> HttpResponse:
    """Delete the user's conversation and go back to a new one."""
    conversation = conversation_get_for_user(user=request.user, conversation_id=conversation_id)
    conversation_delete(conversation=conversation)
    url = reverse("chat")
    if request.htmx:
        response = HttpResponse(status=204)
        response["HX-Redirect"] = url
        return response
    return HttpResponseRedirect(url)


@login_required
@require_POST
def feedback_view(request: HtmxHttpRequest, message_id: int) -> HttpResponse:
    """Rate one of the user's answers: the thumbs first; after a thumbs-down, optional reasons
    and a comment (the second form, which always posts its comment box)."""
    message = message_get_for_user(user=request.user, message_id=message_id)
    error = ""
    feedback = None
    # The thumbs post only a rating: what was said before stays (see feedback_give). The
    # reasons form posts its comment box even when empty, and no reason when none is ticked.
    said = "comment" in request.POST or "reasons" in request.POST
    try:
        feedback = feedback_give(
            user=request.user,
            message=message,
            rating=request.POST.get("rating", ""),
            reasons=request.POST.getlist("reasons") if said else None,
            comment=request.POST.get("comment", "") if said else None,
            suggested=request.POST.get("suggested", "") if said else None,
        )
    except ChatInputError as exc:
        error = " ".join(" ".join(v) for v in exc.errors.values())
        # nothing changed: the fragment shows what is stored
        feedback = feedback_by_message(user=request.user, messages=[message]).get(message.pk)
    message.my_feedback = feedback  # type: ignore[attr-defined]  # what the fragment shows
    context = {
        "message": message,
        "feedback_error": error,
        "feedback_saved": not error,
        "feedback_detailed": said,  # the reasons form was sent, not just a thumb
    }
    if request.htmx:
        return TemplateResponse(request, f"{ACTIONS}#feedback", context)
    if error:
        return HttpResponse(error, status=400, content_type="text/plain; charset=utf-8")
    return HttpResponseRedirect(reverse("chat-conversation", args=[message.conversation_id]))
