"""The real local model (all-MiniLM-L6-v2, offline) end to end: ingest, kb_check, nearest chunk."""

from __future__ import annotations

import json
import math
import shutil
from dataclasses import replace

import pytest
from django.core.management import call_command
from pgvector.django import CosineDistance

from kb.demo import DEMO_CORPUS_DIR
from kb.embeddings import get_embedder
from kb.embeddings.spaces import configured_spec
from kb.models import Chunk
from kb.services import IngestItem, documents_ingest_many, ingest_summary
from portal.access.services import project_ensure

pytestmark = pytest.mark.real_model

HANDBOOK_FILES = ("rb-redis-failover.md", "std-logging.md", "dec-cache-v2.md", "on-call.md")


def test_local_model_embeds_unit_vectors_that_kb_check_accepts(alpha, settings, capsys):
    settings.KB = {**settings.KB, "EMBEDDING_PROVIDER": "local"}
    embedder = get_embedder()
    assert (embedder.name, embedder.dimensions) == ("local", 384)
    project = project_ensure(key="real-model")
    items = [
        IngestItem(source_path=name, content=(DEMO_CORPUS_DIR / name).read_bytes())
        for name in HANDBOOK_FILES
    ]
    summary = ingest_summary(documents_ingest_many(project=project, items=items))
    assert summary["created"] == 4 and summary["failed"] == []

    call_command("kb_check", "--tenant", "alpha", "--json")
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] and report["unembedded_chunks"] == 0
    assert report["max_norm_deviation"] < 1e-3

    query = embedder.embed_query("How do I fail over the Redis cluster when a primary is down?")
    assert abs(math.sqrt(sum(v * v for v in query)) - 1) < 1e-4
    nearest = (
        Chunk.objects.filter(document__project=project)
        .annotate(distance=CosineDistance("embedding", query))
        .order_by("distance")
        .select_related("document")
        .first()
    )
    assert nearest.document.slug == "rb-redis-failover"
    unrelated = embedder.embed_query("quarterly payroll tax filing deadline")
    assert sum(a * b for a, b in zip(query, unrelated, strict=True)) < 0.3


def test_a_model_folder_on_disk_loads_through_kb_embedding_model_path(alpha, settings, tmp_path):
    from kb.embeddings import EmbeddingError, build_embedder, reset_embedders
    from kb.embeddings.local import packaged_model_path

    folder = tmp_path / "minilm-copy"
    shutil.copytree(packaged_model_path(), folder)  # any sentence-transformers folder
    settings.KB = {
        **settings.KB,
        "EMBEDDING_PROVIDER": "local",
        "EMBEDDING_MODEL_PATH": str(folder),
        "EMBEDDING_DIMENSIONS": 0,
    }
    reset_embedders()
    try:
        embedder = get_embedder()
        assert embedder.model_path == str(folder)
        assert embedder.dimensions == 384  # read from the model, not assumed
        text = "How do I fail over the Redis cluster?"
        packaged = build_embedder(replace(configured_spec("local"), model=""))
        assert embedder.embed_query(text) == pytest.approx(packaged.embed_query(text), abs=1e-5)
        settings.KB = {**settings.KB, "EMBEDDING_MODEL_PATH": str(tmp_path / "missing")}
        with pytest.raises(
            EmbeddingError, match="KB_EMBEDDING_MODEL_PATH .*missing.* not a folder"
        ):
            build_embedder("local")
        (tmp_path / "empty").mkdir()
        settings.KB = {**settings.KB, "EMBEDDING_MODEL_PATH": str(tmp_path / "empty")}
        with pytest.raises(EmbeddingError, match="no sentence-transformers model"):
            build_embedder("local")
    finally:
        reset_embedders()
