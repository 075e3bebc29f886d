"""Deterministic hashed n-gram embedder for tests: texts sharing words point the same way."""

from __future__ import annotations

import hashlib
import math
import re

from kb.embeddings.base import batched

TOKEN_RE = re.compile(r"\w+", re.UNICODE)


class HashEmbedder:
    """Signed feature hashing of lower-cased unigrams and bigrams, L2-normalised."""

    name = "hash"

    def __init__(self, *, dimensions: int = 384, batch_size: int = 64) -> None:
        self.dimensions = dimensions
        self.batch_size = batch_size

    def _vector(self, text: str) -> list[float]:
        tokens = TOKEN_RE.findall(text.lower())
        counts: dict[str, int] = {}
        for index, token in enumerate(tokens):
            counts[token] = counts.get(token, 0) + 1
            if index:
                bigram = f"{tokens[index - 1]} {token}"
                counts[bigram] = counts.get(bigram, 0) + 1
        vector = [0.0] * self.dimensions
        for feature, count in counts.items():
            digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
            slot = int.from_bytes(digest[:4], "little") % self.dimensions
            sign = 1.0 if digest[4] & 1 else -1.0
            # unigrams weigh more than bigrams; sublinear term frequency
            weight = (1.0 if " " not in feature else 0.5) * (1.0 + math.log(count))
            vector[slot] += sign * weight
        norm = math.sqrt(sum(value * value for value in vector))
        if norm == 0.0:
            # empty text: a fixed unit vector keeps the unit-length contract
            vector[0] = 1.0
            return vector
        return [value / norm for value in vector]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        out: list[list[float]] = []
        for batch in batched(texts, self.batch_size):
            out.extend(self._vector(text) for text in batch)
        return out

    def embed_query(self, text: str) -> list[float]:
        return self._vector(text)
