"""Re-embed a tenant with another model while search keeps answering, then switch at once.

1. start: the tenant's current space is recorded as active (if it was not), the target as
   building, and the chunk table gets a second vector column `embedding_next` of the
   target's size. Searches and ingestion go on in the active space.
2. fill: chunks whose `embedding_next` is still empty are embedded with the new model in
   batches by id, each batch written in its own short transaction: a killed run resumes
   where it stopped, and chunks ingested meanwhile are picked up.
3. index: the HNSW index on `embedding_next` is built CONCURRENTLY (searches go on).
4. switch, in ONE transaction: writers are locked out of the chunk table, the chunks
   ingested since the fill are embedded, the old column (and its index) is dropped and the
   new one takes its name, and the target is recorded as the active space. Readers wait
   only for the few catalog changes; every later query is embedded with the new model.

The old vectors are dropped at the switch (their disk space comes back with VACUUM FULL or
pg_repack): going back is another re-embed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from kb.embeddings import Embedder, SpaceSpec, embedder_for
from kb.embeddings.spaces import active_space, forget_active_spaces, spec_of, stored_dimensions
from kb.ingestion.chunk import ChunkDraft
from kb.models import Chunk, EmbeddingSpace, SpaceState, chunk_hnsw_index, chunk_hnsw_sql
from kb.retrieval.sql import vector_literal
from portal.tenants.selectors import current_schema

ACTIVE_COLUMN = "embedding"
NEXT_COLUMN = "embedding_next"
NEXT_INDEX = "kb_chunk_embedding_next_hnsw"
DIMENSION_PROBE = "dimension probe"
# one run per tenant at a time: a session-level advisory lock named by the schema
RUN_LOCK = "hashtext('kb_reembed:' || current_schema())"


class ReembedError(Exception):
    """A re-embed cannot start or go on (another one in progress, bad target, transaction)."""


@dataclass(frozen=True, kw_only=True)
class ReembedReport:
    """What a run did: the spaces, chunks embedded by the fill and in the switch, totals."""

    schema: str
    source: str
    target: str
    dimensions: int
    chunks: int
    embedded: int
    already_done: int
    embedded_at_switch: int
    fill_seconds: float  # embedding and writing the new vectors, search going on
    index_seconds: float  # the concurrent HNSW build
    switch_seconds: float  # the one transaction; writers wait all of it, readers its end


Progress = Callable[[int], None]


def _table() -> str:
    return Chunk._meta.db_table


def resolve_target(spec: SpaceSpec, embedder: Embedder | None = None) -> tuple[SpaceSpec, Embedder]:
    """The target with its folder made absolute and its size known, and its embedder."""
    if spec.provider == "local" and spec.model:
        spec = replace(spec, model=str(Path(spec.model).expanduser().resolve()))
    embedder = embedder or embedder_for(spec)
    dimensions = embedder.dimensions or len(embedder.embed_query(DIMENSION_PROBE))
    if spec.dimensions and spec.dimensions != dimensions:
        raise ReembedError(f"The target model gives {dimensions}-d vectors, not {spec.dimensions}.")
    return replace(spec, dimensions=dimensions), embedder


def _column_exists(column: str) -> bool:
    return stored_dimensions(column) > 0


def reembed_start(*, target: SpaceSpec) -> EmbeddingSpace:
    """Record the target as the building space and add its vector column (or resume)."""
    if connection.in_atomic_block:
        raise ReembedError("kb_reembed builds an index concurrently: run it outside a transaction.")
    current = active_space(fresh=True)
    with transaction.atomic():
        rows = list(EmbeddingSpace.objects.select_for_update().exclude(state=SpaceState.RETIRED))
        active = next((row for row in rows if row.state == SpaceState.ACTIVE), None)
        building = next((row for row in rows if row.state == SpaceState.BUILDING), None)
        if active is None:
            # pin the space the vectors are in now: a settings change during the run must
            # not move the searches that still read the old column
            active = EmbeddingSpace.objects.create(
                provider=current.spec.provider,
                model=current.spec.model,
                base_url=current.spec.base_url,
                dimensions=current.stored_dimensions,
                state=SpaceState.ACTIVE,
                switched_at=timezone.now(),
            )
        if building is not None and spec_of(building) != target:
            raise ReembedError(
                f"A re-embed to {spec_of(building).label} is in progress: run it again with "
                "the same model to resume it, or with --abort to drop it."
            )
        if building is None and spec_of(active) == target:
            raise ReembedError(f"The tenant is already in the space {target.label}.")
        if building is None:
            building = EmbeddingSpace.objects.create(
                provider=target.provider,
                model=target.model,
                base_url=target.base_url,
                dimensions=target.dimensions,
                state=SpaceState.BUILDING,
            )
        if stored_dimensions(NEXT_COLUMN) not in (0, target.dimensions):
            with connection.cursor() as cursor:  # left by an aborted run of another size
                cursor.execute(f"ALTER TABLE {_table()} DROP COLUMN {NEXT_COLUMN}")
        if not _column_exists(NEXT_COLUMN):
            with connection.cursor() as cursor:
                # nullable, no default: a catalog change, no table rewrite
                cursor.execute(
                    f"ALTER TABLE {_table()} ADD COLUMN {NEXT_COLUMN} vector({target.dimensions})"
                )
    forget_active_spaces(current_schema())
    return building


def count_chunks() -> tuple[int, int]:
    """(chunks, chunks that already have a vector in the new column)."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT count(*), count({NEXT_COLUMN}) FROM {_table()}")
        total, done = cursor.fetchone()
    return int(total), int(done)


def reembed_fill(*, embedder: Embedder, batch_size: int, on_batch: Progress | None = None) -> int:
    """Embed the chunks without a new vector, `batch_size` at a time; returns how many."""
    embedded = 0
    last_id = 0
    while True:
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT id, chunk_order, heading_path, text, overlap_chars, token_count "
                f"FROM {_table()} WHERE {NEXT_COLUMN} IS NULL AND id > %s ORDER BY id LIMIT %s",
                [last_id, max(1, batch_size)],
            )
            rows = cursor.fetchall()
        if not rows:
            return embedded
        # the text ingestion embedded, rebuilt from the stored chunk (one definition)
        texts = [
            ChunkDraft(
                chunk_order=order,
                heading_path=heading_path,
                text=text,
                overlap_chars=overlap,
                token_count=tokens,
            ).embed_text
            for _, order, heading_path, text, overlap, tokens in rows
        ]
        vectors = embedder.embed_documents(texts)
        with transaction.atomic(), connection.cursor() as cursor:
            # a chunk deleted meanwhile (re-ingested document) simply matches no row
            cursor.execute(
                f"UPDATE {_table()} c SET {NEXT_COLUMN} = v.vector::vector "
                "FROM unnest(%s::bigint[], %s::text[]) AS v(id, vector) WHERE c.id = v.id",
                [[row[0] for row in rows], [vector_literal(vector) for vector in vectors]],
            )
        embedded += len(rows)
        last_id = rows[-1][0]
        if on_batch is not None:
            on_batch(len(rows))


def _index_state(name: str) -> bool | None:
    """None when the index does not exist, else whether it is valid (a killed CONCURRENTLY
    build leaves an invalid one behind)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT i.indisvalid FROM pg_index i WHERE i.indexrelid = to_regclass(%s)", [name]
        )
        row = cursor.fetchone()
    return None if row is None else bool(row[0])


def reembed_index() -> None:
    """Build the HNSW index of the new column without blocking searches or writes."""
    state = _index_state(NEXT_INDEX)
    if state:
        return
    with connection.cursor() as cursor:
        if state is False:
            cursor.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {NEXT_INDEX}")
        cursor.execute(chunk_hnsw_sql(name=NEXT_INDEX, column=NEXT_COLUMN, concurrently=True))


def reembed_switch(*, embedder: Embedder, batch_size: int) -> int:
    """Make the new space active in one transaction; returns the chunks embedded in it."""
    with transaction.atomic():
        building = EmbeddingSpace.objects.select_for_update().filter(state="building").first()
        if building is None:
            raise ReembedError("No re-embed is in progress on this tenant.")
        with connection.cursor() as cursor:
            # writers wait from here (ingestion takes ROW EXCLUSIVE); readers go on
            cursor.execute(f"LOCK TABLE {_table()} IN SHARE ROW EXCLUSIVE MODE")
        late = reembed_fill(embedder=embedder, batch_size=batch_size)
        with connection.cursor() as cursor:
            cursor.execute(f"LOCK TABLE {_table()} IN ACCESS EXCLUSIVE MODE")
            cursor.execute(f"ALTER TABLE {_table()} DROP COLUMN {ACTIVE_COLUMN}")
            cursor.execute(f"ALTER TABLE {_table()} RENAME COLUMN {NEXT_COLUMN} TO {ACTIVE_COLUMN}")
            cursor.execute(f"ALTER INDEX {NEXT_INDEX} RENAME TO {chunk_hnsw_index().name}")
        now = timezone.now()
        EmbeddingSpace.objects.filter(state=SpaceState.ACTIVE).update(state=SpaceState.RETIRED)
        building.state = SpaceState.ACTIVE
        building.switched_at = now
        building.save(update_fields=["state", "switched_at"])
    forget_active_spaces(current_schema())
    return late


def reembed_abort() -> bool:
    """Drop an unfinished re-embed (its column, index and record); False if there was none."""
    if connection.in_atomic_block:
        raise ReembedError("--abort drops an index concurrently: run it outside a transaction.")
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT pg_try_advisory_lock({RUN_LOCK})")
        if not cursor.fetchone()[0]:
            raise ReembedError("A kb_reembed is running on this tenant: stop it first.")
    try:
        found = EmbeddingSpace.objects.filter(state=SpaceState.BUILDING).exists()
        found = found or _column_exists(NEXT_COLUMN)
        with connection.cursor() as cursor:
            cursor.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {NEXT_INDEX}")
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(f"ALTER TABLE {_table()} DROP COLUMN IF EXISTS {NEXT_COLUMN}")
            EmbeddingSpace.objects.filter(state=SpaceState.BUILDING).delete()
        return found
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT pg_advisory_unlock({RUN_LOCK})")


def tenant_reembed(
    *,
    target: SpaceSpec,
    batch_size: int,
    embedder: Embedder | None = None,
    on_start: Callable[[int, int], Any] | None = None,
    on_batch: Progress | None = None,
) -> ReembedReport:
    """Re-embed the current tenant into `target` (resuming an interrupted run) and switch."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT pg_try_advisory_lock({RUN_LOCK})")
        if not cursor.fetchone()[0]:
            raise ReembedError("Another kb_reembed is running on this tenant.")
    try:
        return _reembed(
            target=target,
            batch_size=batch_size,
            embedder=embedder,
            on_start=on_start,
            on_batch=on_batch,
        )
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT pg_advisory_unlock({RUN_LOCK})")


def _reembed(
    *,
    target: SpaceSpec,
    batch_size: int,
    embedder: Embedder | None,
    on_start: Callable[[int, int], Any] | None,
    on_batch: Progress | None,
) -> ReembedReport:
    source = active_space(fresh=True)
    target, embedder = resolve_target(target, embedder)
    reembed_start(target=target)
    total, done = count_chunks()
    if on_start is not None:
        on_start(total, done)
    started = time.perf_counter()
    embedded = reembed_fill(embedder=embedder, batch_size=batch_size, on_batch=on_batch)
    filled = time.perf_counter()
    reembed_index()
    indexed = time.perf_counter()
    # a catch-up pass outside the lock, so the locked moment embeds only the last few
    embedded += reembed_fill(embedder=embedder, batch_size=batch_size, on_batch=on_batch)
    caught_up = time.perf_counter()
    late = reembed_switch(embedder=embedder, batch_size=batch_size)
    switched = time.perf_counter()
    return ReembedReport(
        schema=current_schema(),
        source=source.spec.label,
        target=target.label,
        dimensions=target.dimensions,
        chunks=total,
        embedded=embedded,
        already_done=done,
        embedded_at_switch=late,
        fill_seconds=round(filled - started + caught_up - indexed, 3),
        index_seconds=round(indexed - filled, 3),
        switch_seconds=round(switched - caught_up, 3),
    )
