"""Consistency checks for the Northmill Foods gold set.

    .venv/bin/python benchmarks/answers/northmill/check_gold.py
    .venv/bin/python benchmarks/answers/northmill/check_gold.py --digest "QUESTION" "PHRASE" ["slug|PHRASE" ...]

Runs the checks of benchmarks/answers/corpus_tools/gold.py (gold lines, documents, links, facts
stated on word boundaries by their gold documents, stale values, refusals) with this set's RULES:
its food words join the common words no phrasing may be on its own, every refusal has probe
phrases in REFUSAL_PROBES (`--digest` prints the entry for a new refusal), and a stale value
need not occur in the corpus. Prints counts per kind and split, never question text. Exit status
1 on any error.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # benchmarks/answers: corpus_tools

from build_binaries import DOCUMENTS
from corpus_tools import gold
from corpus_tools.binaries import source_texts

COMMON = gold.COMMON_WORDS | set("food milk egg fish paper product".split())

# sha256(question)[:12] -> sha256(normalised probe)[:16] for each probe; see --digest.
REFUSAL_PROBES: dict[str, list[str]] = {
    "73f3f64defed": ["68af4c61b30a8784", "0ee92431a403898c"],
    "1e08d2b0b712": ["71dd38c7bb48bbcf", "b571d05fbe6204ff"],
    "b056b5edae18": ["a8261362734772b3", "134dd443c2037e78"],
    "f5d5b5b73a92": ["86665ca8e08899ac", "3ca7c696b8980eb6", "4e0376e167c39842"],
    "301b09566030": [
        "ee4c8e674d78a6e1",
        "3bc741d603906461",
        "78f3879ebac199b0",
        "fbdbe8fb80aa6782",
    ],
    "f746056f0fa6": [
        "736321bf1dd7b5e2",
        "8c250a53ddf134d9",
        "b7b96ac2ad1d52be",
        "4507c5ee938f7372",
    ],
    "b953d5d94f8b": ["70e9f44ea20ad5c9", "b72dbd892ddc1df8", "82a1b5ebcea433e5"],
    "02ee88d31958": ["66a81636f4b16cdb", "1376575ab0699527", "2c98998a7b1a7ae1"],
    "0fcaaf50e258": ["7111fedc716fa068", "34461b48e194298f"],
    "9401e0eb3f7b": ["338ecbda90a2a694", "a3b0eb8b90d00d65"],
    "3b4fd93974ce": ["dbf3ac43357a325c", "6d8d7a64a2d8291d"],
    "d087b882c181": [
        "27d249c661ac09eb",
        "5c29e81d4479dd86",
        "b797322f2e0c5e24",
        "8861fe7fec9f55a5",
    ],
    "28184e4cab37": [
        "b85e3762e8684ac9",
        "cca9394375d96cbf",
        "6d88bd32fa00a576",
        "6a5f9a3955742684",
    ],
    "ea0d83b0e472": [
        "80395d19504d78a3",
        "dfa549617fbb8adc",
        "8b4745e1e0ae0f6d",
        "20018a54abc51019",
        "356592719ef9f450",
    ],
    "cc38f331b77b": ["ae0c4b2b730d84ff", "a19d204d5e15287e"],
    "d6b3434d0766": ["e1858eeb8b189c6e", "ef3ede08a7ca5040"],
    "ac5d29a767c9": ["305411437e8c784f", "6dbdec2434e4f3e3"],
    "7c39922fd4fe": ["55822184da89d02f", "7bf9d33f579ca64c"],
    "413e9b2f019c": ["0f43bbdfa20dc74f", "d263593ca7155136"],
    "e4ebe9399512": ["31ac192f18671301", "43616695251d1c8e"],
}

RULES = gold.Rules(
    probes=gold.ProbeTable(REFUSAL_PROBES),
    common_words=COMMON,
    stale_must_occur=False,
)

if __name__ == "__main__":
    here = Path(__file__).resolve().parent
    sys.exit(gold.main(here, source_texts(DOCUMENTS), RULES, args=sys.argv[1:]))
