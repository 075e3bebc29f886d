"""The personal data curation holds about a user: the audit rows they authored."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from canonical.models import RecordChange

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def record_changes_export(user: User) -> list[dict[str, Any]]:
    """Every change the user made to a canonical record, oldest first."""
    return [
        {
            "id": change.pk,
            "at": change.at.isoformat(),
            "document_id": change.document_id,
            "document_slug": change.document.slug,
            "field": change.field,
            "from_value": change.from_value,
            "to_value": change.to_value,
            "reason": change.reason,
            "source": change.source,
        }
        for change in RecordChange.objects.filter(actor=user)
        .select_related("document")
        .order_by("at", "id")
    ]


def record_changes_anonymise(user: User) -> int:
    """Keep the user's audit rows (the trail stays whole) but name them "erased user"."""
    return RecordChange.objects.filter(actor=user).anonymise_actor()
