"""Embedding spaces: which model a tenant's stored vectors come from, and its embedder.

Query embedding and ingestion use the tenant's ACTIVE space: the kb_embeddingspace row
kb_reembed records when it switches a tenant to a new model, or, for a tenant never
re-embedded, the space the settings configure. The dimension of the active space is the
stored column's (read from the catalog), so a configured model of another size is a clear
EmbeddingDimensionError instead of a pgvector error.

Each process caches its lookup per schema for KB EMBEDDING_SPACE_CACHE_SECONDS; the query
cache is keyed by the space, so an old-model vector is never used in the new space.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from django.conf import settings
from django.db import connection
from django_tenants.utils import get_public_schema_name

from kb.embeddings.exceptions import EmbeddingDimensionError
from portal.tenants.selectors import current_schema

HASH_DEFAULT_DIMENSIONS = 384


@dataclass(frozen=True, kw_only=True)
class SpaceSpec:
    """What to embed with: provider, model (local: folder; openai: name), endpoint, size."""

    provider: str
    model: str = ""
    base_url: str = ""
    dimensions: int = 0  # 0 = the model's own size

    @property
    def label(self) -> str:
        """A readable identity, also the query cache's key for the space."""
        if self.provider == "local":
            from kb.embeddings.local import PACKAGED_MODEL

            model = self.model or PACKAGED_MODEL
        elif self.provider == "openai":
            model = f"{self.base_url.rstrip('/')}#{self.model}"
        else:
            model = self.model or "-"
        return f"{self.provider}:{model}:{self.dimensions or 'native'}"


@dataclass(frozen=True, kw_only=True)
class ActiveSpace:
    """A tenant's active space: how to embed, and the size of the vectors it stores."""

    spec: SpaceSpec
    stored_dimensions: int  # 0 outside a tenant (no chunk table to check against)
    recorded: bool  # False: no kb_embeddingspace row, the settings decide

    @property
    def key(self) -> str:
        return f"{self.spec.label}/{self.stored_dimensions}"


def configured_spec(provider: str | None = None) -> SpaceSpec:
    """The space settings.KB configures (read now); `provider` overrides the provider."""
    kb = settings.KB
    name = (provider or str(kb.get("EMBEDDING_PROVIDER", "local"))).strip().lower()
    dimensions = int(kb.get("EMBEDDING_DIMENSIONS", 0) or 0)
    if name == "local":
        return SpaceSpec(
            provider=name, model=str(kb.get("EMBEDDING_MODEL_PATH", "")), dimensions=dimensions
        )
    if name == "openai":
        return SpaceSpec(
            provider=name,
            model=str(kb.get("EMBEDDING_MODEL", "")),
            base_url=str(kb.get("EMBEDDING_BASE_URL", "")),
            dimensions=dimensions,
        )
    return SpaceSpec(provider=name, dimensions=dimensions)


def spec_of(row: object) -> SpaceSpec:
    """The spec a kb_embeddingspace row records (its size is always explicit)."""
    return SpaceSpec(
        provider=row.provider,  # type: ignore[attr-defined]
        model=row.model,  # type: ignore[attr-defined]
        base_url=row.base_url,  # type: ignore[attr-defined]
        dimensions=row.dimensions,  # type: ignore[attr-defined]
    )


def stored_dimensions(column: str = "embedding") -> int:
    """The size of the chunk table's vector `column` in the current schema (0 if none)."""
    from kb.models import Chunk

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT atttypmod FROM pg_attribute WHERE attrelid = to_regclass(%s) "
            "AND attname = %s AND NOT attisdropped",
            [Chunk._meta.db_table, column],
        )
        row = cursor.fetchone()
    return max(0, int(row[0])) if row else 0


_lock = threading.Lock()
# schema -> (looked up at, the recorded spec or None, the stored vector size)
_lookups: dict[str, tuple[float, SpaceSpec | None, int]] = {}


def _lookup() -> tuple[SpaceSpec | None, int]:
    from kb.models import EmbeddingSpace, SpaceState

    row = EmbeddingSpace.objects.filter(state=SpaceState.ACTIVE).first()
    return (None if row is None else spec_of(row)), stored_dimensions()


def active_space(*, fresh: bool = False) -> ActiveSpace:
    """The current tenant's active space (its record cached briefly per schema unless
    `fresh`; without a record, the settings as they are now)."""
    schema = current_schema()
    if schema == get_public_schema_name():
        return ActiveSpace(spec=configured_spec(), stored_dimensions=0, recorded=False)
    ttl = float(settings.KB.get("EMBEDDING_SPACE_CACHE_SECONDS", 0.0))
    now = time.monotonic()
    with _lock:
        cached = _lookups.get(schema)
    if fresh or ttl <= 0 or cached is None or now - cached[0] >= ttl:
        recorded, dimensions = _lookup()
        with _lock:
            _lookups[schema] = (now, recorded, dimensions)
    else:
        recorded, dimensions = cached[1], cached[2]
    if recorded is None:
        return ActiveSpace(spec=configured_spec(), stored_dimensions=dimensions, recorded=False)
    return ActiveSpace(spec=recorded, stored_dimensions=dimensions, recorded=True)


def forget_active_spaces(schema: str | None = None) -> None:
    """Drop cached lookups (of `schema`, or all): after a switch, in tests."""
    with _lock:
        if schema is None:
            _lookups.clear()
        else:
            _lookups.pop(schema, None)


def check_space_dimensions(space: ActiveSpace, actual: int) -> None:
    """EmbeddingDimensionError when vectors of size `actual` do not fit the stored column."""
    if not space.stored_dimensions or not actual or actual == space.stored_dimensions:
        return
    schema = current_schema()
    if space.recorded:
        fix = f"its recorded space is {space.spec.label}; check that model is unchanged"
    else:
        fix = (
            "set the embedding settings back to the model the tenant was embedded with, or "
            f"move the tenant to the new model with `manage.py kb_reembed --tenant {schema}`"
        )
    raise EmbeddingDimensionError(
        f"The embedding model {space.spec.label} produces {actual}-dimensional vectors but "
        f"tenant {schema!r} stores vector({space.stored_dimensions}): {fix}."
    )
