"""The start page of a tenant (mounted at /): the ask box first, then what leads on to searching
and curating. It reads chat, kb and access data, so it lives in the chat app (portal imports
none of the apps)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET

from chat.selectors import content_gaps_for, conversation_list, feedback_open_count
from kb.selectors import document_counts_by_project
from portal.access.models import Project
from portal.access.selectors import project_list_visible

RECENT_CONVERSATIONS = 5
TOP_GAPS = 5


@login_required
@require_GET
def start_page(request: HttpRequest) -> HttpResponse:
    """Ask box, the user's projects with document counts, recent conversations, and for
    editors the open feedback and content gaps waiting for them."""
    user = request.user
    counts = document_counts_by_project(user=user)
    projects = [
        {"project": project, "documents": counts.get(project.key, 0)}
        for project in project_list_visible(user=user)
    ]
    is_editor = Project.objects.editable_by(user).exists()
    context = {
        "projects": projects,
        "conversations": conversation_list(user=user, limit=RECENT_CONVERSATIONS),
        "is_editor": is_editor,
        "open_feedback": feedback_open_count(user=user) if is_editor else 0,
        "gaps": (
            list(content_gaps_for(user=user).filter(resolved=False)[:TOP_GAPS]) if is_editor else []
        ),
    }
    return TemplateResponse(request, "chat/start.html", context)
