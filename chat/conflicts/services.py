"""Conflicts: the check that finds them (one document against the rest of its project, on the
queue) and the editors' one-click resolutions, through the curation services.

The check (`conflicts_check`) compares the passages of one document with those of the other
documents of its project that may contradict it: an accepted record against every live
document, anything else against the accepted records. Rejected approaches and stale records
(superseded, deprecated, archived) state no current value and take no part. Candidates are
the nearest chunks by embedding (pgvector, MAX_NEIGHBOURS per chunk); the detector
(`chat.conflicts.detect`) judges their passages. Each pair found is kept once: an open one
is seen again, a dismissed or resolved one stays as it is (not raised again), and an open
one of this document the check no longer finds (the record was edited to agree, or the
document went stale) is closed as gone.

kb queues the check for every document a new version is kept for (`kb.drift`, the watcher's
`kept`), in the writer's transaction; `conflicts_check_project` runs it over a project.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Collection

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from canonical.services import record_archive, record_deprecate
from canonical.transitions import CurationError
from chat.conflicts.detect import Finding, Passage, conflicts, passages
from chat.conflicts.detect import conflict as conflict_of
from chat.models import Conflict, ConflictState
from kb.curation import AuditContext
from kb.models import (
    STALE_STATUSES,
    CanonicalStatus,
    CanonicalType,
    ChangeSource,
    Chunk,
    Document,
)
from portal.access.models import AnyUser
from portal.tenants.selectors import current_schema

# Nearest chunks of the other documents compared with each chunk of the checked one.
MAX_NEIGHBOURS = 8
REASON_MAX_CHARS = 2000


class ConflictError(ValueError):
    """A resolution that cannot be carried out; the message says why."""


def _checkable(document: Document) -> bool:
    """A document whose passages state current values: live, not stale, no rejected approach."""
    return (
        document.deleted_at is None
        and document.canonical_status not in STALE_STATUSES
        and document.canonical_type != CanonicalType.REJECTED_APPROACH
    )


def _accepted(document: Document) -> bool:
    return bool(document.canonical_type) and document.canonical_status == CanonicalStatus.ACCEPTED


def _counterparts(document: Document) -> QuerySet[Document]:
    """The documents of its project that may contradict `document`."""
    others = (
        Document.objects.alive()
        .filter(project_id=document.project_id)
        .exclude(pk=document.pk)
        .exclude(canonical_status__in=STALE_STATUSES)
        .exclude(canonical_type=CanonicalType.REJECTED_APPROACH)
    )
    if _accepted(document):
        return others
    return others.filter(canonical_status=CanonicalStatus.ACCEPTED, canonical_type__isnull=False)


def conflict_checks_enqueue(document_ids: Collection[int]) -> None:
    """Queue a conflicts check for each kept document that may conflict with another of its
    project, or has open conflicts to close (in the writer's transaction)."""
    if not settings.CHAT["CONFLICTS_ON_INGEST"]:
        return
    from chat.tasks import conflicts_check_task

    schema = current_schema()
    ids = sorted(document_ids)
    open_pairs = (
        Conflict.objects.filter(state=ConflictState.OPEN)
        .filter(Q(record_id__in=ids) | Q(other_id__in=ids))
        .values_list("record_id", "other_id")
    )
    open_ids = {pk for pair in open_pairs for pk in pair}
    for document in Document.objects.filter(pk__in=ids).order_by("pk"):
        due = _checkable(document) and _counterparts(document).exists()
        if due or document.pk in open_ids:
            conflicts_check_task.enqueue(schema_name=schema, document_id=document.pk)


def _neighbours(document: Document, counterpart_ids: list[int]) -> dict[int, set[int]]:
    """For each chunk of the document, the nearest chunks (by embedding) of the counterparts.

    Exact, over the counterparts' chunks only: the HNSW index reads the nearest chunks of
    the whole tenant and filters them afterwards (pgvector 0.6), so in a tenant whose other
    projects hold nearer chunks it found none of the project's and a conflict went unseen
    (the planner picks that plan or not by the table's statistics)."""
    if not counterpart_ids:
        return {}
    table = Chunk._meta.db_table
    sql = (
        f"WITH theirs AS MATERIALIZED ("
        f"  SELECT o.id, o.embedding FROM {table} o WHERE o.document_id = ANY(%s) "
        f"  AND o.embedding IS NOT NULL"
        f") SELECT c.id, n.id FROM {table} c CROSS JOIN LATERAL ("
        f"  SELECT t.id FROM theirs t ORDER BY t.embedding <=> c.embedding, t.id LIMIT %s"
        f") n WHERE c.document_id = %s AND c.embedding IS NOT NULL"
    )
    near: dict[int, set[int]] = defaultdict(set)
    with connection.cursor() as cursor:
        cursor.execute(sql, [counterpart_ids, MAX_NEIGHBOURS, document.pk])
        for mine, theirs in cursor.fetchall():
            near[mine].add(theirs)
    return near


def _passages(chunk: Chunk) -> list[Passage]:
    section = chunk.heading_path.split(" > ")[-1] if chunk.heading_path else ""
    return passages(
        chunk.text,
        document_id=chunk.document_id,
        section=section,
        chunk_id=chunk.pk,
        continues=chunk.chunk_order > 0,
    )


def _key(finding: Finding) -> str:
    text = f"{finding.record.text}\x00{finding.other.text}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _findings(document: Document) -> list[Finding]:
    """Every conflict between the document and its counterparts, the record's side first."""
    counterparts = {d.pk: d for d in _counterparts(document)}
    near = _neighbours(document, sorted(counterparts))
    wanted = set(near) | {pk for ids in near.values() for pk in ids}
    chunks = {c.pk: c for c in Chunk.objects.filter(pk__in=wanted)}
    units = {pk: _passages(chunk) for pk, chunk in chunks.items()}
    mine = [p for pk in sorted(near) for p in units.get(pk, [])]
    theirs: dict[int, list[Passage]] = defaultdict(list)
    for pk in sorted({pk for ids in near.values() for pk in ids}):
        chunk = chunks[pk]
        theirs[chunk.document_id].extend(units.get(pk, []))
    found: list[Finding] = []
    for other_id, other_passages in sorted(theirs.items()):
        other = counterparts[other_id]
        # the accepted record is the record's side (of two, the older one)
        record_first = _accepted(document) and (not _accepted(other) or document.pk < other.pk)
        if record_first:
            found.extend(conflicts(mine, other_passages))
        else:
            found.extend(conflicts(other_passages, mine))
    return found


@transaction.atomic
def conflicts_check(*, document_id: int) -> dict[str, int]:
    """Find the conflicts of one document with the rest of its project (idempotent):
    how many were raised, seen again, and closed as gone."""
    document = Document.objects.select_related("project").filter(pk=document_id).first()
    if document is None:
        return {}
    involving = Conflict.objects.filter(Q(record=document) | Q(other=document))
    now = timezone.now()
    if not _checkable(document):
        gone = involving.filter(state=ConflictState.OPEN).update(
            state=ConflictState.GONE, resolved_at=now, last_seen_at=now
        )
        return {"raised": 0, "seen": 0, "gone": gone}
    raised = seen = 0
    kept: set[int] = set()
    for finding in _findings(document):
        row, created = Conflict.objects.get_or_create(
            record_id=finding.record.document_id,
            other_id=finding.other.document_id,
            key=_key(finding),
            defaults={
                "project_id": document.project_id,
                "record_passage": finding.record.text,
                "other_passage": finding.other.text,
                "record_value": finding.record_value[:200],
                "other_value": finding.other_value[:200],
                "kind": finding.kind,
                "subject": finding.subject,
            },
        )
        kept.add(row.pk)
        if created:
            raised += 1
        elif row.state == ConflictState.OPEN:
            # the values as the detector reads them now
            row.record_value = finding.record_value[:200]
            row.other_value = finding.other_value[:200]
            row.kind, row.subject = finding.kind, finding.subject
            row.save(
                update_fields=["record_value", "other_value", "kind", "subject", "last_seen_at"]
            )
            seen += 1
    # an open one this run did not meet (the nearest chunks are not symmetric) is gone only
    # when it no longer holds: a passage left its document, or the two no longer conflict
    gone_ids: list[int] = []
    unmet = involving.filter(state=ConflictState.OPEN).exclude(pk__in=kept)
    for row in unmet.select_related("record", "other"):
        if _still_holds(row):
            seen += 1
        else:
            gone_ids.append(row.pk)
    gone = Conflict.objects.filter(pk__in=gone_ids).update(
        state=ConflictState.GONE, resolved_at=now, last_seen_at=now
    )
    return {"raised": raised, "seen": seen, "gone": gone}


def _still_holds(conflict: Conflict) -> bool:
    """Both passages are still in their (live, current) documents and still conflict."""
    sides: list[Passage] = []
    for document, text in (
        (conflict.record, conflict.record_passage),
        (conflict.other, conflict.other_passage),
    ):
        if not _checkable(document):
            return False
        chunks = Chunk.objects.filter(document=document).order_by("chunk_order")
        found = next(
            (p for chunk in chunks for p in _passages(chunk) if p.text == text),
            None,
        )
        if found is None:
            return False
        sides.append(found)
    return conflict_of(sides[0], sides[1]) is not None


def conflicts_check_project(*, project_id: int) -> dict[str, int]:
    """The check over every document of a project (the command; the queue does it per
    document as they change)."""
    totals = {"raised": 0, "seen": 0, "gone": 0}
    ids = Document.objects.alive().filter(project_id=project_id).order_by("pk")
    for document_id in ids.values_list("pk", flat=True):
        for name, count in conflicts_check(document_id=document_id).items():
            totals[name] = totals.get(name, 0) + count
    return totals


# --- resolutions -----------------------------------------------------------------------------


def _reason(reason: str, *, required: bool) -> str:
    reason = " ".join(reason.split())
    if required and not reason:
        raise ConflictError("Give a reason: it is kept with the conflict.")
    if len(reason) > REASON_MAX_CHARS:
        raise ConflictError(f"Keep the reason under {REASON_MAX_CHARS} characters.")
    return reason


def _open(conflict: Conflict) -> Conflict:
    locked = Conflict.objects.select_for_update().get(pk=conflict.pk)
    if locked.state != ConflictState.OPEN:
        raise ConflictError("This conflict is no longer open.")
    return locked


def _close(conflict: Conflict, state: str, *, by: AnyUser, reason: str) -> Conflict:
    conflict.state = state
    conflict.reason = reason
    conflict.resolved_by = by if isinstance(by, get_user_model()) and by.pk else None
    conflict.resolved_at = timezone.now()
    conflict.save(update_fields=["state", "reason", "resolved_by", "resolved_at", "last_seen_at"])
    return conflict


def _curation(by: AnyUser, reason: str, conflict: Conflict) -> AuditContext:
    said = f"{conflict.record_value or 'the opposite rule'}"
    why = reason or f"Conflicts with the accepted record (which says {said})."
    return AuditContext(actor=by, source=ChangeSource.ADMIN, reason=why)


@transaction.atomic
def conflict_deprecate_other(*, conflict: Conflict, by: AnyUser, reason: str = "") -> Conflict:
    """The record is right: deprecate the other document (the transitions rule decides
    whether it may be), audited as any curation."""
    row = _open(conflict)
    reason = _reason(reason, required=False)
    other = Document.objects.get(pk=row.other_id)
    try:
        record_deprecate(document=other, by=_curation(by, reason, row))
    except CurationError as exc:
        raise ConflictError(str(exc)) from exc
    return _close(row, ConflictState.DEPRECATED, by=by, reason=reason)


@transaction.atomic
def conflict_archive_other(*, conflict: Conflict, by: AnyUser, reason: str = "") -> Conflict:
    """The record is right: archive the other document (kept for history, no longer a
    current source), audited as any curation."""
    row = _open(conflict)
    reason = _reason(reason, required=False)
    other = Document.objects.get(pk=row.other_id)
    try:
        record_archive(document=other, by=_curation(by, reason, row))
    except CurationError as exc:
        raise ConflictError(str(exc)) from exc
    return _close(row, ConflictState.ARCHIVED, by=by, reason=reason)


@transaction.atomic
def conflict_dismiss(*, conflict: Conflict, by: AnyUser, reason: str) -> Conflict:
    """Not a conflict (or one to live with): closed with the editor's reason, and the same
    pair of passages is not raised again."""
    row = _open(conflict)
    return _close(row, ConflictState.DISMISSED, by=by, reason=_reason(reason, required=True))
