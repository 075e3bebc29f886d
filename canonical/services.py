"""Writes on canonical records. Every change is checked against the workflow and audited."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from canonical.models import ChangeSource, RecordChange
from canonical.transitions import (
    RESTORABLE,
    RESTORE_DEFAULT,
    SUCCESSOR_STATUSES,
    CurationError,
    InvalidSuccessor,
    InvalidTransition,
    InvalidValue,
    NotEditable,
    check_priority,
    check_transition,
)
from kb.models import (
    CanonicalStatus,
    CanonicalType,
    Document,
    Edge,
    EdgeType,
    EvidenceTier,
    GenerationSource,
)
from kb.services import document_update_metadata

CURATION_PROVENANCE = "curation"
TAG_MAX_LENGTH = 100

__all__ = [
    "CurationError",
    "evidence_tier_for",
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
]


def _as_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        return ", ".join(str(item) for item in value)
    return str(value)


def _audit(
    *,
    document: Document,
    field: str,
    from_value: Any,
    to_value: Any,
    actor: AbstractBaseUser | None,
    actor_name: str,
    reason: str,
    source: str,
) -> RecordChange:
    if source not in ChangeSource.values:
        raise ValueError(f"Unknown change source {source!r}")
    return RecordChange.objects.create(
        document=document,
        actor=actor if actor is not None and actor.pk else None,
        actor_name=(actor.get_username() if actor is not None else actor_name) or "system",
        field=field,
        from_value=_as_text(from_value),
        to_value=_as_text(to_value),
        reason=reason or "",
        source=source,
    )


def _locked(document: Document, actor: AbstractBaseUser | None) -> Document:
    """The document re-read under a row lock, after checking the actor may curate it."""
    base = Document.objects.alive() if actor is None else Document.objects.editable_by(actor)
    queryset = base.select_for_update().filter(pk=document.pk)
    locked = queryset.first()
    if locked is None:
        raise NotEditable("You may not curate this record.")
    return locked


def _sync(target: Document, source: Document) -> None:
    """Copy fresh column values into the caller's instance so it reflects the change."""
    for field in source._meta.concrete_fields:
        setattr(target, field.attname, getattr(source, field.attname))


def evidence_tier_for(document: Document) -> str:
    """The evidence tier a document earns: auto-generated, curated canonical, or plain."""
    if document.generation_source == GenerationSource.AUTO:
        return EvidenceTier.AUTO
    if document.canonical_type and document.canonical_status:
        return EvidenceTier.CANONICAL
    return EvidenceTier.DOCUMENT


def _retier(doc: Document, *, audit: dict[str, Any]) -> list[str]:
    tier = evidence_tier_for(doc)
    if tier == doc.evidence_tier:
        return []
    _audit(
        document=doc, field="evidence_tier", from_value=doc.evidence_tier, to_value=tier, **audit
    )
    doc.evidence_tier = tier
    return ["evidence_tier"]


def _change_status(doc: Document, to_status: str, *, audit: dict[str, Any]) -> list[str]:
    _audit(
        document=doc,
        field="canonical_status",
        from_value=doc.canonical_status,
        to_value=to_status,
        **audit,
    )
    doc.canonical_status = to_status
    return ["canonical_status", *_retier(doc, audit=audit)]


def _save(doc: Document, fields: Iterable[str]) -> None:
    doc.save(update_fields=sorted({*fields, "updated_at"}))


@transaction.atomic
def record_set_status(
    *,
    document: Document,
    status: str,
    actor: AbstractBaseUser | None,
    reason: str = "",
    source: str = ChangeSource.SERVICE,
    actor_name: str = "",
) -> Document:
    """Move a record to `status` if the workflow allows it (superseding needs a successor)."""
    doc = _locked(document, actor)
    if not doc.canonical_type:
        raise InvalidTransition(
            doc.canonical_status, status, "Give the document a canonical type first."
        )
    check_transition(doc.canonical_status, status)
    if status == CanonicalStatus.SUPERSEDED:
        raise InvalidTransition(
            doc.canonical_status, status, "Supersede the record by naming its successor."
        )
    audit = {"actor": actor, "actor_name": actor_name, "reason": reason, "source": source}
    if doc.canonical_status == CanonicalStatus.SUPERSEDED:
        _drop_supersede_edges(doc, audit=audit)
    _save(doc, _change_status(doc, status, audit=audit))
    _sync(document, doc)
    return document


def record_accept(*, document: Document, actor: AbstractBaseUser | None, **kwargs: Any) -> Document:
    """Accept a record: it becomes an active, trusted source for retrieval."""
    return record_set_status(
        document=document, status=CanonicalStatus.ACCEPTED, actor=actor, **kwargs
    )


def record_deprecate(
    *, document: Document, actor: AbstractBaseUser | None, **kwargs: Any
) -> Document:
    """Deprecate a record: still findable, ranked down by the deprecated penalty."""
    return record_set_status(
        document=document, status=CanonicalStatus.DEPRECATED, actor=actor, **kwargs
    )


def record_archive(
    *, document: Document, actor: AbstractBaseUser | None, **kwargs: Any
) -> Document:
    """Archive a record: kept for history, ranked down by the archived penalty."""
    return record_set_status(
        document=document, status=CanonicalStatus.ARCHIVED, actor=actor, **kwargs
    )


def _edge_ensure(
    *, source: Document, target: Document, edge_type: str, audit: dict[str, Any]
) -> bool:
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
            **audit,
        )
    return created


@transaction.atomic
def record_supersede(
    *,
    old: Document,
    new: Document,
    actor: AbstractBaseUser | None,
    reason: str = "",
    source: str = ChangeSource.SERVICE,
    actor_name: str = "",
) -> Document:
    """Mark `old` superseded by `new`: status change plus supersedes/invalidated_by edges."""
    doc = _locked(old, actor)
    if new.pk == doc.pk:
        raise InvalidSuccessor("A record cannot supersede itself.")
    base = Document.objects.alive() if actor is None else Document.objects.visible_to(actor)
    successor = base.filter(pk=new.pk).first()
    if successor is None:
        raise InvalidSuccessor("The successor does not exist or is not visible to you.")
    if successor.project_id != doc.project_id:
        raise InvalidSuccessor("The successor must be in the same project as the record.")
    if not doc.canonical_type:
        raise InvalidTransition(
            doc.canonical_status,
            CanonicalStatus.SUPERSEDED,
            "Give the document a canonical type first.",
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
    audit = {"actor": actor, "actor_name": actor_name, "reason": reason, "source": source}
    fields: list[str] = []
    if doc.canonical_status != CanonicalStatus.SUPERSEDED:
        fields = _change_status(doc, CanonicalStatus.SUPERSEDED, audit=audit)
    _audit(document=doc, field="superseded_by", from_value="", to_value=successor.slug, **audit)
    _edge_ensure(source=successor, target=doc, edge_type=EdgeType.SUPERSEDES, audit=audit)
    _edge_ensure(source=doc, target=successor, edge_type=EdgeType.INVALIDATED_BY, audit=audit)
    _save(doc, fields)
    _sync(old, doc)
    return old


def _drop_supersede_edges(doc: Document, *, audit: dict[str, Any]) -> None:
    """A record that is live again no longer points at (or is pointed at by) a successor."""
    for edge in Edge.objects.filter(from_document=doc, edge_type=EdgeType.INVALIDATED_BY):
        _record_edge_delete(edge, audit=audit)
    edges_in = Edge.objects.filter(to_document=doc, edge_type=EdgeType.SUPERSEDES)
    for edge in edges_in.select_related("from_document"):
        _record_edge_delete(edge, audit=audit)


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
    actor: AbstractBaseUser | None,
    reason: str = "",
    source: str = ChangeSource.SERVICE,
    actor_name: str = "",
) -> Document:
    """Bring back a deprecated, superseded or archived record to its previous live status."""
    doc = _locked(document, actor)
    if doc.canonical_status not in RESTORABLE:
        current = doc.canonical_status or "no status"
        raise InvalidTransition(
            doc.canonical_status,
            RESTORE_DEFAULT,
            f"Only deprecated, superseded or archived records can be restored (this one has {current}).",
        )
    target = _previous_status(doc)
    audit = {"actor": actor, "actor_name": actor_name, "reason": reason, "source": source}
    if doc.canonical_status == CanonicalStatus.SUPERSEDED:
        _drop_supersede_edges(doc, audit=audit)
    _save(doc, _change_status(doc, target, audit=audit))
    _sync(document, doc)
    return document


@transaction.atomic
def record_set_priority(
    *,
    document: Document,
    priority: int,
    actor: AbstractBaseUser | None,
    reason: str = "",
    source: str = ChangeSource.SERVICE,
    actor_name: str = "",
) -> Document:
    """Set the retrieval priority (0-100); takes effect in the next search."""
    value = check_priority(priority)
    doc = _locked(document, actor)
    if doc.retrieval_priority != value:
        _audit(
            document=doc,
            field="retrieval_priority",
            from_value=doc.retrieval_priority,
            to_value=value,
            actor=actor,
            actor_name=actor_name,
            reason=reason,
            source=source,
        )
        doc.retrieval_priority = value
        _save(doc, ["retrieval_priority"])
    _sync(document, doc)
    return document


@transaction.atomic
def record_set_type(
    *,
    document: Document,
    canonical_type: str,
    actor: AbstractBaseUser | None,
    reason: str = "",
    source: str = ChangeSource.SERVICE,
    actor_name: str = "",
) -> Document:
    """Set the canonical type; a plain document becomes a draft record."""
    if canonical_type not in CanonicalType.values:
        raise InvalidValue(
            "canonical_type",
            f"Unknown type {canonical_type!r}: use one of {', '.join(CanonicalType.values)}.",
        )
    doc = _locked(document, actor)
    audit = {"actor": actor, "actor_name": actor_name, "reason": reason, "source": source}
    fields: list[str] = []
    if doc.canonical_type != canonical_type:
        _audit(
            document=doc,
            field="canonical_type",
            from_value=doc.canonical_type,
            to_value=canonical_type,
            **audit,
        )
        doc.canonical_type = canonical_type
        fields.append("canonical_type")
        if not doc.canonical_status:
            fields += _change_status(doc, CanonicalStatus.DRAFT, audit=audit)
        fields += _retier(doc, audit=audit)
        _save(doc, fields)
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


METADATA_FIELDS = ("title", "tags", "summary", "owners")


@transaction.atomic
def record_update_metadata(
    *,
    document: Document,
    actor: AbstractBaseUser | None,
    reason: str = "",
    source: str = ChangeSource.SERVICE,
    actor_name: str = "",
    **changes: Any,
) -> Document:
    """Change title/tags/summary/owners through kb's service; one audit row per changed field."""
    unknown = sorted(set(changes) - set(METADATA_FIELDS))
    if unknown:
        raise InvalidValue(unknown[0], "This field cannot be changed here.")
    if "tags" in changes:
        changes["tags"] = _clean_tags(changes["tags"])
    doc = _locked(document, actor)
    before = {name: getattr(doc, name) for name in changes}
    document_update_metadata(document=doc, **changes)
    for name, old_value in before.items():
        new_value = getattr(doc, name)
        if new_value != old_value:
            _audit(
                document=doc,
                field=name,
                from_value=old_value,
                to_value=new_value,
                actor=actor,
                actor_name=actor_name,
                reason=reason,
                source=source,
            )
    _sync(document, doc)
    return document


def record_set_tags(
    *, document: Document, tags: Iterable[str], actor: AbstractBaseUser | None, **kwargs: Any
) -> Document:
    """Replace the record's tags (normalised by kb: trimmed, lower-case, de-duplicated)."""
    return record_update_metadata(document=document, tags=list(tags), actor=actor, **kwargs)


@transaction.atomic
def record_promote(
    *,
    document: Document,
    actor: AbstractBaseUser | None,
    reason: str = "",
    source: str = ChangeSource.SERVICE,
    actor_name: str = "",
) -> Document:
    """Promote an auto-generated record to human-curated; the evidence tier follows."""
    doc = _locked(document, actor)
    if doc.generation_source != GenerationSource.AUTO:
        raise InvalidValue("generation_source", "Only auto-generated records can be promoted.")
    audit = {"actor": actor, "actor_name": actor_name, "reason": reason, "source": source}
    _audit(
        document=doc,
        field="generation_source",
        from_value=doc.generation_source,
        to_value=GenerationSource.HUMAN,
        **audit,
    )
    doc.generation_source = GenerationSource.HUMAN
    _save(doc, ["generation_source", *_retier(doc, audit=audit)])
    _sync(document, doc)
    return document


def _record_edge_delete(edge: Edge, *, audit: dict[str, Any]) -> None:
    _audit(
        document=edge.from_document,
        field="edge",
        from_value=f"{edge.edge_type} -> {edge.to_slug}",
        to_value="",
        **audit,
    )
    edge.delete()


@transaction.atomic
def record_edge_add(
    *,
    document: Document,
    target: Document,
    edge_type: str,
    actor: AbstractBaseUser | None,
    reason: str = "",
    source: str = ChangeSource.SERVICE,
    actor_name: str = "",
) -> Edge:
    """Link the record to another record of the same project."""
    if edge_type not in EdgeType.values:
        raise InvalidValue("edge_type", f"Unknown edge type {edge_type!r}.")
    if edge_type in {EdgeType.SUPERSEDES, EdgeType.INVALIDATED_BY}:
        raise InvalidValue("edge_type", "Use supersede to link a record to its successor.")
    doc = _locked(document, actor)
    base = Document.objects.alive() if actor is None else Document.objects.visible_to(actor)
    resolved = base.filter(pk=target.pk, project_id=doc.project_id).first()
    if resolved is None or resolved.pk == doc.pk:
        raise InvalidValue("target", "Choose another record of the same project.")
    audit = {"actor": actor, "actor_name": actor_name, "reason": reason, "source": source}
    if not _edge_ensure(source=doc, target=resolved, edge_type=edge_type, audit=audit):
        raise InvalidValue("target", f"The record already {edge_type} {resolved.slug}.")
    return Edge.objects.get(from_document=doc, to_slug=resolved.slug, edge_type=edge_type)


@transaction.atomic
def record_edge_remove(
    *,
    edge: Edge,
    actor: AbstractBaseUser | None,
    reason: str = "",
    source: str = ChangeSource.SERVICE,
    actor_name: str = "",
) -> None:
    """Remove an outgoing edge of a record the actor may curate."""
    _locked(edge.from_document, actor)
    audit = {"actor": actor, "actor_name": actor_name, "reason": reason, "source": source}
    _record_edge_delete(edge, audit=audit)


@transaction.atomic
def record_apply_changes(
    *,
    document: Document,
    changes: dict[str, Any],
    actor: AbstractBaseUser | None,
    reason: str = "",
    source: str = ChangeSource.SERVICE,
    actor_name: str = "",
) -> Document:
    """Apply an edit form or PATCH in one transaction: metadata, type, priority, then status."""
    audit = {"actor": actor, "actor_name": actor_name, "reason": reason, "source": source}
    metadata = {name: changes[name] for name in METADATA_FIELDS if name in changes}
    if metadata:
        record_update_metadata(document=document, **metadata, **audit)
    if changes.get("canonical_type"):
        record_set_type(document=document, canonical_type=changes["canonical_type"], **audit)
    if "retrieval_priority" in changes:
        record_set_priority(document=document, priority=changes["retrieval_priority"], **audit)
    status = changes.get("canonical_status")
    if status and status != document.canonical_status:
        record_set_status(document=document, status=status, **audit)
    return document
