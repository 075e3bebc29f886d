"""The query/sentence embedding cache: same vectors, fewer encodes, bounded size."""

from __future__ import annotations

import pytest

from kb.embeddings import build_embedder
from kb.embeddings.cache import clear_embedding_cache, embed_query_cached, embed_texts_cached


class CountingEmbedder:
    def __init__(self) -> None:
        self.inner = build_embedder("hash")
        self.name = "counting"
        self.dimensions = self.inner.dimensions
        self.encoded: list[str] = []

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.encoded.extend(texts)
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        self.encoded.append(text)
        return self.inner.embed_query(text)


@pytest.fixture
def cache_of_three(settings):
    settings.KB = {**settings.KB, "EMBEDDING_CACHE_SIZE": 3}
    clear_embedding_cache()
    yield
    clear_embedding_cache()


def test_cached_vectors_equal_fresh_ones_and_skip_the_encoder(cache_of_three):
    embedder = CountingEmbedder()
    first = embed_texts_cached(embedder, ["alpha beta", "gamma", "alpha beta"])
    assert embedder.encoded == ["alpha beta", "gamma"]  # duplicates encoded once
    again = embed_texts_cached(embedder, ["gamma", "alpha beta"])
    assert embedder.encoded == ["alpha beta", "gamma"]
    assert again == [first[1], first[0]]
    assert embed_query_cached(embedder, "gamma") == first[1]
    assert embedder.encoded == ["alpha beta", "gamma"]


def test_the_cache_is_bounded_and_evicts_the_least_recently_used(cache_of_three):
    embedder = CountingEmbedder()
    embed_texts_cached(embedder, ["a", "b", "c"])
    embed_query_cached(embedder, "a")  # a is now the most recent
    embed_texts_cached(embedder, ["d"])  # evicts b
    embedder.encoded.clear()
    embed_texts_cached(embedder, ["a", "c", "d", "b"])
    assert embedder.encoded == ["b"]


def test_size_zero_disables_the_cache(settings):
    settings.KB = {**settings.KB, "EMBEDDING_CACHE_SIZE": 0}
    embedder = CountingEmbedder()
    embed_query_cached(embedder, "x")
    embed_query_cached(embedder, "x")
    assert embedder.encoded == ["x", "x"]
