"""Export and erasure of one user's personal data in the current tenant (GDPR art. 15, 17)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.db import transaction
from django.utils import timezone

from portal.tenants.selectors import current_schema
from privacy.registry import PERSONAL_DATA

if TYPE_CHECKING:
    from django.contrib.auth.models import User

EXPORT_FORMAT = "groundwork-personal-data/1"
NOTES = {
    "withheld": (
        "Answers marked withheld (access_ended) relied on documents you can no longer access: "
        "your membership of their project ended, or they were deleted. Their text and "
        "citations came from those documents, so they are left out, as in the chat; your "
        "questions are kept."
    ),
}


def user_data_export(*, user: User) -> dict[str, Any]:
    """Everything the tenant holds about `user`, as one JSON-ready document."""
    with transaction.atomic():  # one consistent snapshot across the sections
        sections = {entry.key: entry.export(user) for entry in PERSONAL_DATA}
    return {
        "format": EXPORT_FORMAT,
        "tenant": current_schema(),
        "exported_at": timezone.now().isoformat(),
        "notes": NOTES,
        **sections,
    }


@transaction.atomic
def user_erase(*, user: User) -> dict[str, int]:
    """Delete the user's conversations and chat log, anonymise their audit rows, delete the
    account (memberships and tokens cascade); all or nothing. Returns rows per section."""
    counts = {entry.key: entry.erase(user) for entry in PERSONAL_DATA if entry.erase is not None}
    user.delete()
    counts["account"] = 1
    return counts
