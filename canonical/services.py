"""Writes on canonical records. Every change is checked against the workflow and audited."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import QuerySet

from canonical.models import RecordChange
from canonical.transitions import (
    RESTORABLE,
    RESTORE_DEFAULT,
    RESTORE_REASON_REQUIRED,
    SUCCESSOR_STATUSES,
    TYPE_FIRST,
    CurationError,
    InvalidSuccessor,
    InvalidTransition,
    InvalidValue,
    NotEditable,
    check_changes,
    check_reason,
    check_transition,
)
from kb.curation import METADATA_FIELDS, AuditContext, FieldChange
from kb.embeddings import EmbeddingError
from kb.models import (
    CanonicalStatus,
    Document,
    DocumentVersion,
    Edge,
    EdgeType,
    GenerationSource,
    evidence_tier_for,
)
from kb.services import document_update_metadata, document_version_restore
from kb.versions import document_version_record, versions_coalesced, versions_ensure

CURATION_PROVENANCE = "curation"
TAG_MAX_LENGTH = 100

__all__ = [
    "AuditContext",
    "CurationError",
    "record_accept",
    "record_apply_changes",
    "record_archive",
    "record_deprecate",
    "record_edge_add",
    "record_edge_remove",
    "record_promote",
    "record_restore",
    "record_set_priority",
    "record_set_status",
    "record_set_tags",
    "record_set_type",
    "record_supersede",
    "record_update_metadata",
    "record_version_restore",
]


def _as_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        return ", ".join(str(item) for item in value)
    return str(value)


def _audit(
    *, document: Document, field: str, from_value: Any, to_value: Any, by: AuditContext
) -> RecordChange:
    return RecordChange.objects.create(
        document=document,
        actor=by.actor if isinstance(by.actor, get_user_model()) and by.actor.pk else None,
        actor_name=by.name,
        field=field,
        from_value=_as_text(from_value),
        to_value=_as_text(to_value),
        reason=by.reason,
        source=by.source,
    )


def _locked(document: Document, by: AuditContext) -> Document:
    """The document re-read under a row lock, after checking the actor may curate it."""
    actor = by.actor
    base = Document.objects.alive() if actor is None else Document.objects.editable_by(actor)
    queryset = base.select_for_update().filter(pk=document.pk)
    locked = queryset.first()
    if locked is None:
        raise NotEditable("You may not curate this record.")
    versions_ensure([locked])  # the state this change replaces is kept first
    return locked


def _readable(by: AuditContext) -> QuerySet[Document]:
    """Documents the actor may read (a system actor reads every live document)."""
    return Document.objects.alive() if by.actor is None else Document.objects.visible_to(by.actor)


def _sync(target: Document, source: Document) -> None:
    """Copy fresh column values into the caller's instance so it reflects the change."""
    for field in source._meta.concrete_fields:
        setattr(target, field.attname, getattr(source, field.attname))


def _retier(doc: Document, *, by: AuditContext) -> list[str]:
    tier = evidence_tier_for(
        canonical_type=doc.canonical_type,
        canonical_status=doc.canonical_status,
        generation_source=doc.generation_source,
    )
    if tier == doc.evidence_tier:
        return []
    _audit(document=doc, field="evidence_tier", from_value=doc.evidence_tier, to_value=tier, by=by)
    doc.evidence_tier = tier
    return ["evidence_tier"]


def _change_status(doc: Document, to_status: str, *, by: AuditContext) -> list[str]:
    _audit(
        document=doc,
        field="canonical_status",
        from_value=doc.canonical_status,
        to_value=to_status,
        by=by,
    )
    doc.canonical_status = to_status
    return ["canonical_status", *_retier(doc, by=by)]


def _save(doc: Document, fields: Iterable[str], *, by: AuditContext) -> None:
    """The one write of a curated change: the row, then its new version (same transaction)."""
    doc.save(update_fields=sorted({*fields, "updated_at"}))
    document_version_record(document=doc, origin=by)


@transaction.atomic
def record_set_status(
    *,
    document: Document,
    status: str,
    by: AuditContext,
) -> Document:
    """Move a record to `status` if the workflow allows it (superseding needs a successor)."""
    doc = _locked(document, by)
    check_changes(
        canonical_type=doc.canonical_type,
        canonical_status=doc.canonical_status,
        changes={"canonical_status": status},
        reason=by.reason,
    )
    if doc.canonical_status == CanonicalStatus.SUPERSEDED:
        _drop_supersede_edges(doc, by=by)
    _save(doc, _change_status(doc, status, by=by), by=by)
    _sync(document, doc)
    return document


def record_accept(*, document: Document, by: AuditContext) -> Document:
    """Accept a record: it becomes an active, trusted source for retrieval."""
    return record_set_status(document=document, status=CanonicalStatus.ACCEPTED, by=by)


def record_deprecate(*, document: Document, by: AuditContext) -> Document:
    """Deprecate a record: still findable, ranked down by the deprecated penalty."""
    return record_set_status(document=document, status=CanonicalStatus.DEPRECATED, by=by)


def record_archive(*, document: Document, by: AuditContext) -> Document:
    """Archive a record: kept for history, ranked down by the archived penalty."""
    return record_set_status(document=document, status=CanonicalStatus.ARCHIVED, by=by)


def _edge_ensure(*, source: Document, target: Document, edge_type: str, by: AuditContext) -> bool:
    edge, created = Edge.objects.get_or_create(
        from_document=source,
        to_slug=target.slug,
        edge_type=edge_type,
        defaults={"to_document": target, "provenance": CURATION_PROVENANCE},
    )
    if not created and edge.to_document_id != target.pk:
        edge.to_document = target
        edge.save(update_fields=["to_document"])
        created = True
    if created:
        _audit(
            document=source,
            field="edge",
            from_value="",
            to_value=f"{edge_type} -> {target.slug}",
            by=by,
        )
    return created


@transaction.atomic
def record_supersede(
    *,
    old: Document,
    new: Document,
    by: AuditContext,
) -> Document:
    """Mark `old` superseded by `new`: status change plus supersedes/invalidated_by edges."""
    doc = _locked(old, by)
    if new.pk == doc.pk:
        raise InvalidSuccessor("A record cannot supersede itself.")
    base = _readable(by)
    successor = base.filter(pk=new.pk).first()
    if successor is None:
        raise InvalidSuccessor("The successor does not exist or is not visible to you.")
    if successor.project_id != doc.project_id:
        raise InvalidSuccessor("The successor must be in the same project as the record.")
    if not doc.canonical_type:
        raise InvalidTransition(
            doc.canonical_status,
            CanonicalStatus.SUPERSEDED,
            TYPE_FIRST,
        )
    if successor.canonical_status and successor.canonical_status not in SUCCESSOR_STATUSES:
        raise InvalidSuccessor(
            f"The successor {successor.slug} is {successor.canonical_status}; "
            "choose a draft, review or accepted record."
        )
    already = Edge.objects.filter(
        from_document=doc, to_document=successor, edge_type=EdgeType.INVALIDATED_BY
    ).exists()
    if doc.canonical_status == CanonicalStatus.SUPERSEDED and already:
        raise InvalidSuccessor(f"The record is already superseded by {successor.slug}.")
    if Edge.objects.filter(
        from_document=doc, to_document=successor, edge_type=EdgeType.SUPERSEDES
    ).exists():
        raise InvalidSuccessor(
            f"{successor.slug} is superseded by this record; a cycle is not allowed."
        )
    check_transition(doc.canonical_status, CanonicalStatus.SUPERSEDED)
    check_reason(by.reason)
    fields: list[str] = []
    if doc.canonical_status != CanonicalStatus.SUPERSEDED:
        fields = _change_status(doc, CanonicalStatus.SUPERSEDED, by=by)
    _audit(document=doc, field="superseded_by", from_value="", to_value=successor.slug, by=by)
    _edge_ensure(source=successor, target=doc, edge_type=EdgeType.SUPERSEDES, by=by)
    _edge_ensure(source=doc, target=successor, edge_type=EdgeType.INVALIDATED_BY, by=by)
    _save(doc, fields, by=by)
    _sync(old, doc)
    return old


def _drop_supersede_edges(doc: Document, *, by: AuditContext) -> None:
    """A record that is live again no longer points at (or is pointed at by) a successor."""
    for edge in Edge.objects.filter(from_document=doc, edge_type=EdgeType.INVALIDATED_BY):
        _record_edge_delete(edge, by=by)
    edges_in = Edge.objects.filter(to_document=doc, edge_type=EdgeType.SUPERSEDES)
    for edge in edges_in.select_related("from_document"):
        _record_edge_delete(edge, by=by)


def _previous_status(doc: Document) -> str:
    last = (
        RecordChange.objects.filter(
            document=doc, field="canonical_status", to_value=doc.canonical_status
        )
        .order_by("-at", "-id")
        .first()
    )
    previous = last.from_value if last else ""
    if previous in {CanonicalStatus.DRAFT, CanonicalStatus.REVIEW, CanonicalStatus.ACCEPTED}:
        return previous
    return RESTORE_DEFAULT


@transaction.atomic
def record_restore(
    *,
    document: Document,
    by: AuditContext,
) -> Document:
    """Bring back a deprecated, superseded or archived record to its previous live status."""
    doc = _locked(document, by)
    if doc.canonical_status not in RESTORABLE:
        current = doc.canonical_status or "no status"
        raise InvalidTransition(
            doc.canonical_status,
            RESTORE_DEFAULT,
            f"Only deprecated, superseded or archived records can be restored (this one has {current}).",
        )
    check_reason(by.reason)
    target = _previous_status(doc)
    if doc.canonical_status == CanonicalStatus.SUPERSEDED:
        _drop_supersede_edges(doc, by=by)
    _save(doc, _change_status(doc, target, by=by), by=by)
    _sync(document, doc)
    return document


@transaction.atomic
def record_set_priority(
    *,
    document: Document,
    priority: int,
    by: AuditContext,
) -> Document:
    """Set the retrieval priority (0-100); takes effect in the next search."""
    doc = _locked(document, by)
    check_changes(
        canonical_type=doc.canonical_type,
        canonical_status=doc.canonical_status,
        changes={"retrieval_priority": priority},
        reason=by.reason,
    )
    value = priority
    if doc.retrieval_priority != value:
        _audit(
            document=doc,
            field="retrieval_priority",
            from_value=doc.retrieval_priority,
            to_value=value,
            by=by,
        )
        doc.retrieval_priority = value
        _save(doc, ["retrieval_priority"], by=by)
    _sync(document, doc)
    return document


@transaction.atomic
def record_set_type(
    *,
    document: Document,
    canonical_type: str,
    by: AuditContext,
) -> Document:
    """Set the canonical type; a plain document becomes a draft record."""
    doc = _locked(document, by)
    check_changes(
        canonical_type=doc.canonical_type,
        canonical_status=doc.canonical_status,
        changes={"canonical_type": canonical_type},
        reason=by.reason,
    )
    fields: list[str] = []
    if doc.canonical_type != canonical_type:
        _audit(
            document=doc,
            field="canonical_type",
            from_value=doc.canonical_type,
            to_value=canonical_type,
            by=by,
        )
        doc.canonical_type = canonical_type
        fields.append("canonical_type")
        if not doc.canonical_status:
            fields += _change_status(doc, CanonicalStatus.DRAFT, by=by)
        fields += _retier(doc, by=by)
        _save(doc, fields, by=by)
    _sync(document, doc)
    return document


def _clean_tags(tags: Iterable[str]) -> list[str]:
    cleaned: list[str] = []
    for tag in tags:
        if not isinstance(tag, str):
            raise InvalidValue("tags", "Tags must be strings.")
        tag = tag.strip()
        if not tag:
            continue
        if len(tag) > TAG_MAX_LENGTH:
            raise InvalidValue("tags", f"Tags are at most {TAG_MAX_LENGTH} characters.")
        if tag not in cleaned:
            cleaned.append(tag)
    return cleaned


@transaction.atomic
def record_update_metadata(
    *,
    document: Document,
    by: AuditContext,
    **changes: Any,
) -> Document:
    """Change title/tags/summary/owners through kb's service; one audit row per changed field."""
    unknown = sorted(set(changes) - set(METADATA_FIELDS))
    if unknown:
        raise InvalidValue(unknown[0], "This field cannot be changed here.")
    if "tags" in changes:
        changes["tags"] = _clean_tags(changes["tags"])
    doc = _locked(document, by)
    before = {name: getattr(doc, name) for name in changes}
    document_update_metadata(document=doc, **changes, origin=by)
    for name, old_value in before.items():
        new_value = getattr(doc, name)
        if new_value != old_value:
            _audit(
                document=doc,
                field=name,
                from_value=old_value,
                to_value=new_value,
                by=by,
            )
    _sync(document, doc)
    return document


def record_set_tags(*, document: Document, tags: Iterable[str], by: AuditContext) -> Document:
    """Replace the record's tags (normalised by kb: trimmed, lower-case, de-duplicated)."""
    return record_update_metadata(document=document, tags=list(tags), by=by)


@transaction.atomic
def record_promote(
    *,
    document: Document,
    by: AuditContext,
) -> Document:
    """Promote an auto-generated record to human-curated; the evidence tier follows."""
    doc = _locked(document, by)
    if doc.generation_source != GenerationSource.AUTO:
        raise InvalidValue("generation_source", "Only auto-generated records can be promoted.")
    _audit(
        document=doc,
        field="generation_source",
        from_value=doc.generation_source,
        to_value=GenerationSource.HUMAN,
        by=by,
    )
    doc.generation_source = GenerationSource.HUMAN
    _save(doc, ["generation_source", *_retier(doc, by=by)], by=by)
    _sync(document, doc)
    return document


def _record_edge_delete(edge: Edge, *, by: AuditContext) -> None:
    _audit(
        document=edge.from_document,
        field="edge",
        from_value=f"{edge.edge_type} -> {edge.to_slug}",
        to_value="",
        by=by,
    )
    edge.delete()


@transaction.atomic
def record_edge_add(
    *,
    document: Document,
    target: Document,
    edge_type: str,
    by: AuditContext,
) -> Edge:
    """Link the record to another record of the same project."""
    if edge_type not in EdgeType.values:
        raise InvalidValue("edge_type", f"Unknown edge type {edge_type!r}.")
    if edge_type in {EdgeType.SUPERSEDES, EdgeType.INVALIDATED_BY}:
        raise InvalidValue("edge_type", "Use supersede to link a record to its successor.")
    doc = _locked(document, by)
    base = _readable(by)
    resolved = base.filter(pk=target.pk, project_id=doc.project_id).first()
    if resolved is None or resolved.pk == doc.pk:
        raise InvalidValue("target", "Choose another record of the same project.")
    if not _edge_ensure(source=doc, target=resolved, edge_type=edge_type, by=by):
        raise InvalidValue("target", f"The record already {edge_type} {resolved.slug}.")
    return Edge.objects.get(from_document=doc, to_slug=resolved.slug, edge_type=edge_type)


@transaction.atomic
def record_edge_remove(
    *,
    edge: Edge,
    by: AuditContext,
) -> None:
    """Remove an outgoing edge of a record the actor may curate."""
    _locked(edge.from_document, by)
    _record_edge_delete(edge, by=by)


@transaction.atomic
def record_apply_changes(
    *,
    document: Document,
    changes: dict[str, Any],
    by: AuditContext,
) -> Document:
    """Apply an edit form or PATCH in one transaction: metadata, type, priority, then status."""
    with versions_coalesced():  # one version for the whole edit
        return _apply_changes(document=document, changes=changes, by=by)


def _apply_changes(*, document: Document, changes: dict[str, Any], by: AuditContext) -> Document:
    checked = dict(changes)
    if checked.get("canonical_status") == document.canonical_status:
        del checked["canonical_status"]  # unchanged: nothing to check or write
    check_changes(
        canonical_type=document.canonical_type,
        canonical_status=document.canonical_status,
        changes=checked,
        reason=by.reason,
    )
    metadata = {name: changes[name] for name in METADATA_FIELDS if name in changes}
    if metadata:
        record_update_metadata(document=document, **metadata, by=by)
    if changes.get("canonical_type"):
        record_set_type(document=document, canonical_type=changes["canonical_type"], by=by)
    if "retrieval_priority" in changes:
        record_set_priority(document=document, priority=changes["retrieval_priority"], by=by)
    status = changes.get("canonical_status")
    if status and status != document.canonical_status:
        record_set_status(document=document, status=status, by=by)
    return document


def record_audit_kb_changes(
    document: Document, changes: list[FieldChange], origin: AuditContext
) -> None:
    """Audit the curated fields kb's own write paths changed (a re-ingest, a soft delete)."""
    for change in changes:
        if change.field == "deleted_at":
            reason = (
                "document deleted" if change.to_value else "restored by re-ingesting its source"
            )
        else:
            # a restore of an old version names the editor's reason; a re-ingest its source
            reason = origin.reason or "set by its source document (re-ingested)"
        by = replace(origin, reason=reason)
        _audit(
            document=document,
            field=change.field,
            from_value=change.from_value,
            to_value=change.to_value,
            by=by,
        )


@transaction.atomic
def record_version_restore(*, document: Document, number: int, by: AuditContext) -> Document:
    """Make version `number` of a record its newest version again: its text and fields go
    through kb's ingest write path (chunked, embedded, audited), with a reason."""
    doc = _locked(document, by)
    check_reason(by.reason, message=RESTORE_REASON_REQUIRED)
    version = DocumentVersion.objects.filter(document=doc, number=number).select_related("text")
    old = version.first()
    if old is None:
        raise InvalidValue("version", f"This document has no version {number}.")
    if number == doc.current_version:
        raise InvalidValue("version", f"Version {number} is already the current version.")
    previous = doc.current_version
    try:
        outcome = document_version_restore(document=doc, version=old, origin=by)
    except EmbeddingError as exc:
        raise CurationError(
            "The version could not be restored: the embedding provider is unavailable. "
            "Try again later."
        ) from exc
    restored = outcome.document
    assert restored is not None  # a write always returns its document
    _audit(
        document=doc,
        field="version",
        from_value=previous,
        to_value=f"{restored.current_version} (restored from version {number})",
        by=by,
    )
    doc.refresh_from_db()
    _sync(document, doc)
    return document
