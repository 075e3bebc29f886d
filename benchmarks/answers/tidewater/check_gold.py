"""Consistency checks for the Tidewater Water gold set.

    .venv/bin/python benchmarks/answers/tidewater/check_gold.py
    .venv/bin/python benchmarks/answers/tidewater/check_gold.py --digest "QUESTION" "PHRASE" ["slug|PHRASE" ...]

Runs every check of benchmarks/answers/corpus_tools/gold.py (gold lines, documents, links, facts
stated on word boundaries by their gold documents, stale values, refusals) with this set's RULES:
its water-works words join the common words no phrasing may be on its own, a phrasing may start
with £ or ± or end with % unwarned, and every refusal has probe phrases in REFUSAL_PROBES
(`--digest` prints the entry for a new refusal). Prints counts per kind and split, never
question text. Exit status 1 on any error.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # benchmarks/answers: corpus_tools

from build_binaries import DOCUMENTS
from corpus_tools import gold
from corpus_tools.binaries import source_texts

COMMON = gold.COMMON_WORDS | set(
    "month water works main mains pump pumps chlorine sample samples crew customer customers "
    "alarm van".split()
)

# sha256(question)[:12] -> sha256(normalised probe)[:16] for each probe; see --digest.
REFUSAL_PROBES: dict[str, list[str]] = {
    "317a6cffc08d": ["b61a539181694a4a", "97e9be333a613b51", "05cd57d1a4884733"],
    "ce640e9ff11d": ["86fcfbb609d336e0"],
    "95be52f99eb0": ["2a197c2d85d16f36", "9da2acbf20387036"],
    "1de1c1465ecb": ["f02879a955037b13"],
    "153ee6e5b992": ["36e70ec2209b038b", "3aa3463c3029ffd9", "398e22adeeca28c6"],
    "0b52dd659b7a": ["798b59d3396578cf", "f9f41161828b0b47"],
    "377857cd4376": ["ce79fa2a2c9fce56", "0cf2782467c984bc"],
    "4e5c25235bfa": ["7111fedc716fa068", "ce3e5ab4695e70e7"],
    "fccf52c8bebb": ["ed0dc7b8ca84fca7", "2aee96dd4129ad79"],
    "413ab8314151": ["2da5f2db0f33490f", "77009b205e482aee"],
    "5ebeb0dd7776": ["b594e6539aaff678"],
    "97fe3b0a7362": ["5271b82ffdaff88f", "85fa211268c7dc3a"],
    "4dbb0974b986": ["7c1017c54b6308e7", "507269abd05b890c"],
    "13129c07c852": ["7bcd514d59fd09ad", "cf6fe7ddd215ed20", "b0fbf7b9f67a047e"],
    "959f77eb5f1e": ["8d95b28399e646cd"],
    "7d5f9a8f5969": ["817c281bb8b6d585", "2cfd573a17d013b9"],
    "2a3470c5e819": ["589149c9b3d2d2e2", "f25257a3f330e4af", "27807b5ba5239fa0"],
    "3ed00ab60eba": ["537094dc4252c9e0"],
    "f0db252c253e": ["c50d3cb50ec4abcb"],
    "bcb433b4f3fc": ["9b0e5ed8995f4c59", "486f797487a22bf5"],
}

RULES = gold.Rules(
    probes=gold.ProbeTable(REFUSAL_PROBES),
    common_words=COMMON,
    edge_symbols=("£±", "%"),  # a price, a tolerance or a percentage is fine
)

if __name__ == "__main__":
    here = Path(__file__).resolve().parent
    sys.exit(gold.main(here, source_texts(DOCUMENTS), RULES, args=sys.argv[1:]))
