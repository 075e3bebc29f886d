"""The seam through which a curation layer takes over edits of a document.

kb owns the document and its single PATCH route. A layer above kb (the canonical app) registers
one `DocumentEditor` from its `AppConfig.ready()`: the extra input fields it accepts and the
function that applies a validated change (workflow checks, audit). kb never imports that layer;
without one, a PATCH changes the metadata fields only.
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


@dataclass(frozen=True)
class DocumentEditor:
    """Extra PATCH fields plus the function that applies a validated change to a document.

    `apply` raises rest_framework's ValidationError for a change it refuses.
    """

    fields: Callable[[], dict[str, serializers.Field]]
    apply: Callable[[Document, dict[str, Any], AnyUser], Document]


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
