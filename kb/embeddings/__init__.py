"""Embedding providers behind one entry point: `get_embedder()`."""

from __future__ import annotations

import threading

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from kb.embeddings.base import Embedder
from kb.embeddings.exceptions import EmbeddingDimensionError, EmbeddingError

__all__ = [
    "PROVIDERS",
    "Embedder",
    "EmbeddingDimensionError",
    "EmbeddingError",
    "build_embedder",
    "get_embedder",
    "reset_embedders",
]

PROVIDERS = ("local", "openai", "hash")

_cache: dict[str, Embedder] = {}
_cache_lock = threading.Lock()


def _stored_dimensions() -> int:
    # kb.models needs the app registry; embedders are also built before it is ready
    from kb.models import EMBEDDING_DIMENSIONS

    return EMBEDDING_DIMENSIONS


def build_embedder(name: str) -> Embedder:
    """A new embedder for provider `name`, configured from settings.KB."""
    kb = settings.KB
    expected = _stored_dimensions()
    configured = int(kb.get("EMBEDDING_DIMENSIONS", expected))
    if configured != expected:
        raise EmbeddingDimensionError(
            f"KB_EMBEDDING_DIMENSIONS is {configured} but the knowledge base stores "
            f"vector({expected})."
        )
    batch_size = int(kb.get("EMBEDDING_BATCH_SIZE", 64))
    if name == "hash":
        if not settings.TESTING:
            raise ImproperlyConfigured(
                "The 'hash' embedding provider is a test double with no semantics; it only runs "
                "under tests. Set KB_EMBEDDING_PROVIDER=local (or openai)."
            )
        from kb.embeddings.hashing import HashEmbedder

        return HashEmbedder(dimensions=expected, batch_size=batch_size)
    if name == "local":
        # providers load only when chosen: local pulls in torch, openai an HTTP client
        from kb.embeddings.local import LocalEmbedder

        return LocalEmbedder(expected_dimensions=expected, batch_size=batch_size)
    if name == "openai":
        from kb.embeddings.openai import OpenAIEmbedder

        return OpenAIEmbedder(
            base_url=kb.get("EMBEDDING_BASE_URL", ""),
            model=kb.get("EMBEDDING_MODEL", ""),
            api_key=kb.get("EMBEDDING_API_KEY", ""),
            timeout=float(kb.get("EMBEDDING_TIMEOUT", 30.0)),
            dimensions=expected,
            batch_size=batch_size,
        )
    raise ImproperlyConfigured(
        f"Unknown KB_EMBEDDING_PROVIDER {name!r}: use one of {', '.join(PROVIDERS)}."
    )


def get_embedder() -> Embedder:
    """The embedder of settings.KB["EMBEDDING_PROVIDER"] (read now), cached per provider name."""
    name = str(settings.KB.get("EMBEDDING_PROVIDER", "local")).strip().lower()
    with _cache_lock:
        embedder = _cache.get(name)
        if embedder is None:
            embedder = build_embedder(name)
            _cache[name] = embedder
        return embedder


def reset_embedders() -> None:
    """Forget cached embedders (tests that change provider settings)."""
    with _cache_lock:
        _cache.clear()
