"""The status workflow of canonical records: the one table of allowed transitions (pure)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kb.models import CanonicalStatus, CanonicalType

S = CanonicalStatus

TYPE_FIRST = "Give the document a canonical type first."
SUPERSEDE_WITH_SUCCESSOR = (
    "Supersede a record by naming its successor (the Supersede action or endpoint)."
)
KEEPS_TYPE = "A canonical record keeps its type; archive it instead."
REASON_REQUIRED = (
    "Give a reason for this status change; it is kept in the record's history for readers "
    "and auditors."
)
RESTORE_REASON_REQUIRED = (
    "Give a reason for restoring this version; it is kept in the record's history."
)

# from-status (None = a plain document with no status yet) -> statuses it may move to.
# `superseded` is only reached through record_supersede, which names the successor.
ALLOWED_TRANSITIONS: dict[str | None, frozenset[str]] = {
    None: frozenset({S.DRAFT, S.REVIEW, S.ACCEPTED}),
    S.DRAFT: frozenset({S.REVIEW, S.ACCEPTED, S.ARCHIVED}),
    S.REVIEW: frozenset({S.DRAFT, S.ACCEPTED, S.DEPRECATED, S.ARCHIVED, S.SUPERSEDED}),
    S.ACCEPTED: frozenset({S.REVIEW, S.DEPRECATED, S.SUPERSEDED, S.ARCHIVED}),
    S.DEPRECATED: frozenset({S.ACCEPTED, S.ARCHIVED, S.SUPERSEDED}),
    # A superseded record may be re-pointed to another successor, restored or archived.
    S.SUPERSEDED: frozenset({S.ACCEPTED, S.SUPERSEDED, S.ARCHIVED}),
    S.ARCHIVED: frozenset({S.ACCEPTED, S.DRAFT}),
}

# Statuses a record may be restored from, and the fallback when no earlier status is known.
RESTORABLE = frozenset({S.DEPRECATED, S.SUPERSEDED, S.ARCHIVED})
RESTORE_DEFAULT = S.ACCEPTED

# A successor must itself be live.
SUCCESSOR_STATUSES = frozenset({S.DRAFT, S.REVIEW, S.ACCEPTED})


class CurationError(ValueError):
    """A curation request that cannot be carried out; the message says why and what to do."""

    field = "non_field_errors"


class InvalidTransition(CurationError):
    """A status change the workflow does not allow."""

    field = "canonical_status"

    def __init__(self, from_status: str | None, to_status: str, hint: str = "") -> None:
        self.from_status = from_status
        self.to_status = to_status
        allowed = ", ".join(sorted(ALLOWED_TRANSITIONS.get(from_status, ()))) or "none"
        current = from_status or "no status"
        message = f"Cannot change status from {current} to {to_status}."
        message += f" {hint}" if hint else f" Allowed from {current}: {allowed}."
        super().__init__(message)


class InvalidValue(CurationError):
    """A field value outside its vocabulary or range."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(message)


class InvalidSuccessor(CurationError):
    """A supersede request whose successor is unsuitable."""

    field = "successor_id"


class NotEditable(CurationError):
    """The actor may not curate this record (reader, or another project)."""


def check_transition(from_status: str | None, to_status: str) -> None:
    """Raise InvalidTransition unless the table allows from_status -> to_status."""
    if to_status not in S.values:
        raise InvalidValue(
            "canonical_status",
            f"Unknown status {to_status!r}: use one of {', '.join(S.values)}.",
        )
    if from_status == to_status and to_status != S.SUPERSEDED:
        raise InvalidTransition(from_status, to_status, f"The record is already {to_status}.")
    if to_status not in ALLOWED_TRANSITIONS.get(from_status, frozenset()):
        raise InvalidTransition(from_status, to_status)


def allows(*, canonical_type: str | None, from_status: str | None, to_status: str) -> bool:
    """Whether a document may move to `to_status`: a canonical record (a plain document has no
    status to change) whose current status the table lets go there. What offers a status
    change (a conflict's resolutions, a proposal) asks this before offering it."""
    return bool(canonical_type) and to_status in ALLOWED_TRANSITIONS.get(
        from_status or None, frozenset()
    )


def check_reason(reason: str, *, message: str = REASON_REQUIRED) -> None:
    """Raise InvalidValue unless a status change, supersede or restore says why."""
    if not (reason or "").strip():
        raise InvalidValue("reason", message)


def check_priority(value: object) -> int:
    """The priority as an int in 0..100, or InvalidValue."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidValue("retrieval_priority", "Priority must be a whole number from 0 to 100.")
    if not 0 <= value <= 100:
        raise InvalidValue(
            "retrieval_priority", f"Priority must be between 0 and 100 (got {value})."
        )
    return value


def change_errors(
    *,
    canonical_type: str | None,
    canonical_status: str | None,
    changes: Mapping[str, Any],
    reason: str,
) -> dict[str, CurationError]:
    """The workflow's objections to `changes` on a record in this state (field -> error).

    The one home of the edit rules: the admin forms show these as field errors, the services
    raise the first one. A change of status is checked after a change of type, which turns a
    plain document into a draft; a real change of status needs a `reason`.
    """
    errors: dict[str, CurationError] = {}
    new_type = changes.get("canonical_type", canonical_type)
    if "canonical_type" in changes:
        if not new_type:
            message = KEEPS_TYPE if canonical_type else "Choose a canonical type."
            errors["canonical_type"] = InvalidValue("canonical_type", message)
        elif new_type not in CanonicalType.values:
            errors["canonical_type"] = InvalidValue(
                "canonical_type",
                f"Unknown type {new_type!r}: use one of {', '.join(CanonicalType.values)}.",
            )
    if "canonical_status" in changes:
        status = changes["canonical_status"]
        current = canonical_status
        implied_draft = bool(new_type and not current and "canonical_type" in changes)
        if implied_draft:
            current = S.DRAFT
        if not status:
            errors["canonical_status"] = InvalidValue(
                "canonical_status", "The status cannot be cleared."
            )
        elif not new_type:
            errors["canonical_status"] = InvalidTransition(current, status, TYPE_FIRST)
        elif status == S.SUPERSEDED:
            errors["canonical_status"] = InvalidTransition(
                current, status, SUPERSEDE_WITH_SUCCESSOR
            )
        elif not (implied_draft and status == current):
            try:
                check_transition(current, status)
                check_reason(reason)
            except CurationError as exc:
                errors[exc.field] = exc
    if "retrieval_priority" in changes:
        try:
            check_priority(changes["retrieval_priority"])
        except CurationError as exc:
            errors["retrieval_priority"] = exc
    return errors


def check_changes(
    *,
    canonical_type: str | None,
    canonical_status: str | None,
    changes: Mapping[str, Any],
    reason: str,
) -> None:
    """Raise the first of `change_errors` (the services' form of the same rules)."""
    errors = change_errors(
        canonical_type=canonical_type,
        canonical_status=canonical_status,
        changes=changes,
        reason=reason,
    )
    if errors:
        raise next(iter(errors.values()))
