"""The seam through which a curation layer takes over edits of a document.

kb owns the document and its single PATCH route. A layer above kb (the canonical app) registers
one `DocumentEditor` from its `AppConfig.ready()`: the extra input fields it accepts, the
function that applies a validated change (workflow checks, audit), and the function that audits
changes of the curated fields that kb's own write paths made (a re-ingest that changes a
record's status or priority, a soft delete). kb never imports that layer; without one, a PATCH
changes the metadata fields only and nothing is audited.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rest_framework import serializers

from kb.models import Document
from portal.access.models import AnyUser

# The fields kb itself lets a PATCH change (the rest of a document comes from its source).
METADATA_FIELDS = ("title", "tags", "summary", "owners")
# The curated fields whose every change reaches the curation layer, whatever path made it.
AUDITED_FIELDS = ("canonical_type", "canonical_status", "retrieval_priority", "deleted_at")


@dataclass(frozen=True)
class ChangeOrigin:
    """Who made a change through one of kb's own write paths, and through which door."""

    actor: AnyUser | None = None
    via: str = "service"  # "api" | "cli" | "service"


SERVICE_ORIGIN = ChangeOrigin()


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
    record: Callable[[Document, list[FieldChange], ChangeOrigin], None]


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


def report_changes(document: Document, before: dict[str, Any], origin: ChangeOrigin) -> None:
    """Hand the audited fields that changed since `before` to the curation layer (inside the
    writer's transaction, so the audit row and the change commit together)."""
    changes = [
        FieldChange(field=name, from_value=old, to_value=getattr(document, name))
        for name, old in before.items()
        if getattr(document, name) != old
    ]
    if changes and _editor is not None:
        _editor.record(document, changes, origin)
