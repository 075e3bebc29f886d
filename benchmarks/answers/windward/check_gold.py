"""Consistency checks for the Windward Energy gold set.

    .venv/bin/python benchmarks/answers/windward/check_gold.py

Runs the checks of benchmarks/answers/corpus_tools/gold.py (gold lines, documents, links, facts
stated on word boundaries by their gold documents, stale values, refusals) with this set's RULES,
which leave out the checks later sets added. Prints counts per kind and split, never question
text. Exit status 1 on any error.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # benchmarks/answers: corpus_tools

from build_binaries import DOCUMENTS
from corpus_tools import gold
from corpus_tools.binaries import source_texts


def report(tally: gold.Tally) -> list[str]:
    return [f"documents: {tally.documents}; conversations: {tally.conversations.total()}"]


# The first business set: the checks the later sets added are off, it has no refusal probes, and
# its off-topic questions need not be in both splits.
RULES = gold.Rules(
    probes=None,
    common_words=frozenset(),
    boundaries=gold.plain_boundaries,
    slug_of=None,
    frontmatter_must_parse=False,
    links_may_name_files=True,
    allowed_keys=None,
    refusal_kinds=None,
    refusal_leaves_empty=("facts", "slugs"),
    stale_needed_by=frozenset(),
    stale_must_occur=False,
    unique_questions=False,
    unbalanced_kinds=frozenset({"off-topic"}),
)

if __name__ == "__main__":
    here = Path(__file__).resolve().parent
    sys.exit(gold.main(here, source_texts(DOCUMENTS), RULES, report))
