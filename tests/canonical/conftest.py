"""Helpers for canonical tests: records created as rows (ingestion is tested in tests/kb)."""

from __future__ import annotations

import hashlib

from kb.models import Document, EvidenceTier
from portal.access.services import project_ensure


def make_doc(
    project_key: str,
    slug: str,
    *,
    canonical_type: str | None = "decision",
    status: str | None = "accepted",
    priority: int = 50,
    generation_source: str = "human",
    title: str | None = None,
) -> Document:
    """A document row in the current tenant schema (a canonical record unless type is None)."""
    project = project_ensure(key=project_key)
    tier = EvidenceTier.AUTO if generation_source == "auto" else EvidenceTier.DOCUMENT
    if canonical_type and status and generation_source == "human":
        tier = EvidenceTier.CANONICAL
    return Document.objects.create(
        project=project,
        title=title or slug.replace("-", " ").title(),
        slug=slug,
        source_path=f"{slug}.md",
        source_type="markdown",
        content_hash=hashlib.sha256(slug.encode()).hexdigest(),
        canonical_type=canonical_type,
        canonical_status=status if canonical_type else None,
        retrieval_priority=priority,
        generation_source=generation_source,
        evidence_tier=tier,
    )
