"""A filter that keeps part of a project: the dense arm widens the HNSW scan before an exact scan."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from kb.models import EMBEDDING_DIMENSIONS, Chunk, Document
from kb.retrieval.arms import semantic_arm
from kb.retrieval.sql import Scope
from portal.access.models import Project
from tests.conftest import TenantInfo, drop_tenant, ensure_tenant

SCHEMA = "filtered_dense"


def unit(rng: np.random.Generator, towards: np.ndarray, cosine: float) -> np.ndarray:
    """A unit vector at exactly `cosine` to the unit vector `towards`."""
    noise = rng.standard_normal(EMBEDDING_DIMENSIONS)
    noise -= noise.dot(towards) * towards
    noise /= np.linalg.norm(noise)
    return cosine * towards + np.sqrt(1 - cosine**2) * noise


@pytest.fixture(scope="module")
def own_tenant(tenants, django_db_blocker) -> Iterator[TenantInfo]:
    """A tenant of its own: its HNSW graph holds only this corpus, so what an approximate
    scan reaches does not depend on what other tests left in a shared tenant."""
    with django_db_blocker.unblock():
        connection.set_schema_to_public()  # type: ignore[attr-defined]  # a tenant is made there
        info = ensure_tenant(SCHEMA, "filtered-dense.localhost")
    yield info
    with django_db_blocker.unblock():
        drop_tenant(SCHEMA)


@pytest.fixture
def corpus(own_tenant, db):
    """20 chunks tagged `keep`, 40 not; 8 of the untagged are nearer the query than all but one
    tagged chunk, so the 10 nearest hold only 2 visible ones."""
    with own_tenant.scope():
        yield _build_corpus()


def _build_corpus():
    rng = np.random.default_rng(3)
    query = np.zeros(EMBEDDING_DIMENSIONS)
    query[0] = 1.0
    project, _ = Project.objects.get_or_create(key="filtered-dense", defaults={"name": "f"})
    kept = [1.0, 0.9, *np.linspace(0.8, 0.5, 18)]
    others = [*np.linspace(0.95, 0.91, 8), *np.linspace(0.3, -0.3, 32)]
    vectors = {}
    for i, (cosine, tag) in enumerate([(c, "keep") for c in kept] + [(c, "other") for c in others]):
        document = Document.objects.create(
            project=project,
            title=f"Doc {i}",
            slug=f"doc-{i}",
            source_path=f"doc-{i}.md",
            source_type="markdown",
            content_hash=str(i),
            tags=[tag],
        )
        chunk = Chunk.objects.create(
            document=document, chunk_order=0, text=f"text {i}", embedding=unit(rng, query, cosine)
        )
        vectors[chunk.id] = (cosine, tag)
    scope = Scope.for_documents(Document.objects.filter(project=project, tags__overlap=["keep"]))
    return query, scope, vectors


def test_the_k_nearest_visible_chunks_come_from_a_wider_index_scan(corpus):
    query, scope, vectors = corpus
    with CaptureQueriesContext(connection) as queries:
        hits = semantic_arm(vector=query.tolist(), scope=scope, k=5, ef_search=10)
    nearest = sorted((c for c, tag in vectors.values() if tag == "keep"), reverse=True)[:5]
    assert [round(h.cosine or 0, 4) for h in hits] == [round(c, 4) for c in nearest]
    assert all(vectors[h.chunk_id][1] == "keep" for h in hits)
    sql = [q["sql"] for q in queries]
    assert sum("WITH hits AS MATERIALIZED" in s for s in sql) == 2  # asked twice
    assert not any("enable_indexscan', 'off'" in s for s in sql)  # never the exact scan


def test_a_filter_too_narrow_for_the_index_still_gets_the_exact_nearest(corpus):
    query, scope, vectors = corpus
    hits = semantic_arm(vector=query.tolist(), scope=scope, k=30, ef_search=40)
    kept = sorted((c for c, tag in vectors.values() if tag == "keep"), reverse=True)
    assert [round(h.cosine or 0, 4) for h in hits] == [round(c, 4) for c in kept]  # all 20
