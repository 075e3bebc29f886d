"""Any OpenAI-compatible embeddings endpoint (OpenAI, Ollama, vLLM, llama.cpp server)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from kb.embeddings.base import batched, check_dimensions, l2_normalise
from kb.embeddings.exceptions import EmbeddingError
from portal.http import urlopen_no_redirect


class OpenAIEmbedder:
    """POST {base_url}/embeddings with {model, input}; vectors re-normalised to unit length.

    `dimensions` 0 takes the endpoint's own size, fixed by its first answer and checked on
    every later one; a set size is also requested from models that shorten natively.
    """

    name = "openai"

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str = "",
        timeout: float = 30.0,
        dimensions: int = 0,
        batch_size: int = 64,
    ) -> None:
        if not base_url:
            raise EmbeddingError("KB_EMBEDDING_BASE_URL must be set for the openai provider.")
        if not model:
            raise EmbeddingError("KB_EMBEDDING_MODEL must be set for the openai provider.")
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key = api_key
        self.timeout = timeout
        self.dimensions = dimensions
        self.batch_size = batch_size

    def _post(self, texts: list[str]) -> list[list[float]]:
        payload: dict[str, Any] = {"model": self.model, "input": texts}
        if self.dimensions and self.model.startswith("text-embedding-3"):
            # OpenAI's v3 models shorten natively to the stored column size
            payload["dimensions"] = self.dimensions
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(
            f"{self.base_url}/embeddings",
            data=json.dumps(payload).encode("utf-8"),
            headers=headers,
            method="POST",
        )
        try:
            with urlopen_no_redirect(request, timeout=self.timeout) as response:
                body = json.loads(response.read().decode("utf-8"))
        except urllib.error.HTTPError as exc:
            if 300 <= exc.code < 400:
                raise EmbeddingError(
                    f"Embedding endpoint {self.base_url} answered a redirect (HTTP {exc.code}); "
                    "redirects are not followed, so the API key never goes elsewhere: set "
                    "KB_EMBEDDING_BASE_URL to the final address."
                ) from exc
            raise EmbeddingError(
                f"Embedding endpoint {self.base_url} answered HTTP {exc.code}."
            ) from exc
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            raise EmbeddingError(
                f"Embedding endpoint {self.base_url} is unreachable: {exc}"
            ) from exc
        except ValueError as exc:
            raise EmbeddingError(f"Embedding endpoint {self.base_url} sent invalid JSON.") from exc
        try:
            rows = sorted(body["data"], key=lambda row: row.get("index", 0))
            vectors = [[float(value) for value in row["embedding"]] for row in rows]
        except (KeyError, TypeError, ValueError) as exc:
            raise EmbeddingError(
                f"Embedding endpoint {self.base_url} sent an unexpected response shape."
            ) from exc
        if len(vectors) != len(texts):
            raise EmbeddingError(
                f"Embedding endpoint returned {len(vectors)} vectors for {len(texts)} texts."
            )
        for vector in vectors:
            if not self.dimensions:
                self.dimensions = len(vector)  # the first answer fixes the size
            check_dimensions(provider=self.name, actual=len(vector), expected=self.dimensions)
        return [l2_normalise(vector) for vector in vectors]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        out: list[list[float]] = []
        for batch in batched(texts, self.batch_size):
            out.extend(self._post(list(batch)))
        return out

    def embed_query(self, text: str) -> list[float]:
        return self._post([text])[0]
