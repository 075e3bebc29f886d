"""A bounded, process-wide LRU of embeddings for short, recurring texts (queries, sentences).

Identical text gives an identical vector, so a repeated question or a sentence quoted again
by the answer composer is not re-encoded. Ingestion does not use it (chunks are embedded once).
Entries are keyed by tenant schema: a hit is faster, so a shared entry would tell one tenant
that another recently asked the exact same text. And by embedding space (provider, model,
size): after kb_reembed switches a tenant, no old-model vector is served.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from django.conf import settings

from kb.embeddings.base import Embedder
from portal.tenants.selectors import current_schema

_lock = threading.Lock()
_entries: OrderedDict[tuple[str, str, str], list[float]] = OrderedDict()


def _space(embedder: Embedder) -> str:
    # embedders from build_embedder carry their space; a wrapper without one is its own
    return str(getattr(embedder, "space", "") or embedder.name)


def _capacity() -> int:
    return int(settings.KB.get("EMBEDDING_CACHE_SIZE", 0))


def embed_texts_cached(embedder: Embedder, texts: list[str]) -> list[list[float]]:
    """Vectors for `texts`, encoding only those not cached (in one batch)."""
    capacity = _capacity()
    if capacity <= 0:
        return embedder.embed_documents(texts)
    schema = current_schema()
    space = _space(embedder)
    keys = [(schema, space, text) for text in texts]
    found: dict[tuple[str, str, str], list[float]] = {}
    with _lock:
        for key in keys:
            vector = _entries.get(key)
            if vector is not None:
                _entries.move_to_end(key)
                found[key] = vector
    missing = list(dict.fromkeys(key for key in keys if key not in found))
    if missing:
        vectors = embedder.embed_documents([text for _, _, text in missing])
        found.update(zip(missing, vectors, strict=True))
        _store(dict(zip(missing, vectors, strict=True)), capacity)
    return [found[key] for key in keys]


def embed_query_cached(embedder: Embedder, text: str) -> list[float]:
    """The query's vector, from the cache when the same text was embedded recently."""
    capacity = _capacity()
    if capacity <= 0:
        return embedder.embed_query(text)
    key = (current_schema(), _space(embedder), text)
    with _lock:
        vector = _entries.get(key)
        if vector is not None:
            _entries.move_to_end(key)
            return vector
    vector = embedder.embed_query(text)
    _store({key: vector}, capacity)
    return vector


def _store(vectors: dict[tuple[str, str, str], list[float]], capacity: int) -> None:
    """Insert as most recent, then evict the least recently used beyond `capacity`."""
    with _lock:
        for key, vector in vectors.items():
            _entries[key] = vector
            _entries.move_to_end(key)
        while len(_entries) > capacity:
            _entries.popitem(last=False)


def clear_embedding_cache() -> None:
    with _lock:
        _entries.clear()
