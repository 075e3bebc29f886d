"""Backfill chat.CitedDocument from the citations of the answers stored before it existed."""

from __future__ import annotations

from typing import Any

from django.db import migrations

from kb.versions import chunk_hash

BATCH = 2000


def backfill(apps: Any, schema_editor: Any) -> None:
    Message = apps.get_model("chat", "Message")
    CitedDocument = apps.get_model("chat", "CitedDocument")
    Document = apps.get_model("kb", "Document")
    DocumentVersion = apps.get_model("kb", "DocumentVersion")
    Chunk = apps.get_model("kb", "Chunk")
    answers = (
        Message.objects.filter(role="assistant")
        .exclude(citations=[])
        .order_by("pk")
        .values_list("pk", "citations")
    )
    known_documents = set(Document.objects.values_list("pk", flat=True))
    hashes: dict[tuple[int, int | None, int | None], str] = {}

    def passage_hash(document_id: int, version: int | None, chunk_id: int | None) -> str:
        key = (document_id, version, chunk_id)
        if key not in hashes:
            found = ""
            row = (
                DocumentVersion.objects.filter(document_id=document_id, number=version)
                .select_related("text")
                .first()
                if version
                else None
            )
            if row is not None and chunk_id in row.chunk_ids:
                index = row.chunk_ids.index(chunk_id)
                if index < len(row.text.chunks):
                    found = row.text.chunks[index]["hash"]
            if not found and chunk_id:
                text = Chunk.objects.filter(pk=chunk_id).values_list("text", flat=True).first()
                found = chunk_hash(text) if text is not None else ""
            hashes[key] = found
        return hashes[key]

    rows = []
    for message_id, citations in answers.iterator(chunk_size=BATCH):
        for citation in citations or []:
            if not isinstance(citation, dict) or citation.get("document_id") not in known_documents:
                continue
            document_id = citation["document_id"]
            version = citation.get("version")
            chunk_id = citation.get("chunk_id")
            rows.append(
                CitedDocument(
                    message_id=message_id,
                    document_id=document_id,
                    version=version,
                    chunk_id=chunk_id,
                    chunk_hash=passage_hash(document_id, version, chunk_id),
                    status=citation.get("canonical_status") or "",
                )
            )
        if len(rows) >= BATCH:
            CitedDocument.objects.bulk_create(rows)
            rows = []
    CitedDocument.objects.bulk_create(rows)


def forget(apps: Any, schema_editor: Any) -> None:
    apps.get_model("chat", "CitedDocument").objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [("chat", "0004_answer_drift"), ("kb", "0007_backfill_versions")]

    operations = [migrations.RunPython(backfill, forget)]
