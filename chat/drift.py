"""Answer drift: stored answers whose cited document changed since they read it.

Every stored answer writes one `CitedDocument` row per citation (the document, the version
and chunk read, the passage's hash and the document's status as read). When kb reports a
changed document (`kb.drift`: a new version or a deletion, inside the writer's transaction),
one `answer_drift_check` task per document is queued in the same transaction, for the tenant
it changed in. The task marks each answer citing the document whose source has moved on:

- the document is deleted -> `deleted`;
- its status is stale now (superseded, deprecated, archived) and was not when the answer
  read it -> that status (with the successor of a superseded record); a record superseded
  again by another record is marked again, with its new successor, for every answer that
  read it live or pointing at another successor (the version it read says which);
- it is a rejected approach now and was not when the answer read it -> `rejected`;
- the cited passage is no longer in the current text (no current chunk has its hash) ->
  `changed`; a re-ingest that leaves the cited passage as it was marks nothing.

One `AnswerDrift` row per (answer, document, kind, successor), inserted with a set-based statement that
ignores the rows already there: the job is idempotent and touches only the answers citing
the document (the `chat_cited_document` index), whatever the number of stored answers.
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from typing import Any

from django.db import connection
from django.db.models import Count

from canonical.selectors import change_reasons
from chat.models import AnswerDrift, CitedDocument, Conversation, DriftKind, Message
from kb.drift import CitationWatcher, CitingCount
from kb.models import (
    STALE_STATUSES,
    CanonicalStatus,
    CanonicalType,
    Chunk,
    Document,
    DocumentVersion,
    Edge,
)
from kb.versions import chunk_hash
from portal.tenants.selectors import current_schema

logger = logging.getLogger(__name__)


def cited_documents_record(*, message: Message, citations: list[dict[str, Any]]) -> None:
    """Keep the citations of a just-stored answer as rows (inside its transaction)."""
    cited = [c for c in citations if isinstance(c, dict) and c.get("document_id")]
    if not cited:
        return
    texts = dict(
        Chunk.objects.filter(
            pk__in=[c["chunk_id"] for c in cited if c.get("chunk_id")]
        ).values_list("pk", "text")
    )
    CitedDocument.objects.bulk_create(
        CitedDocument(
            message=message,
            document_id=c["document_id"],
            version=c.get("version"),
            chunk_id=c.get("chunk_id"),
            chunk_hash=chunk_hash(texts[c["chunk_id"]]) if c.get("chunk_id") in texts else "",
            status=c.get("canonical_status") or "",
            canonical_type=c.get("canonical_type") or "",
        )
        for c in cited
    )


def answers_citing_count(document_ids: Collection[int]) -> CitingCount:
    """How many stored answers, and how many distinct askers, cite any of the documents."""
    counts = CitedDocument.objects.filter(document_id__in=list(document_ids)).aggregate(
        answers=Count("message_id", distinct=True),
        people=Count("message__conversation__user_id", distinct=True),
    )
    return CitingCount(answers=counts["answers"] or 0, people=counts["people"] or 0)


def drift_checks_enqueue(document_ids: Collection[int]) -> None:
    """Queue one drift check per changed document that some answer cites (in the writer's
    transaction: the change and its check commit together)."""
    from chat.tasks import answer_drift_check

    cited = (
        CitedDocument.objects.filter(document_id__in=list(document_ids))
        .values_list("document_id", flat=True)
        .distinct()
    )
    schema = current_schema()
    for document_id in sorted(cited):
        answer_drift_check.enqueue(schema_name=schema, document_id=document_id)


def _conflict_checks_enqueue(document_ids: Collection[int]) -> None:
    from chat.conflicts.services import conflict_checks_enqueue

    conflict_checks_enqueue(document_ids)


# the watcher also queues the conflicts check of every document a new version is kept for
CITATION_WATCHER = CitationWatcher(
    changed=drift_checks_enqueue, count=answers_citing_count, kept=_conflict_checks_enqueue
)


def answer_drifts_mark(*, document_id: int) -> dict[str, int]:
    """Mark the stored answers citing the document whose source has changed since they read
    it; returns how many new marks of each kind (nothing twice: idempotent)."""
    document = Document.objects.filter(pk=document_id).first()
    marked: dict[str, int] = {}
    if document is None:
        return marked  # removed for good: the marks and citations went with it
    if document.deleted_at is not None:
        marked[DriftKind.DELETED] = _insert(document, DriftKind.DELETED, "TRUE", [])
        return marked
    status = document.canonical_status or ""
    if status in STALE_STATUSES:
        condition, params = "c.status <> %s", [status]
        successor = None
        if status == CanonicalStatus.SUPERSEDED:
            successor, slug = Edge.objects.successors([document.pk]).get(document.pk, (None, ""))
            if successor is not None:
                # or it read the record superseded already, pointing at another successor
                condition += (
                    f" OR EXISTS (SELECT 1 FROM {DocumentVersion._meta.db_table} v "
                    "WHERE v.document_id = c.document_id AND v.number = c.version "
                    "AND v.superseded_by <> %s)"
                )
                params.append(slug)
        reason = change_reasons(document_ids=[document.pk]).get(document.pk, "")
        marked[status] = _insert(
            document, status, condition, params, successor_id=successor, detail=reason
        )
    if document.canonical_type == CanonicalType.REJECTED_APPROACH:
        reasons = change_reasons(document_ids=[document.pk], fields=("canonical_type",))
        marked[DriftKind.REJECTED] = _insert(
            document,
            DriftKind.REJECTED,
            "c.canonical_type <> %s",
            [CanonicalType.REJECTED_APPROACH],
            detail=reasons.get(document.pk, ""),
        )
    current = sorted(
        {
            chunk_hash(text)
            for text in Chunk.objects.filter(document=document).values_list("text", flat=True)
        }
    )
    marked[DriftKind.CHANGED] = _insert(
        document,
        DriftKind.CHANGED,
        "c.chunk_hash <> '' AND NOT (c.chunk_hash = ANY(%s))",
        [current],
    )
    return marked


def _insert(
    document: Document,
    kind: str,
    condition: str,
    params: list[Any],
    *,
    successor_id: int | None = None,
    detail: str = "",
) -> int:
    """One INSERT ... SELECT over the document's citing rows; existing marks are kept."""
    drift = AnswerDrift._meta.db_table
    cited = CitedDocument._meta.db_table
    message = Message._meta.db_table
    conversation = Conversation._meta.db_table
    sql = (
        f"INSERT INTO {drift} (message_id, user_id, document_id, kind, successor_id, "
        f"successor_key, detail, created_at, read_at) "
        f"SELECT DISTINCT c.message_id, conv.user_id, c.document_id, %s::varchar, %s::bigint, "
        f"%s::bigint, %s::text, now(), NULL::timestamptz "
        f"FROM {cited} c JOIN {message} m ON m.id = c.message_id "
        f"JOIN {conversation} conv ON conv.id = m.conversation_id "
        f"WHERE c.document_id = %s AND ({condition}) "
        f"ON CONFLICT (message_id, document_id, kind, successor_key) DO NOTHING"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [kind, successor_id, successor_id or 0, detail, document.pk, *params])
        return max(cursor.rowcount, 0)
