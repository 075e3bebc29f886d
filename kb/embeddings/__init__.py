"""Embedding providers behind one entry point: `get_embedder()` (the tenant's active space)."""

from __future__ import annotations

import threading

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from kb.embeddings.base import Embedder
from kb.embeddings.exceptions import EmbeddingDimensionError, EmbeddingError
from kb.embeddings.spaces import (
    HASH_DEFAULT_DIMENSIONS,
    ActiveSpace,
    SpaceSpec,
    active_space,
    check_space_dimensions,
    configured_spec,
)

__all__ = [
    "PROVIDERS",
    "ActiveSpace",
    "Embedder",
    "EmbeddingDimensionError",
    "EmbeddingError",
    "SpaceSpec",
    "active_embedder",
    "build_embedder",
    "embed_query",
    "embedder_for",
    "get_embedder",
    "reset_embedders",
]

PROVIDERS = ("local", "openai", "hash")

_cache: dict[SpaceSpec, Embedder] = {}
_cache_lock = threading.Lock()


def build_embedder(spec: SpaceSpec | str) -> Embedder:
    """A new embedder for `spec` (a provider name: the configured space of that provider)."""
    if isinstance(spec, str):
        spec = configured_spec(spec)
    embedder = _build(spec)
    # the query cache keys vectors by space: two sizes or folders of one provider never mix
    embedder.space = spec.label  # type: ignore[attr-defined]
    return embedder


def _build(spec: SpaceSpec) -> Embedder:
    kb = settings.KB
    batch_size = int(kb.get("EMBEDDING_BATCH_SIZE", 64))
    if spec.provider == "hash":
        if not settings.TESTING:
            raise ImproperlyConfigured(
                "The 'hash' embedding provider is a test double with no semantics; it only runs "
                "under tests. Set KB_EMBEDDING_PROVIDER=local (or openai)."
            )
        from kb.embeddings.hashing import HashEmbedder

        return HashEmbedder(
            dimensions=spec.dimensions or HASH_DEFAULT_DIMENSIONS, batch_size=batch_size
        )
    if spec.provider == "local":
        # providers load only when chosen: local pulls in torch, openai an HTTP client
        from kb.embeddings.local import LocalEmbedder

        return LocalEmbedder(
            model_path=spec.model, expected_dimensions=spec.dimensions, batch_size=batch_size
        )
    if spec.provider == "openai":
        from kb.embeddings.openai import OpenAIEmbedder

        return OpenAIEmbedder(
            base_url=spec.base_url,
            model=spec.model,
            api_key=kb.get("EMBEDDING_API_KEY", ""),
            timeout=float(kb.get("EMBEDDING_TIMEOUT", 30.0)),
            dimensions=spec.dimensions,
            batch_size=batch_size,
        )
    raise ImproperlyConfigured(
        f"Unknown KB_EMBEDDING_PROVIDER {spec.provider!r}: use one of {', '.join(PROVIDERS)}."
    )


def embedder_for(spec: SpaceSpec) -> Embedder:
    """The process-wide embedder of `spec` (built on first use)."""
    with _cache_lock:
        embedder = _cache.get(spec)
        if embedder is None:
            embedder = build_embedder(spec)
            _cache[spec] = embedder
        return embedder


def active_embedder() -> tuple[ActiveSpace, Embedder]:
    """The current tenant's active space and its embedder, the size checked against the
    stored vectors (outside a tenant: the configured space)."""
    space = active_space()
    embedder = embedder_for(space.spec)
    check_space_dimensions(space, embedder.dimensions)
    return space, embedder


def get_embedder() -> Embedder:
    """The embedder of the current tenant's active space (see `active_embedder`)."""
    return active_embedder()[1]


def embed_query(text: str) -> list[float]:
    """`text`'s vector in the current tenant's active space (query cache), size checked."""
    from kb.embeddings.cache import embed_query_cached

    space, embedder = active_embedder()
    vector = embed_query_cached(embedder, text)
    check_space_dimensions(space, len(vector))
    return vector


def reset_embedders() -> None:
    """Forget cached embedders and space lookups (tests that change provider settings)."""
    from kb.embeddings.spaces import forget_active_spaces

    with _cache_lock:
        _cache.clear()
    forget_active_spaces()
