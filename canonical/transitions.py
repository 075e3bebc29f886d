"""The status workflow of canonical records: the one table of allowed transitions (pure)."""

from __future__ import annotations

from kb.models import CanonicalStatus

S = CanonicalStatus

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


def check_priority(value: object) -> int:
    """The priority as an int in 0..100, or InvalidValue."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidValue("retrieval_priority", "Priority must be a whole number from 0 to 100.")
    if not 0 <= value <= 100:
        raise InvalidValue(
            "retrieval_priority", f"Priority must be between 0 and 100 (got {value})."
        )
    return value
