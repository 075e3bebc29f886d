"""Near-duplicate documents: a MinHash signature per document (datasketch) over its word
3-shingles, banded for lookup in PostgreSQL (LSH), and the rule of which document of a group
stands for it (a curated record, else the newest). No database here: kb.selectors reads.

Two documents are near-duplicates when the estimated Jaccard similarity of their shingle sets
reaches KB_DUPLICATE_THRESHOLD. Exact copies (the same bytes under another path) have
identical signatures: similarity 1.0, one group like any other.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.conf import settings

# 128 permutations: the similarity estimate's standard error is at most 0.044 (1/sqrt(128)/2)
NUM_PERM = 128
# LSH: 32 bands of 4 rows. Two documents share a band with probability 1 - (1 - s^4)^32:
# 0.87 at similarity 0.5, 0.99 at 0.6, 1.0 from 0.7; so thresholds from 0.6 find their pairs.
BANDS = 32
ROWS = NUM_PERM // BANDS
SHINGLE_WORDS = 3  # word 3-grams: the same words reordered is not the same document
# fixed: signatures stored years apart must stay comparable (datasketch 2's default scheme:
# 32-bit values, which a bigint array stores as they are)
SEED = 1
SCHEME = "affine32"
WORD_RE = re.compile(r"\w+")


def threshold() -> float:
    return float(settings.KB["DUPLICATE_THRESHOLD"])


def signature(text: str) -> list[int]:
    """The MinHash of the text's word 3-shingles (lowercased); [] for a text without words."""
    from datasketch import MinHash

    tokens = WORD_RE.findall(text.lower())
    if not tokens:
        return []
    width = min(SHINGLE_WORDS, len(tokens))
    shingles = {" ".join(tokens[i : i + width]) for i in range(len(tokens) - width + 1)}
    minhash = MinHash(num_perm=NUM_PERM, seed=SEED, scheme=SCHEME)
    minhash.update_batch([shingle.encode("utf-8") for shingle in shingles])
    return [int(value) for value in minhash.hashvalues]


def document_signature(chunk_texts: Iterable[str]) -> list[int]:
    """The signature of a document from its chunks' texts, in order (at ingest and for the
    documents stored before signatures were)."""
    return signature("\n".join(chunk_texts))


def bands(values: Sequence[int]) -> list[int]:
    """One signed 64-bit hash per band of the signature (its band number included, so equal
    rows in different bands do not meet); [] without a signature."""
    if len(values) != NUM_PERM:
        return []
    out = []
    for band in range(BANDS):
        rows = ",".join(str(value) for value in values[band * ROWS : (band + 1) * ROWS])
        digest = hashlib.blake2b(f"{band}:{rows}".encode(), digest_size=8).digest()
        out.append(int.from_bytes(digest, "big", signed=True))
    return out


def similarities(signature: Sequence[int], others: Sequence[Sequence[int]]) -> list[float]:
    """The estimated Jaccard similarity of one signature with each of `others`: the share of
    equal MinHash values, as datasketch estimates it (0.0 where either is missing). One numpy
    comparison for all of them: a project of look-alike documents (notes from one template)
    makes every document a candidate of every other."""
    import numpy as np

    out = [0.0] * len(others)
    complete = [i for i, other in enumerate(others) if len(other) == NUM_PERM]
    if len(signature) != NUM_PERM or not complete:
        return out
    matrix = np.asarray([others[i] for i in complete], dtype=np.int64)
    shares = (matrix == np.asarray(signature, dtype=np.int64)).mean(axis=1)
    for i, share in zip(complete, shares, strict=True):
        out[i] = float(share)
    return out


def similarity(first: Sequence[int], second: Sequence[int]) -> float:
    """The estimated Jaccard similarity of two signatures (0.0 when either is missing)."""
    return similarities(first, [second])[0]


@dataclass(frozen=True, kw_only=True)
class Candidate:
    """What decides which document of a group stands for it."""

    document_id: int
    curated: bool  # a canonical record (typed by an editor or its frontmatter)
    updated_at: dt.datetime


def groups(pairs: Iterable[tuple[int, int]]) -> list[set[int]]:
    """Connected groups of documents from near-duplicate pairs (a ~ b, b ~ c: one group)."""
    parent: dict[int, int] = {}

    def root(node: int) -> int:
        parent.setdefault(node, node)
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for first, second in pairs:
        parent[root(first)] = root(second)
    found: dict[int, set[int]] = {}
    for node in list(parent):
        found.setdefault(root(node), set()).add(node)
    return sorted(found.values(), key=min)


def preferred(candidates: Iterable[Candidate]) -> int:
    """The document that stands for its group: a curated record wins, else the newest
    (the latest written; the higher id on a tie)."""
    best = max(candidates, key=lambda c: (c.curated, c.updated_at, c.document_id))
    return best.document_id


def stand_ins(candidates: Sequence[Candidate], pairs: Iterable[tuple[int, int]]) -> dict[int, int]:
    """{document id: the document that stands for its group} for every document of a group
    (the preferred one maps to itself); documents without a near-duplicate are left out."""
    by_id = {candidate.document_id: candidate for candidate in candidates}
    out: dict[int, int] = {}
    for group in groups(pairs):
        known = [by_id[member] for member in group if member in by_id]
        if not known:
            continue
        keep = preferred(known)
        out.update({member: keep for member in group})
    return out
