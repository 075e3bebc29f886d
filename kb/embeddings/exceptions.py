"""Typed errors of the embedding providers."""

from __future__ import annotations


class EmbeddingError(RuntimeError):
    """An embedding provider is unavailable or failed (bad config, network, bad response)."""


class EmbeddingDimensionError(EmbeddingError):
    """A provider produces vectors whose size differs from the stored vector column."""


class EmbeddingSpaceChanged(EmbeddingError):
    """The tenant switched embedding space between embedding a query and searching with it."""
