"""Reads on the knowledge base; every one goes through Document.objects.visible_to(user)."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.db.models import Count, QuerySet
from django.http import Http404

from kb.filters import SearchFilters
from kb.models import Document
from portal.access.models import AnyUser
from portal.access.selectors import user_can_edit


def _with_counts(queryset: QuerySet[Document]) -> QuerySet[Document]:
    return queryset.select_related("project").annotate(chunk_count=Count("chunks"))


def document_list(*, user: AnyUser, filters: SearchFilters | None = None) -> QuerySet[Document]:
    """Visible documents, filtered, with `chunk_count`, by project then slug."""
    documents = Document.objects.visible_to(user).filtered(filters)
    return _with_counts(documents).order_by("project__key", "slug", "id")


def document_get_visible(user: AnyUser, document_id: int) -> Document:
    """The document if the user may read it (with `chunk_count`); Http404 otherwise."""
    document = _with_counts(Document.objects.visible_to(user)).filter(pk=document_id).first()
    if document is None:
        raise Http404
    return document


def document_get_editable(user: AnyUser, document_id: int) -> Document:
    """The document for a write: Http404 when not visible, PermissionDenied for readers."""
    document = document_get_visible(user, document_id)
    if not user_can_edit(user=user, project=document.project):
        raise PermissionDenied("Only editors and admins of this project may change its documents.")
    return document
