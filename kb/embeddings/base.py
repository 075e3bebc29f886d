"""The Embedder protocol and helpers shared by the providers."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import Protocol, runtime_checkable

from kb.embeddings.exceptions import EmbeddingDimensionError, EmbeddingError


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit-length vectors of `dimensions` floats."""

    name: str
    dimensions: int

    def embed_documents(self, texts: list[str]) -> list[list[float]]: ...

    def embed_query(self, text: str) -> list[float]: ...


def batched(texts: Sequence[str], size: int) -> Iterator[Sequence[str]]:
    """Consecutive slices of at most `size` texts."""
    size = max(1, size)
    for start in range(0, len(texts), size):
        yield texts[start : start + size]


def l2_normalise(vector: Sequence[float]) -> list[float]:
    """`vector` scaled to unit length; EmbeddingError for an all-zero vector."""
    norm = math.sqrt(sum(value * value for value in vector))
    if norm == 0.0 or not math.isfinite(norm):
        raise EmbeddingError("The provider returned a zero or non-finite vector.")
    return [value / norm for value in vector]


def check_dimensions(*, provider: str, actual: int, expected: int) -> None:
    """Raise EmbeddingDimensionError unless the provider gives the expected vector size."""
    if actual != expected:
        raise EmbeddingDimensionError(
            f"Embedding provider {provider!r} produces {actual}-dimensional vectors but "
            f"{expected} were expected (the knowledge base stores vector({expected})). Use a "
            f"{expected}-d model, or move the tenant to the new model with kb_reembed."
        )
