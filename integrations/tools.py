"""What the MCP tools do, as plain synchronous functions of the caller (no MCP types here).

Each one reads through the same selectors, services and serializers as the REST API, so the
visibility rule, the 404 contract and the input validation have one home. A failure the
caller can act on is a `ToolFailure` with the API's message.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.urls import reverse
from rest_framework import serializers

from canonical.selectors import record_history
from chat.apis import ChatApi, DocumentPreviewApi, record_open_issues
from chat.providers import ProviderError
from chat.selectors import document_preview
from chat.services import ChatInputError, message_send
from kb.apis_search import SearchApi
from kb.filters import filters_from
from kb.models import Document
from kb.retrieval import InvalidSearchRequest, search
from kb.selectors import (
    document_get_editable,
    document_get_visible,
    document_supersede_chain,
)
from portal.access.models import AnyUser, Project
from portal.access.selectors import project_roles_for

NOT_FOUND = "Not found."  # the one body of every not-visible answer (portal.api's 404)
SNIPPET_CHARS = 300
HISTORY_LIMIT = 100


class ToolFailure(ValueError):
    """A tool call the caller must fix (bad argument, not visible, not allowed)."""


def _validated(serializer_class: type[serializers.Serializer], data: dict[str, Any]) -> Any:
    serializer = serializer_class(data=data)
    if not serializer.is_valid():
        raise ToolFailure(_error_text(serializer.errors))
    return serializer.validated_data


def _error_text(errors: Any, prefix: str = "") -> str:
    """DRF's field errors as one line: `query: This field may not be blank.; top: ...`."""
    if isinstance(errors, dict):
        return "; ".join(
            _error_text(value, f"{prefix}{key}." if isinstance(value, dict) else f"{prefix}{key}")
            for key, value in errors.items()
        )
    if isinstance(errors, list):
        return f"{prefix.rstrip('.')}: " + " ".join(str(item) for item in errors)
    return f"{prefix.rstrip('.')}: {errors}"


def _preview_path(document_id: int) -> str:
    return reverse("chat-api-document-preview", kwargs={"pk": document_id})


def search_tool(
    user: AnyUser, *, query: str, filters: dict[str, Any] | None, top: int | None
) -> dict[str, Any]:
    """Hybrid search, validated like POST /api/kb/search; hits carry a snippet and preview link."""
    payload: dict[str, Any] = {"query": query, "filters": filters}
    if top is not None:
        payload["top"] = top
    data = _validated(SearchApi.InputSerializer, payload)
    try:
        result = search(
            user=user,
            query=data["query"],
            limit=data.get("top"),
            filters=filters_from(data.get("filters")),
        )
    except InvalidSearchRequest as exc:
        raise ToolFailure(f"{exc.field}: {exc.message}") from exc
    hits = [*result.primary, *result.expanded, *result.rejected]
    return {
        "hits": [
            {
                "document_id": hit.document_id,
                "title": hit.title,
                "slug": hit.slug,
                "project_key": hit.project_key,
                "canonical_type": hit.canonical_type,
                "canonical_status": hit.canonical_status,
                "heading_path": hit.heading_path,
                "snippet": hit.text[:SNIPPET_CHARS],
                "score": round(hit.score, 4),
                "origin": hit.origin,
                "preview_url": _preview_path(hit.document_id),
            }
            for hit in hits
        ],
        "count": len(hits),
    }


def ask_tool(
    user: AnyUser,
    *,
    question: str,
    project_key: str | None,
    filters: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One grounded chat turn, through the chat app's public turn service (as POST /api/kb/chat)."""
    payload: dict[str, Any] = {"question": question, "filters": filters}
    if project_key:
        payload["project_key"] = project_key
    data = _validated(ChatApi.InputSerializer, payload)
    if isinstance(user, AnonymousUser):  # transports authenticate first; never answer anonymously
        raise ToolFailure("Not authenticated.")
    try:
        turn = message_send(
            user=user,
            question=data["question"],
            filters=filters_from(data.get("filters"), project_key=data.get("project_key") or None),
        )
    except ChatInputError as exc:
        raise ToolFailure(_error_text(exc.errors)) from exc
    except ProviderError as exc:
        raise ToolFailure(f"{exc.code}: {exc.message}") from exc
    return {
        "answer": turn.answer,
        "citations": list(turn.citations),
        "refusal_reason": turn.refusal_reason,
        "conversation_id": turn.conversation.pk,
    }


def _chain_link(document: Document) -> dict[str, Any]:
    return {
        "document_id": document.pk,
        "slug": document.slug,
        "title": document.title,
        "canonical_status": document.canonical_status,
    }


def supersede_chain(user: AnyUser, document: Document) -> dict[str, list[dict[str, Any]]]:
    """The supersede chain one hop each way, as the tools show it."""
    older, newer = document_supersede_chain(user=user, document=document)
    return {
        "supersedes": [_chain_link(doc) for doc in older],
        "superseded_by": [_chain_link(doc) for doc in newer],
    }


def get_document_tool(
    user: AnyUser, *, document_id: int, version: int | None = None
) -> dict[str, Any]:
    """A visible document's sanitised text, status and supersede chain; NOT_FOUND otherwise.

    With `version`, that version's text, by the preview's rule (its editors read every
    version, anyone else those their own answers cite); NOT_FOUND for any other version."""
    if version is not None:
        version = _validated(DocumentPreviewApi.ParametersSerializer, {"version": version})[
            "version"
        ]
    try:
        preview = document_preview(
            user=user, document_id=document_id, version=version, version_required=True
        )
    except Http404 as exc:
        raise ToolFailure(NOT_FOUND) from exc
    document = document_get_visible(user, document_id)
    return {**preview.to_dict(), **supersede_chain(user, document)}


def list_projects_tool(user: AnyUser) -> dict[str, Any]:
    """The caller's projects with their role (superusers: every project, as admin)."""
    names = dict(Project.objects.visible_to(user).values_list("key", "name"))
    return {
        "projects": [
            {"key": key, "name": names.get(key, key), "role": role}
            for key, role in project_roles_for(user=user)
        ]
    }


def record_status_tool(user: AnyUser, *, document_id: int) -> dict[str, Any]:
    """A record's curation state, audit trail, and open conflicts and proposals, for editors
    of its project."""
    try:
        document = document_get_editable(user, document_id)
    except Http404 as exc:
        raise ToolFailure(NOT_FOUND) from exc
    except PermissionDenied as exc:
        raise ToolFailure(str(exc)) from exc
    history = record_history(user=user, document=document)[:HISTORY_LIMIT]
    return {
        "document_id": document.pk,
        "slug": document.slug,
        "title": document.title,
        "project_key": document.project.key,
        "canonical_type": document.canonical_type,
        "canonical_status": document.canonical_status,
        "retrieval_priority": document.retrieval_priority,
        **supersede_chain(user, document),
        **record_open_issues(user, document),
        "history": [
            {
                "at": change.at.isoformat(),
                "actor": change.actor_name,
                "field": change.field,
                "from_value": change.from_value,
                "to_value": change.to_value,
                "reason": change.reason,
                "source": change.source,
            }
            for change in history
        ],
    }
