"""The seam through which a curation layer takes over edits of a document.

kb owns the document and its single PATCH route. A layer above kb (the canonical app) registers
one `DocumentEditor` from its `AppConfig.ready()`: the extra input fields it accepts, the
function that applies a validated change (workflow checks, audit), and the function that audits
changes of the curated fields that kb's own write paths made (a re-ingest that changes a
record's status or priority, a soft delete). kb never imports that layer, but it refuses to
run without one: the `kb.E001` system check stops the server, and a curated-field change that
found no layer to audit it raises instead of going unaudited.

`AuditContext` is the one type for "who changed it, through which door, why", used by kb's
write paths and every curation service alike.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from rest_framework import serializers

from kb.models import ChangeSource, Document
from portal.access.models import AnyUser

# The fields kb itself lets a PATCH change (the rest of a document comes from its source).
METADATA_FIELDS = ("title", "tags", "summary", "owners")
# The curated fields whose every change reaches the curation layer, whatever path made it.
AUDITED_FIELDS = ("canonical_type", "canonical_status", "retrieval_priority", "deleted_at")


@dataclass(frozen=True)
class AuditContext:
    """Who changes documents, through which door and why: one argument to every write path
    that can change a curated field (kb's ingest and delete, every curation service).

    `actor` is checked against the project roles; None is a system actor (command line,
    seeding, a background job without an uploader) named by `actor_name`.
    """

    actor: AnyUser | None
    source: str = ChangeSource.SERVICE
    reason: str = ""
    actor_name: str = ""

    def __post_init__(self) -> None:
        if self.source not in ChangeSource.values:
            raise ValueError(f"Unknown change source {self.source!r}")

    @property
    def name(self) -> str:
        """The name kept in the history (the user's, else the system actor's)."""
        if self.actor is not None:
            return self.actor.get_username() or "system"
        return self.actor_name or "system"


SYSTEM = AuditContext(actor=None)
# Who an audit row or a version names once its author's personal data is erased (GDPR art. 17).
ERASED_ACTOR = "erased user"


@dataclass(frozen=True)
class FieldChange:
    field: str
    from_value: Any
    to_value: Any


@dataclass(frozen=True)
class DocumentEditor:
    """Extra PATCH fields plus the function that applies a validated change to a document.

    `apply` raises rest_framework's ValidationError for a change it refuses.
    """

    fields: Callable[[], dict[str, serializers.Field]]
    apply: Callable[[Document, dict[str, Any], AnyUser], Document]
    record: Callable[[Document, list[FieldChange], AuditContext], None]


_editor: DocumentEditor | None = None


def register_editor(editor: DocumentEditor) -> None:
    """Install the curation layer's editor (once, from its AppConfig.ready)."""
    global _editor
    if _editor is not None and _editor != editor:
        raise RuntimeError("A document editor is already registered.")
    _editor = editor


def registered_editor() -> DocumentEditor | None:
    """The registered editor, or None when kb runs without a curation layer."""
    return _editor


def audited_values(document: Document) -> dict[str, Any]:
    """The audited fields of a row as stored now (taken before a write path changes them)."""
    return {name: getattr(document, name) for name in AUDITED_FIELDS}


def report_changes(document: Document, before: dict[str, Any], by: AuditContext) -> None:
    """Hand the audited fields that changed since `before` to the curation layer (inside the
    writer's transaction, so the audit row and the change commit together). Without a layer
    the change is refused: a curated field never changes unaudited."""
    changes = [
        FieldChange(field=name, from_value=old, to_value=getattr(document, name))
        for name, old in before.items()
        if getattr(document, name) != old
    ]
    if not changes:
        return
    if _editor is None:
        raise ImproperlyConfigured(NO_EDITOR)
    _editor.record(document, changes, by)


NO_EDITOR = (
    "No curation layer is installed to audit changes of curated fields (status, type, "
    "priority, deletion): add 'canonical' to the tenant apps."
)
