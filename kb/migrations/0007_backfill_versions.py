"""Version 1 of every document there is: its present text and fields, in batches."""

from django.db import migrations
from django.db.models import OuterRef, Subquery

BATCH = 500
VERSIONED_FIELDS = (
    "slug", "source_path", "title", "doc_id", "source_type", "content_hash", "tags", "owners",
    "summary", "metadata", "canonical_type", "canonical_status", "retrieval_priority",
    "generation_source", "evidence_tier",
)  # fmt: skip


def backfill(apps, schema_editor) -> None:
    # the pure rule of a version's text (its chunk hashes and identity), as writes apply it
    from kb.versions import chunk_entry, text_digest

    Document = apps.get_model("kb", "Document")
    Chunk = apps.get_model("kb", "Chunk")
    Edge = apps.get_model("kb", "Edge")
    VersionText = apps.get_model("kb", "VersionText")
    DocumentVersion = apps.get_model("kb", "DocumentVersion")
    last = 0
    while True:
        documents = list(
            Document.objects.filter(pk__gt=last, current_version=0).order_by("pk")[:BATCH]
        )
        if not documents:
            return
        last = documents[-1].pk
        ids = [document.pk for document in documents]
        entries: dict[int, list[dict]] = {pk: [] for pk in ids}
        chunk_ids: dict[int, list[int]] = {pk: [] for pk in ids}
        rows = (
            Chunk.objects.filter(document_id__in=ids)
            .order_by("document_id", "chunk_order")
            .values_list("document_id", "pk", "heading_path", "text", "overlap_chars", "token_count")
        )
        for document_id, pk, heading_path, text, overlap_chars, token_count in rows.iterator():
            chunk_ids[document_id].append(pk)
            entries[document_id].append(
                chunk_entry(
                    heading_path=heading_path,
                    text=text,
                    overlap_chars=overlap_chars,
                    token_count=token_count,
                )
            )
        edges: dict[int, list[list[str]]] = {pk: [] for pk in ids}
        declared = (
            Edge.objects.filter(from_document_id__in=ids, provenance="frontmatter")
            .order_by("id")
            .values_list("from_document_id", "edge_type", "to_slug")
        )
        for document_id, edge_type, to_slug in declared:
            edges[document_id].append([edge_type, to_slug])
        texts = VersionText.objects.bulk_create(
            VersionText(document_id=pk, digest=text_digest(entries[pk]), chunks=entries[pk])
            for pk in ids
        )
        text_of = {text.document_id: text.pk for text in texts}
        versions = DocumentVersion.objects.bulk_create(
            DocumentVersion(
                document_id=document.pk,
                number=1,
                text_id=text_of[document.pk],
                chunk_ids=chunk_ids[document.pk],
                edges=edges[document.pk],
                actor_name="system",
                source="service",
                reason="kept when document versions were introduced",
                **{name: getattr(document, name) for name in VERSIONED_FIELDS},
            )
            for document in documents
        )
        # dated when the document last changed, not when this migration ran
        DocumentVersion.objects.filter(pk__in=[v.pk for v in versions]).update(
            created_at=Subquery(
                Document.objects.filter(pk=OuterRef("document_id")).values("updated_at")[:1]
            )
        )
        Document.objects.filter(pk__in=ids).update(current_version=1)


class Migration(migrations.Migration):
    dependencies = [("kb", "0006_document_versions")]

    operations = [migrations.RunPython(backfill, migrations.RunPython.noop, elidable=True)]
