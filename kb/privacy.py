"""The personal data kb holds about a user: the document versions their changes made."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kb.curation import ERASED_ACTOR
from kb.models import DocumentVersion

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def document_versions_export(user: User) -> list[dict[str, Any]]:
    """Every document version the user's change made: which, when, through which door, why."""
    return [
        {
            "document_id": version.document_id,
            "document_slug": version.slug,
            "number": version.number,
            "at": version.created_at.isoformat(),
            "source": version.source,
            "reason": version.reason,
            "restored_from": version.restored_from,
        }
        for version in DocumentVersion.objects.filter(actor=user).order_by("created_at", "id")
    ]


def document_versions_anonymise(user: User) -> int:
    """Keep the versions (the documents' history stays whole) but name them "erased user"."""
    return DocumentVersion.objects.filter(actor=user).update(actor=None, actor_name=ERASED_ACTOR)
