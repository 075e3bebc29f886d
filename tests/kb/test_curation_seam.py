"""kb without a curation layer refuses to change curated fields unaudited, loudly."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured

from kb import curation
from kb.apps import curation_layer_check
from kb.models import Document
from kb.services import document_ingest, document_soft_delete
from portal.access.services import project_ensure

RECORD = "---\ntype: runbook\nstatus: accepted\nslug: seam-rb\n---\n# Seam\n\nBody.\n"


def test_the_server_does_not_start_without_a_curation_layer(monkeypatch):
    assert curation_layer_check() == []  # canonical is installed
    monkeypatch.setattr(curation, "_editor", None)
    errors = curation_layer_check()
    assert [e.id for e in errors] == ["kb.E001"]
    assert "canonical" in errors[0].msg


@pytest.mark.django_db
def test_a_curated_change_without_a_layer_raises_and_writes_nothing(alpha, monkeypatch):
    document = document_ingest(
        project=project_ensure(key="seam"), source_path="seam.md", content=RECORD
    ).document
    monkeypatch.setattr(curation, "_editor", None)
    with pytest.raises(ImproperlyConfigured):
        document_soft_delete(document=document)
    assert Document.objects.get(pk=document.pk).deleted_at is None
