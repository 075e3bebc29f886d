"""What Groundwork holds about a person, app by app: one entry per kind of personal data.

A new model with personal data is one entry here (its app writes the export and, unless the
rows go with the user row, the erase function). Entries run in this order; the user row
itself is deleted last, taking whatever cascades with it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from canonical import privacy as canonical_privacy
from chat import privacy as chat_privacy
from kb import privacy as kb_privacy
from portal.access import privacy as access_privacy
from portal.identity import privacy as identity_privacy

if TYPE_CHECKING:
    from django.contrib.auth.models import User


@dataclass(frozen=True, kw_only=True)
class PersonalData:
    key: str  # the section of the export
    export: Callable[[User], Any]
    # Deletes or anonymises the rows and returns how many; None: they cascade with the user.
    erase: Callable[[User], int] | None = None


PERSONAL_DATA: tuple[PersonalData, ...] = (
    PersonalData(key="profile", export=access_privacy.profile_export),
    PersonalData(key="memberships", export=access_privacy.memberships_export),
    PersonalData(key="api_tokens", export=access_privacy.api_tokens_export),
    PersonalData(key="api_keys", export=access_privacy.api_keys_export),
    PersonalData(key="console_actions", export=access_privacy.console_actions_export),
    # the provider subject and provisioned groups go with the user row (cascade)
    PersonalData(key="identity", export=identity_privacy.identity_export),
    PersonalData(
        key="sign_in_audit",
        export=identity_privacy.identity_events_export,
        erase=identity_privacy.identity_events_erase,
    ),
    PersonalData(
        key="conversations",
        export=chat_privacy.conversations_export,
        erase=chat_privacy.conversations_erase,
    ),
    PersonalData(key="feedback", export=chat_privacy.feedback_export),
    # notifications go with the answers they are about and with the user row (cascade)
    PersonalData(key="notifications", export=chat_privacy.notifications_export),
    PersonalData(
        key="chat_log", export=chat_privacy.chat_log_export, erase=chat_privacy.chat_log_erase
    ),
    PersonalData(
        key="audit_trail",
        export=canonical_privacy.record_changes_export,
        erase=canonical_privacy.record_changes_anonymise,
    ),
    PersonalData(
        key="document_versions",
        export=kb_privacy.document_versions_export,
        erase=kb_privacy.document_versions_anonymise,
    ),
)
