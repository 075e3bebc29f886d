"""Consistency checks for the Riverside Health gold set.

    .venv/bin/python benchmarks/answers/riverside/check_gold.py

Runs the checks of benchmarks/answers/corpus_tools/gold.py (gold lines, documents, links, facts
stated on word boundaries by their gold documents, stale values, refusals) with this set's RULES,
which leave out the checks later sets added and add one of its own: a document without
frontmatter is named as a slug.

Refusal subjects are stored below only as SHA-256 hashes of normalised phrases (keyed by a
hash of the question), so reading this script does not reveal held-out questions. A probe
phrase is "present" if its normalised word sequence occurs anywhere in the corpus.

Prints counts per kind and split, never question text. Exit status 1 on any error.
"""

from __future__ import annotations

import hashlib
import re
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # benchmarks/answers: corpus_tools

from build_binaries import DOCUMENTS
from corpus_tools import gold
from corpus_tools.binaries import source_texts


def words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class WordProbes(gold.ProbeTable):
    """This set's probes predate the shared table's and keep their own hashing: the question is
    hashed as it is, a probe is a run of up to 6 [a-z0-9] words, and it counts anywhere in the
    corpus (there are no per-document probes)."""

    max_words: int = 6

    def key(self, question: str) -> str:
        return digest(question)

    def words(self, text: str) -> list[str]:
        return words(text)

    def digest(self, scope: str, gram: str) -> str:
        return digest(gram)


def report(tally: gold.Tally) -> list[str]:
    return [
        f"refusals: DEV {tally.refusals['DEV']}, HELDOUT {tally.refusals['HELDOUT']}",
        f"documents: {tally.documents}; conversations: DEV {tally.conversations['DEV']}, "
        f"HELDOUT {tally.conversations['HELDOUT']}",
    ]


# Hash of the question text -> hashes of normalised phrases naming the refused subject.
# Make a new one by hashing phrases with words() and digest() above.
REFUSAL_PROBES = {
    "cd2ac63ab774d0da": [
        "53738e5140475e25",
        "933aa6ebb83e4538",
        "d39245fa8f8a21c2",
        "fd29c83362a75462",
    ],
    "b6441b675d841bc7": ["00651121c5a6ad69", "f1e67411f40b7086"],
    "11ed69978143e12b": ["0e0103a791486529"],
    "f580ac12ff32763c": ["4d1b464c3b5feb12", "f56c68f42cb42511"],
    "d47c1d5aea2fff4f": ["14e22ef994695c5c", "76d9a5d8536f690e", "cb38b1c159af4c47"],
    "0184acc985ab5c96": ["2422eef7509457a9", "49fb13fd06e9b706", "6be908dd5f7bba92"],
    "ff83d8542c0f9c81": ["05c7dbac14dc2bf3"],
    "01cd2e5cfae7316f": ["9041bd65105f2c76"],
    "5a8a0d3a5c153206": ["b493d48364afe44d"],
    "a21ecb3d15a560b0": ["bf0bddc8bea5c541"],
    "502a0fb6a8638f96": ["41d84697de766b1f", "8b6e2bef057f10e4", "aebfce0e2bc9ef92"],
    "9d8b391470ac4416": ["0e376c13c26b9a46", "b5e224678b68106d"],
    "4ffb87416e8af721": ["2caf4ade6c75d688", "69817c5201ce4fe5", "9afc3d41416f8c81"],
    "952fdea77576e402": [
        "1f138a9db68c91dc",
        "3e927e178863c315",
        "e43dc73032cdd33e",
        "f45de5b52edb5ed3",
    ],
    "61f48c296cca0009": ["21b73bd58fd98b57"],
    "0fa2128f7ee93d69": ["c74c9a30f434ce29", "d1022618b99a974b"],
    "a70c333e69cb2df8": ["891eb3cfc2cddd9e"],
    "63a041bbb7486e3e": ["b29dbba57df61de7"],
    "59178fc26057f292": ["33c594e4e3652984", "408c7c5887a0f390"],
    "e9f1271fe636bed8": ["3b68ec8b0f958bd2", "74f5bd52367feed1"],
}

# Checks this set never made, or makes its own way.
RULES = gold.Rules(
    probes=WordProbes(REFUSAL_PROBES),
    common_words=frozenset(),
    boundaries=gold.plain_boundaries,
    slug_of=gold.stem_slug,
    frontmatter_must_parse=False,
    names_are_slugs=True,
    refusal_kinds=None,
    refusal_leaves_empty=("facts", "slugs"),
    stale_needed_by=frozenset(),
    unique_questions=False,
)

if __name__ == "__main__":
    here = Path(__file__).resolve().parent
    sys.exit(gold.main(here, source_texts(DOCUMENTS), RULES, report))
