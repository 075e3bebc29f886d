"""A MinHash signature per document and its LSH bands (near-duplicates, kb.duplicates); the
documents already stored get theirs from their chunks, as an ingest computes it."""

import django.contrib.postgres.fields
import django.contrib.postgres.indexes
from django.db import migrations, models

BATCH = 500


def backfill(apps, schema_editor) -> None:
    # the pure rule of a signature (from the chunks' texts in order), as ingest applies it
    from kb.duplicates import bands, document_signature

    Document = apps.get_model("kb", "Document")
    Chunk = apps.get_model("kb", "Chunk")
    last = 0
    while True:
        documents = list(Document.objects.filter(pk__gt=last).order_by("pk")[:BATCH])
        if not documents:
            return
        last = documents[-1].pk
        texts: dict[int, list[str]] = {}
        rows = Chunk.objects.filter(document__in=documents).order_by("document_id", "chunk_order")
        for document_id, text in rows.values_list("document_id", "text"):
            texts.setdefault(document_id, []).append(text)
        for document in documents:
            document.minhash = document_signature(texts.get(document.pk, []))
            document.minhash_bands = bands(document.minhash)
        Document.objects.bulk_update(documents, ["minhash", "minhash_bands"])


class Migration(migrations.Migration):
    dependencies = [
        ("access", "0002_api_key"),
        ("kb", "0007_backfill_versions"),
    ]

    operations = [
        migrations.AddField(
            model_name="document",
            name="minhash",
            field=django.contrib.postgres.fields.ArrayField(
                base_field=models.BigIntegerField(), blank=True, default=list, size=None
            ),
        ),
        migrations.AddField(
            model_name="document",
            name="minhash_bands",
            field=django.contrib.postgres.fields.ArrayField(
                base_field=models.BigIntegerField(), blank=True, default=list, size=None
            ),
        ),
        migrations.RunPython(backfill, migrations.RunPython.noop, elidable=True),
        migrations.AddIndex(
            model_name="document",
            index=django.contrib.postgres.indexes.GinIndex(
                fields=["minhash_bands"], name="kb_doc_minhash_bands_gin"
            ),
        ),
    ]
